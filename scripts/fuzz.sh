#!/usr/bin/env bash
# Runs every fuzz target of the module (every `func FuzzX` in a _test.go
# file) for a bounded time each, one after the other.
#
#   scripts/fuzz.sh [DURATION] [TARGET...]
#
# DURATION is per target, in go test -fuzztime form (default 20s; "500x"
# for a number of executions). TARGETs (FuzzDecode, ...) restrict the run.
# Environment: FUZZ_MINIMIZE, the time spent minimizing a new input
# (-fuzzminimizetime, default 0: none, so that short runs fuzz instead of
# shrinking large seeds; set e.g. 60s locally to shrink a crasher);
# FUZZ_PARALLEL, the number of fuzzing workers (default: go test's, the CPUs).
#
# Exits non-zero if any target failed. go test writes each failing input
# to PKG/testdata/fuzz/FuzzX/HASH: the script names it; commit it, and it is
# a regression seed that plain `go test` runs from then on.
set -uo pipefail
cd "$(dirname "$0")/.."

duration=${1:-20s}
[ $# -gt 0 ] && shift
minimize=${FUZZ_MINIMIZE:-0}
parallel=()
[ -n "${FUZZ_PARALLEL:-}" ] && parallel=(-parallel "$FUZZ_PARALLEL")

# Every fuzz target, as "package-dir target".
mapfile -t found < <(grep -rEo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*\(' . |
	sed -E 's|^\./||; s|/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\($| \1|' | sort -u)
if [ ${#found[@]} -eq 0 ]; then
	echo "fuzz.sh: no fuzz targets found" >&2
	exit 1
fi

failed=()
ran=0
for entry in "${found[@]}"; do
	pkg=${entry% *}
	target=${entry#* }
	if [ $# -gt 0 ]; then
		want=0
		for t in "$@"; do [ "$t" = "$target" ] && want=1; done
		[ $want -eq 1 ] || continue
	fi
	ran=$((ran + 1))
	echo "== $target (./$pkg) for $duration"
	log=$(mktemp)
	go test -run '^$' -fuzz "^${target}\$" -fuzztime "$duration" -fuzzminimizetime "$minimize" "${parallel[@]}" "./$pkg" 2>&1 | tee "$log"
	status=${PIPESTATUS[0]}
	# Go's fuzzing coordinator sometimes ends a run at its deadline with
	# "context deadline exceeded" and no failing input (a worker slow to
	# stop on a loaded machine): run the target once more before calling
	# it a failure. A real failure writes an input, or repeats.
	if [ "$status" -ne 0 ] && grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written' "$log"; then
		echo "fuzz.sh: $target stopped at its deadline without an input; running it again"
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$duration" -fuzzminimizetime "$minimize" "${parallel[@]}" "./$pkg" 2>&1 | tee "$log"
		status=${PIPESTATUS[0]}
	fi
	if [ "$status" -ne 0 ]; then
		failed+=("$target")
		# "Failing input written to testdata/fuzz/FuzzX/HASH"
		input=$(sed -nE 's|.*Failing input written to (testdata/fuzz/[^ ]+).*|\1|p' "$log" | tail -1)
		if [ -n "$input" ]; then
			echo "fuzz.sh: $target failed; the input is $pkg/$input"
			echo "fuzz.sh: reproduce with: go test -run '^${target}/$(basename "$input")\$' ./$pkg"
			echo "fuzz.sh: once fixed, commit $pkg/$input as a regression seed"
		else
			echo "fuzz.sh: $target failed (exit $status) without writing an input"
		fi
	fi
	rm -f "$log"
done

if [ $ran -eq 0 ]; then
	echo "fuzz.sh: no fuzz target named $*" >&2
	exit 2
fi
if [ ${#failed[@]} -gt 0 ]; then
	echo "fuzz.sh: FAILED: ${failed[*]}" >&2
	exit 1
fi
echo "fuzz.sh: $ran targets, $duration each: no failure"
