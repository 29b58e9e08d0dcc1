#!/usr/bin/env bash
# Rebuilds the test modules of this directory: .wat with wabt's wat2wasm,
# .c with Debian's clang for WASI.
set -euo pipefail
cd "$(dirname "$0")"
for f in *.wat; do wat2wasm "$f" -o "${f%.wat}.wasm"; done
for f in *.c; do clang-14 --target=wasm32-wasi --sysroot=/usr -O2 -s -o "${f%.c}.wasm" "$f"; done
