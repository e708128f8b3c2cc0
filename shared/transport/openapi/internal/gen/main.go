// Command gen writes openapi.json from openapi.yaml (run by go generate in
// package openapi, from its directory).
package main

import (
	"fmt"
	"os"

	"github.com/callscribe/callscribe/shared/transport/openapi/internal/yamljson"
)

func main() {
	src, err := os.ReadFile("openapi.yaml")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, err := yamljson.Convert(src)
	if err != nil {
		fmt.Fprintln(os.Stderr, "openapi.yaml:", err)
		os.Exit(1)
	}
	if err := os.WriteFile("openapi.json", out, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
