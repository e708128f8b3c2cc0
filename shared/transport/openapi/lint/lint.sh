#!/usr/bin/env bash
# Lints the OpenAPI document with Redocly's recommended rules, with the
# version pinned in package-lock.json beside this script. Exits non-zero on any
# error; warnings are printed (doc.go says which remain and why).
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -x node_modules/.bin/redocly ]; then
	npm ci --silent --no-audit --no-fund
fi
exec node_modules/.bin/redocly lint --extends recommended ../openapi.yaml
