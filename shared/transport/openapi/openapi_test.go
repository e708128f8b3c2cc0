package openapi

import (
	"bytes"
	"os"
	"testing"

	"github.com/callscribe/callscribe/shared/transport/openapi/internal/yamljson"
)

// TestJSONIsGeneratedFromYAML: the embedded openapi.json is the conversion of
// the current openapi.yaml (run `go generate ./shared/transport/openapi` after editing it).
func TestJSONIsGeneratedFromYAML(t *testing.T) {
	src, err := os.ReadFile("openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want, err := yamljson.Convert(src)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, Document()) {
		t.Fatal("openapi.json is stale: run go generate ./shared/transport/openapi")
	}
	if Version() != "1.0.0" {
		t.Errorf("info.version %q", Version())
	}
}
