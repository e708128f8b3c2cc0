package client

// The error codes (codes.gen.go) come from the OpenAPI document's ErrorCode
// enum; `make check-generated` fails when they are stale.
//go:generate go run ../transport/openapi/internal/gencodes -package client
