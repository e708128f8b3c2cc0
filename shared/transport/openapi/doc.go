// Package openapi holds the OpenAPI 3.1 document of the callscribe HTTP API:
// every route the service serves (the spec's v1 routes, the taxonomy, two-step
// uploads, exports, the dashboard's routes, /healthz and /openapi.json itself),
// their parameters, request bodies, every response with its schema and headers,
// the error codes each operation can return per status, both security schemes,
// the optional gateway `apikey` header, and the tagDelivered callback (the
// top-level webhook of that name, contract version 1.0.0).
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
// # Shapes chosen for generators
//
// The document is the wire contract that clients are generated from (the Go
// client's error codes here, the dashboard's TypeScript types, integrators'
// own generators), so its shapes are the ones common generators read;
// `make check-generated` holds it to that (Redocly's recommended rules report no
// error, and oapi-codegen's output for the whole document builds):
//
//   - tagDelivered is declared once, as a webhook. A `callbacks` entry on
//     POST /v1/tag and /dashboard/tag (even a $ref to the webhook) makes
//     oapi-codegen declare the callback's types once per occurrence, which does
//     not compile; kin-openapi v0.153 refuses components.pathItems. oapi-codegen
//     prunes schemas referenced only from webhooks, so it needs
//     output-options.skip-prune for TagDeliveredPayload.
//   - Job is a oneOf of TranscriptionJob, SummaryJob and TagsJob with a
//     discriminator on `type` (a mapping for each value): the result's shape
//     depends on the job's type, and the results themselves carry no type, so
//     the type lives on the job. Generators then type `result` per job type.
//     The rules they cannot express (result exactly when succeeded, error
//     exactly when failed) are if/then in JobOutcome, for validators.
//   - Nullable values are `type: [T, 'null']`, one form throughout (oapi-codegen
//     v2.8.2 reads it as a pointer; versions before OpenAPI 3.1 support, such as
//     v2.4.1, read neither it nor a oneOf with {type: 'null'}).
//   - Numbers are `format: double`, or Go generators make them float32.
//   - ErrorCode carries x-enum-varnames and x-enum-descriptions: the server's
//     and the Go client's Code constants (shared/callscribe/codes.gen.go,
//     shared/client/codes.gen.go) are generated from them by
//     internal/gencodes, so the enum is the one list of the codes on the wire.
//   - Every body the Go client reads or sends is a component schema (not an
//     inline one), with x-go-name / x-go-type / x-go-type-name /
//     x-go-type-skip-optional-pointer where the Go names and types differ from
//     oapi-codegen's defaults: the client's wire types (shared/client/wire.gen.go)
//     are generated from the component schemas alone, with no dependency on
//     oapi-codegen's runtime. The extensions change no validation.
//   - Every operation declares its security; the webhook's is `[]` (the service
//     sends only the optional `apikey` header).
//
// Redocly warnings left on purpose: the license has no url or SPDX identifier
// (the API is proprietary); GET /openapi.json has no 4XX answer (it has none);
// MethodNotAllowed is referenced by no operation (openapivalidate uses it for
// any method a path does not take); and no-required-schema-properties-undefined
// on conditional subschemas (JobOutcome, Error's details), whose properties are
// those of the schema around them, which the rule does not follow.
//
// When a test fails, decide which side is wrong: fix the document when it
// did not say what the server does and should; fix the server (with a test)
// when it does something the contract does not allow.
package openapi
