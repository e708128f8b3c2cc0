package client

// The error codes (codes.gen.go) come from the OpenAPI document's ErrorCode
// enum, and the wire types (wire.gen.go) from its component schemas, by
// oapi-codegen at the version go.mod's tool directive pins; `make
// check-generated` fails when either is stale.
//go:generate go run ../transport/openapi/internal/gencodes -package client
//go:generate go tool oapi-codegen -config oapi-codegen.yaml ../transport/openapi/openapi.yaml
