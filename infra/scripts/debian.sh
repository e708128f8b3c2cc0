# Sourced by the install scripts: Debian package installs as root (or through
# sudo), each run only when the command it provides is missing.

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# ensure_debian_package CMD PACKAGE... installs the packages when CMD is not found.
ensure_debian_package() {
  local cmd="$1"
  shift
  command -v "$cmd" >/dev/null 2>&1 && return 0
  echo "$(basename "$0"): $cmd not found; installing $*" >&2
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}
