#!/bin/sh
# npm run test:unit: compiles the unit tests and the modules they import with
# tsc into a temporary directory and runs them with Node's test runner.
set -eu
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
tsc -p tsconfig.unit.json --outDir "$out"
node --test "$out"/test/*.test.js
