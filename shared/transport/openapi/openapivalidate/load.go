// Package openapivalidate loads the service's OpenAPI document with
// kin-openapi and validates HTTP exchanges against it. It is test support
// (the black-box suite wraps its HTTP transport with Transport); the service
// itself only serves the document's bytes (package openapi), so the Lambda
// binaries do not link the validator.
package openapivalidate

import (
	"context"
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/callscribe/callscribe/shared/transport/openapi"
)

// Load parses the embedded document and validates it as OpenAPI 3.1.
func Load(ctx context.Context) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	loader.Context = ctx
	doc, err := loader.LoadFromData(openapi.Document())
	if err != nil {
		return nil, fmt.Errorf("loading the OpenAPI document: %w", err)
	}
	if !doc.IsOpenAPI31OrLater() {
		return nil, fmt.Errorf("the OpenAPI document is version %s, want 3.1", doc.OpenAPI)
	}
	if err := doc.Validate(ctx); err != nil {
		return nil, fmt.Errorf("validating the OpenAPI document: %w", err)
	}
	return doc, nil
}
