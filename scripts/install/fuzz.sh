#!/usr/bin/env bash
# Installs cargo-fuzz, which builds and runs the fuzz targets in fuzz/ (libFuzzer, compiled
# from source by the libfuzzer-sys crate with the machine's C++ compiler). Does nothing when
# it is present.
set -euo pipefail

cargo fuzz --version >/dev/null 2>&1 && exit 0
command -v c++ >/dev/null || {
    echo "fuzz.sh: libFuzzer needs a C++ compiler: install g++ (or clang)" >&2
    exit 1
}
cargo install --locked cargo-fuzz
