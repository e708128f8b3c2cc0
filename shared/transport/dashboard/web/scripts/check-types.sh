#!/bin/sh
# npm run check:types: regenerates the API types from the OpenAPI document into
# a temporary file and fails when they differ from the committed
# src/api/schema.gen.ts (run `npm run gen:types` and commit the result).
set -eu
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
openapi-typescript ../../openapi/openapi.yaml -o "$out/schema.gen.ts"
if ! diff -u src/api/schema.gen.ts "$out/schema.gen.ts"; then
  echo "check:types: src/api/schema.gen.ts is not what ../../openapi/openapi.yaml generates; run npm run gen:types and commit it" >&2
  exit 1
fi
echo "check:types: src/api/schema.gen.ts matches ../../openapi/openapi.yaml"
