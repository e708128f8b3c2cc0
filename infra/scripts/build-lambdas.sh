#!/usr/bin/env bash
# Builds every Lambda function (functions/*) as bin/<name>/bootstrap for the
# provided.al2023 runtime on arm64 (make build). template.yaml's CodeUri points
# at these directories and `sam build` (BuildMethod: makefile) copies the
# bootstrap from there, so `make build` and `sam build` ship the same binaries.
#
# CGO_ENABLED=0: the embedded sphinx engine (cgo) is not in these builds, so on
# AWS TRANSCRIBER is aws-transcribe (the template's default) or openai.
# -tags lambda.norpc: provided.al2023 does not use the legacy Go RPC mode.
set -euo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
out=${OUT_DIR:-bin}
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
# One go build for all functions: it compiles shared packages once and in parallel.
GOOS=linux GOARCH=arm64 CGO_ENABLED=0 "$GO" build -tags lambda.norpc -trimpath -ldflags='-s -w' \
  -o "$staging/" ./functions/...
n=0
for bin in "$staging"/*; do
  name=$(basename "$bin")
  mkdir -p "$out/$name"
  mv "$bin" "$out/$name/bootstrap"
  n=$((n + 1))
done
echo "built $n functions into $out/<name>/bootstrap"
