#!/usr/bin/env bash
# apt-packages.sh WHAT PACKAGE...: installs the Debian packages not yet installed (nothing
# when all are), with sudo when not root. WHAT names the need in the error printed on a
# machine without apt-get. The other install scripts call this.
set -euo pipefail
what="$1"
shift
missing=()
for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

command -v apt-get >/dev/null || {
    echo "install ${missing[*]} with your package manager ($what)" >&2
    exit 1
}
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
