#!/usr/bin/env bash
# Checks what is generated from the OpenAPI document (make check-generated):
#   1. Redocly's recommended ruleset reports no error on openapi.yaml.
#   2. The generated files are current (openapi.json, the server's and the
#      client's error codes, the client's wire types): go generate, then no diff.
#   3. The dashboard's TypeScript types generated from the document are current.
#   4. oapi-codegen's output for the whole document (models, client, std-http
#      server) builds, so integrators' generators keep working. It is built in a
#      throw-away module under .cache (oapi-codegen's runtime, which that output
#      imports, is no dependency of this module).
set -euo pipefail
cd "$(dirname "$0")/../.."

# The dashboard's wire types (openapi-typescript) match the document; the
# dashboard's type-check (make web) compiles them.
(cd shared/transport/dashboard/web && npm run --silent check:types)

bash shared/transport/openapi/lint/lint.sh

generated=(shared/transport/openapi/openapi.json shared/callscribe/codes.gen.go shared/client/codes.gen.go shared/client/wire.gen.go)
go generate ./shared/transport/openapi ./shared/callscribe ./shared/client
if ! git diff --exit-code --stat -- "${generated[@]}"; then
	echo "generated files are stale: run go generate ./shared/transport/openapi ./shared/callscribe ./shared/client and commit" >&2
	exit 1
fi

# The whole document through oapi-codegen (pinned by go.mod's tool directive).
# skip-prune: oapi-codegen prunes schemas referenced only from webhooks
# (TagDeliveredPayload), then references them from the webhook's code.
OAPI_RUNTIME=github.com/oapi-codegen/runtime@v1.9.0
dir=$(pwd)/.cache/openapi-generated
rm -rf "$dir" && mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
cat >"$dir/oapi-codegen.yaml" <<CFG
package: api
generate:
  models: true
  client: true
  std-http-server: true
output-options:
  skip-prune: true
output: $dir/api.gen.go
CFG
go tool oapi-codegen -config "$dir/oapi-codegen.yaml" shared/transport/openapi/openapi.yaml
printf 'module openapigenerated\n\ngo 1.26.0\n' >"$dir/go.mod"
(cd "$dir" && GOFLAGS=-mod=mod go get "$OAPI_RUNTIME" >/dev/null 2>&1 && GOFLAGS=-mod=mod go build ./...)
echo "check-generated: lint clean, generated files current, oapi-codegen output of the whole document builds"
