#!/usr/bin/env bash
# Installs the reference tools `lodge bench` compares against (and its test runs): openssl
# (`openssl dgst -sha256`) and curl (`curl --upload-file`). Does nothing when both are on PATH.
set -euo pipefail

missing=()
for tool in openssl curl; do
    command -v "$tool" >/dev/null || missing+=("$tool")
done
[ ${#missing[@]} -eq 0 ] && exit 0

command -v apt-get >/dev/null || {
    echo "bench-tools: install ${missing[*]} with your package manager (lodge bench compares against them)" >&2
    exit 1
}
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y --no-install-recommends "${missing[@]}"
