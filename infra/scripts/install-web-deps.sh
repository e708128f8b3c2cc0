#!/usr/bin/env bash
# Installs what the web dashboard needs (make deps-web, called by make run and make test):
#   - its npm packages, pinned in shared/transport/dashboard/web/package-lock.json (TypeScript, Vite,
#     and playwright-core for the browser tests; no browser download: playwright-core has none);
#   - with --browser (make test): Debian's chromium, which the browser tests drive.
# Idempotent and quick when already installed: npm runs only when the lock file changed
# since the last successful install (a stamp with the lock's hash sits in node_modules).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="$root/shared/transport/dashboard/web"
stamp="$dir/node_modules/.callscribe-install-stamp"

# shellcheck source=debian.sh
. "$root/infra/scripts/debian.sh"
ensure_debian_package npm nodejs npm

want="$( (cat "$dir/package.json"; cat "$dir/package-lock.json") | sha256sum | cut -d' ' -f1)"
if ! [ -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  # npm install, not npm ci: the registry this project reaches lacks rollup's
  # platform packages for other systems, so the lock file holds only the ones
  # that exist and npm ci refuses it as incomplete; npm install installs exactly
  # the locked versions and leaves the lock as it is.
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error)
  echo "$want" > "$stamp"
  echo "install-web-deps: npm packages installed in shared/transport/dashboard/web/node_modules"
fi

if [ "${1:-}" = "--browser" ]; then
  ensure_debian_package chromium chromium
fi
