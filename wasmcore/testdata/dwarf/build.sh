#!/bin/sh
# Rebuilds dwarf4.wasm, the DWARF test module, with Debian's clang 14 and
# wasm-ld 14. Objects are compiled and linked in separate steps: linking
# through the clang driver loses the line tables with this toolchain.
# unused_function is garbage-collected by the linker, which leaves a
# "dead code" tombstone address (0xffffffff) for it in .debug_info.
# (wasm-ld 14 crashes on -gdwarf-5 objects, so there is no DWARF 5 module.)
set -e
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in main helper; do
	clang-14 --target=wasm32 -O1 -gdwarf-4 -fdebug-prefix-map="$PWD"=/src -c $f.c -o "$tmp/$f.o"
done
wasm-ld-14 --no-entry --export=run "$tmp/main.o" "$tmp/helper.o" -o dwarf4.wasm
