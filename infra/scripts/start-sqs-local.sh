#!/usr/bin/env bash
# Runs local-aws-sqs (pinned npm package, make deps-aws) in the foreground on
# 127.0.0.1:PORT (default 9324). The package is a library without a CLI, so this
# starts its server from a one-line node program. It prints "ready" once listening.
# Started and stopped by package shared/testkit/awstest (tests, make run-aws-local).
set -euo pipefail
port="${1:-9324}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mod="$root/infra/awsemulator/node_modules/local-aws-sqs"
if [ ! -d "$mod" ]; then
  echo "start-sqs-local: local-aws-sqs is not installed; run 'make deps-aws'" >&2
  exit 3
fi
# emulateQueueCreationLifecycle=false: tests delete and recreate queues freely.
exec node -e '
const { createSqsServer } = require(process.argv[1]);
createSqsServer({ port: Number(process.argv[2]), hostname: "127.0.0.1", emulateQueueCreationLifecycle: false })
  .then(() => console.log("ready"))
  .catch((err) => { console.error(err); process.exit(1); });
' "$mod" "$port"
