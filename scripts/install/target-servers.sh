#!/usr/bin/env bash
# Installs the real servers the conformance suite runs against, into .venv (idempotent):
# moto[server] (S3) and wsgidav + cheroot (WebDAV), from PyPI. The tests start them on free
# loopback ports themselves and fail (never skip) when they are missing.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ -x .venv/bin/moto_server ] && [ -x .venv/bin/wsgidav ] && .venv/bin/python -c 'import cheroot' 2>/dev/null; then
    exit 0
fi
command -v python3 >/dev/null || { echo "target-servers.sh: python3 is not installed" >&2; exit 1; }
if [ ! -x .venv/bin/python ]; then
    # Debian's python3 needs its venv package for `python3 -m venv`.
    python3 -m venv .venv 2>/dev/null || {
        rm -rf .venv
        apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
        python3 -m venv .venv
    }
fi
.venv/bin/pip install --quiet --disable-pip-version-check 'moto[server]>=5.1,<6' 'wsgidav>=4.3,<5' 'cheroot>=10'
.venv/bin/moto_server --help >/dev/null
.venv/bin/wsgidav --version >/dev/null
