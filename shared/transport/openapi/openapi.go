package openapi

import (
	_ "embed"
	"encoding/json"
	"sync"
)

//go:generate go run ./internal/gen

// document is the generated JSON form of openapi.yaml.
//
//go:embed openapi.json
var document []byte

// Document returns the OpenAPI 3.1 document as served at GET /openapi.json. The
// slice is shared: do not modify it.
func Document() []byte { return document }

var version = sync.OnceValue(func() string {
	var d struct {
		Info struct {
			Version string `json:"version"`
		} `json:"info"`
	}
	_ = json.Unmarshal(document, &d)
	return d.Info.Version
})

// Version is the document's info.version.
func Version() string { return version() }
