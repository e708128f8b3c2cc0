// Package openapi holds the OpenAPI 3.1 document of the callscribe HTTP API:
// every route the service serves (the spec's v1 routes, the taxonomy, two-step
// uploads, exports, the dashboard's routes, /healthz and /openapi.json itself),
// their parameters, request bodies, every response with its schema and headers,
// the error codes each operation can return per status, both security schemes,
// the optional gateway `apikey` header, and the tagDelivered callback (under
// POST /v1/tag's callbacks and the top-level webhooks, contract version 1.0.0).
//
// openapi.yaml is the source; openapi.json is generated from it by
// `go generate ./shared/transport/openapi` and embedded: Document returns it, and the
// service serves it unauthenticated at GET /openapi.json on both stacks.
//
// # How the document is kept true
//
// Nothing in it is generated from the code, so three kinds of test hold it to
// the server:
//
//   - Inventory (package httpapi): every Route constant has exactly one
//     operation in the document with the same method and path, and every
//     operation of the document is a Route constant. A route cannot be added
//     without documenting it, nor documented without being served.
//   - Shape (this package and openapivalidate): the document loads and
//     validates as OpenAPI 3.1 with kin-openapi, openapi.json is the conversion
//     of the current openapi.yaml, the error-code enum is exactly the codes of
//     httpapi's status table, and each code appears only under its status.
//   - Behaviour (package apitest, the black-box suite run against the local
//     stack and the AWS-emulating stack): every request the suite sends goes
//     through openapivalidate.Transport, which validates it against the
//     document and validates the response the server gives: status documented
//     for the operation, required headers (X-Request-Id), content type and body
//     schema. Objects are closed (additionalProperties: false) wherever the
//     server's shape is, and error codes are enums per status, so an
//     undocumented status, field or code fails the suite. Requests the
//     document rejects (the suite sends many on purpose) must get a documented
//     4xx. A request to a path the document does not have must get the
//     documented 404 NOT_FOUND or 405 METHOD_NOT_ALLOWED shape.
//
// When a test fails, decide which side is wrong: fix the document when it
// did not say what the server does and should; fix the server (with a test)
// when it does something the contract does not allow.
package openapi
