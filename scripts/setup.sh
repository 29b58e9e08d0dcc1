#!/usr/bin/env bash
# Installs what a fresh machine lacks for building fixtures and running the
# tests, then fetches the pinned real engines (sha256-checked). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages: the C -> WASI toolchain for our own interpreters, binaryen
# and wabt to cross-check, chromium for the HTML report test.
want=(clang-14 lld wasi-libc libclang-rt-14-dev-wasm32 binaryen wabt chromium)
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

go mod download
fixtures/engines/fetch.sh

# The tests' shared compilation cache was fixtures/engines/.cache/wazero*
# until it moved out of the module (fixtures.CompileCacheDir): an older
# checkout's copy, gigabytes of it, is never read again.
rm -rf fixtures/engines/.cache/wazero fixtures/engines/.cache/wazero-unsealed
