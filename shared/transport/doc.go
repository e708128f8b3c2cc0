// Package transport groups how requests reach the service:
//   - httpapi: the net/http handlers (Go 1.22 route patterns) of the public API
//     and the dashboard's routes; error code to HTTP status in one table
//     (respond.go).
//   - lambdaapi: the API functions' Lambda entry points (API Gateway events
//     through net/http); lambdaapi/workers the worker functions' (SQS
//     batches), which link no HTTP transport; lambdaapi/inventory the
//     functions, routes and queues that template.yaml is checked against.
//   - openapi: the OpenAPI document, the one source of the wire contract,
//     served at /openapi.json.
//   - dashboard: the web dashboard (web/ is its TypeScript source), embedded
//     and served by the HTTP server.
//   - transcriptexport: TXT, SRT, WebVTT and JSON exports of a transcript.
package transport
