#!/usr/bin/env bash
# Installs the reference tools `lodge bench` compares against (and its test runs): openssl
# (`openssl dgst -sha256`) and curl (`curl --upload-file`). Does nothing when both are on PATH.
set -euo pipefail
command -v openssl >/dev/null && command -v curl >/dev/null && exit 0
"$(dirname "$0")/apt-packages.sh" "lodge bench compares against them" openssl curl
