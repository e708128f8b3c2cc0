#!/usr/bin/env bash
# bench-api: the API's throughput beside a bare net/http handler, and peak RSS
# under 16 concurrent 10 MiB uploads, on the local stack with the real speech
# engine (see infra/bench/cmd/apibench). Installs wrk (Debian) when missing.
# BENCH_JOBS (default 100000) sizes the account; extra arguments go to apibench.
set -euo pipefail
cd "$(dirname "$0")/../.."
source infra/scripts/debian.sh
ensure_debian_package wrk wrk
mkdir -p .cache/bench-api
export CGO_ENABLED=1
go build -o .cache/bench-api/callscribe ./infra/embeddedserver
go build -o .cache/bench-api/apibench ./infra/bench/cmd/apibench
exec .cache/bench-api/apibench -bin .cache/bench-api/callscribe -jobs "${BENCH_JOBS:-100000}" "$@"
