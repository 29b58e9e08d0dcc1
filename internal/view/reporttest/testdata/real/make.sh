#!/usr/bin/env bash
# Rewrites the real profiles of this directory: fixtures/js programs built
# with the two pinned Javy plugins (fixtures/engines) and profiled in exact
# mode by jsprof compare. The golden tests of internal/view/report and
# internal/view/diff (report_real_test.go, real_test.go) read them; after
# running this, run go test ./internal/view/report ./internal/view/diff -run Real -update.
set -euo pipefail
cd "$(dirname "$0")/../../../../.."
engines=fixtures/engines/.cache
[ -f "$engines/javy-plugin-1.1.0.wasm" ] || fixtures/engines/fetch.sh
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for prog in fib sort; do
  go run ./cmd/jsprof compare --json --out-dir "$out/$prog" \
    --plugin "$engines/javy-plugin-1.1.0.wasm" --plugin "$engines/javy-plugin-1.7.0.wasm" \
    "fixtures/js/$prog.js" >/dev/null
  cp "$out/$prog/base.pb.gz" "internal/view/reporttest/testdata/real/$prog-quickjs-2024.pb.gz"
  cp "$out/$prog/new.pb.gz" "internal/view/reporttest/testdata/real/$prog-quickjs-ng-0.10.pb.gz"
done
chmod 644 internal/view/reporttest/testdata/real/*.pb.gz
# Sample-mode profiles, with Wasm frames (report --by wasm): sort.js on
# both plugins, sampled every 20,000 instructions with fixed clocks.
for pair in "quickjs-2024 javy-plugin-1.1.0" "quickjs-ng-0.10 javy-plugin-1.7.0"; do
  set -- $pair
  go run ./cmd/jsprof build --plugin "$engines/$2.wasm" fixtures/js/sort.js -o "$out/sort-$1.wasm"
  go run ./cmd/jsprof run --mode sample --sample-every 20000 --deterministic \
    -o "internal/view/reporttest/testdata/real/sort-$1-sample.pb.gz" "$out/sort-$1.wasm" >/dev/null
done
chmod 644 internal/view/reporttest/testdata/real/*.pb.gz
