package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/cli"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// spinInput writes the input of testdata/shopify/spin.js: n rounds.
func spinInput(t *testing.T, dir string, n int) string {
	t.Helper()
	path := filepath.Join(dir, fmt.Sprintf("spin-%d.json", n))
	require.NoError(t, os.WriteFile(path, []byte(fmt.Sprintf(`{"n":%d}`, n)), 0o644))
	return path
}

// TestFailOverLimit: --fail-over-limit exits 1 with one line naming the
// limit and the input when a function goes over function-runner's
// instruction limit, and changes nothing under it.
func TestFailOverLimit(t *testing.T) {
	dir := fixtures.ProvidersDir(t)
	module := buildFunction(t, "shopify_functions_javy_v4", filepath.Join("testdata", "shopify", "spin.js"))
	inputs := t.TempDir()
	over, under := spinInput(t, inputs, 20_000), spinInput(t, inputs, 10)

	got := jsprof(t, "", "run", "--fail-over-limit", "--plugin", dir, "--input", over, module)
	assert.Equal(t, cli.ExitFailure, got.code, got.stderr)
	assert.Contains(t, got.stderr, "— OVER THE LIMIT", "the summary says so")
	assert.Regexp(t, `(?m)^jsprof: `+regexp.QuoteMeta(over)+`: over the limit: Instructions [0-9.]+M of 11M \(--fail-over-limit\)$`, got.stderr)
	assert.NotEmpty(t, got.stdout, "the function's output is printed all the same")

	// Negative controls: without the flag a run over the limit exits 0;
	// with it, a run under the limit does.
	plain := jsprof(t, "", "run", "--plugin", dir, "--input", over, module)
	assert.Equal(t, 0, plain.code, plain.stderr)
	assert.Contains(t, plain.stderr, "— OVER THE LIMIT")
	ok := jsprof(t, "", "run", "--fail-over-limit", "--plugin", dir, "--input", under, module)
	assert.Equal(t, 0, ok.code, ok.stderr)
	assert.NotContains(t, ok.stderr, "over the limit")
	assert.NotContains(t, ok.stderr, "OVER THE LIMIT")

	// Limits are a function's: refused for a module that has none, and
	// for a run that counts nothing.
	notFunction := jsprof(t, "", "run", "--fail-over-limit", buildJS(t, filepath.Join("testdata", "forever.js")))
	assert.Equal(t, cli.ExitUsage, notFunction.code)
	assert.Contains(t, notFunction.stderr, "imports no Shopify Functions provider: it has no limits")
	off := jsprof(t, "", "run", "--mode", "off", "--fail-over-limit", "--plugin", dir, "--input", under, module)
	assert.Equal(t, cli.ExitUsage, off.code)
	assert.Contains(t, off.stderr, "--fail-over-limit counts instructions: it needs a profiling --mode")
}

// TestDiffFailOver: diff --fail-over PCT exits 1, naming what rose, when
// the total rose by PCT or more, and 0 when it fell or rose less; with
// --by function, a function's total rising is enough, by --fail-floor
// instructions or more (default 10000): fibLoop's +165 is under it.
func TestDiffFailOver(t *testing.T) {
	t.Parallel()
	// fib on two engines: base → new fell 5.8%, new → base rose 6.2%; fib
	// itself rose 13.7% from new to base, fibLoop 8.7% (+165) the other way.
	base, new := fixtureProfile("fib-base.pb.gz"), fixtureProfile("fib-new.pb.gz")
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"rose 6% against 5%", []string{"--fail-over", "5%", new, base}, cli.ExitFailure,
			[]string{"jsprof: diff: the total rose by 6.2% of its base, 15.31M → 16.25M Wasm instructions (+941.7k): over --fail-over 5%\n"}},
		{"fell", []string{"--fail-over", "5%", base, new}, 0, nil},
		{"fell, any rise", []string{"--fail-over", "0", base, new}, 0, nil},
		{"rose 6% against 7", []string{"--fail-over", "7", new, base}, 0, nil},
		{"rose 6.15% against 6.2: as the table prints it", []string{"--fail-over", "6.2", new, base}, cli.ExitFailure, []string{"the total rose by 6.2%"}},
		{"rose 6.15% against 6.25", []string{"--fail-over", "6.25", new, base}, 0, nil},
		{"a function rose 14% against 7", []string{"--by", "function", "--fail-over", "7", new, base}, cli.ExitFailure,
			[]string{"jsprof: diff: fib (function.mjs:1): its total (with what it called) rose by 13.7% of its base, 12.02M → 13.66M Wasm instructions (+1.64M): over --fail-over 7 and --fail-floor 10000\n"}},
		{"functions, when the total fell: under the floor", []string{"--by", "function", "--fail-over", "0", base, new}, 0, nil},
		{"functions, when the total fell: no floor", []string{"--by", "function", "--fail-over", "0", "--fail-floor", "0", base, new}, cli.ExitFailure,
			[]string{"fibLoop (function.mjs:7): its total (with what it called) rose by 8.7% of its base, 1907 → 2072 Wasm instructions (+165): over --fail-over 0 and --fail-floor 0"}},
		{"functions, when the total fell: a floor of the rise", []string{"--by", "function", "--fail-over", "0", "--fail-floor", "165", base, new}, cli.ExitFailure,
			[]string{"fibLoop (function.mjs:7)"}},
		{"functions, when the total fell: a floor over the rise", []string{"--by", "function", "--fail-over", "0", "--fail-floor", "166", base, new}, 0, nil},
		{"unchanged", []string{"--by", "function", "--fail-over", "0", base, base}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := jsprof(t, "", append([]string{"diff"}, tt.args...)...)
			assert.Equal(t, tt.code, got.code, got.stderr)
			assert.NotEmpty(t, got.stdout, "the diff is printed all the same")
			if tt.want == nil {
				assert.Empty(t, got.stderr)
			}
			for _, w := range tt.want {
				assert.Contains(t, got.stderr, w)
			}
		})
	}
	for _, bad := range []string{"x", "-5", "5%%", "inf"} {
		got := jsprof(t, "", "diff", "--fail-over", bad, base, new)
		assert.Equal(t, cli.ExitUsage, got.code, bad)
		assert.Contains(t, got.stderr, "--fail-over "+bad+": want a percentage")
	}
}

// TestDiffFailOverEmpty: an empty --fail-over (an unset CI variable,
// --fail-over "$PCT") is a usage error in one line, as every other bad
// value is; it once turned the gate off and passed a rise of 6%.
func TestDiffFailOverEmpty(t *testing.T) {
	t.Parallel()
	base, new := fixtureProfile("fib-base.pb.gz"), fixtureProfile("fib-new.pb.gz")
	for _, args := range [][]string{{"--fail-over", ""}, {"--fail-over="}, {"--by", "function", "--fail-over", ""}} {
		got := jsprof(t, "", append(append([]string{"diff"}, args...), new, base)...)
		assert.Equal(t, cli.ExitUsage, got.code, "%q: %s", args, got.stderr)
		assert.Equal(t, "jsprof: diff: --fail-over is empty: want a percentage, 0 or more, such as 5 or 5%\n", got.stderr, "%q", args)
		assert.Empty(t, got.stdout, "%q: nothing compared", args)
	}
}

// TestDiffFailOverIncompleteRun: the gate fails, in one line saying how,
// when NEW's run did not end normally (stopped by --max-instructions or
// --timeout, or the guest threw): its profile is of part of the run, so
// its total says nothing of the change. A BASE in that state fails it
// too: the gate compares whole runs or none. Without --fail-over the diff
// is printed with a warning and exits 0.
func TestDiffFailOverIncompleteRun(t *testing.T) {
	fib, throws, forever := buildJS(t, filepath.Join("testdata", "fib20.js")), buildJS(t, filepath.Join("testdata", "throw.js")), buildJS(t, filepath.Join("testdata", "forever.js"))
	dir := t.TempDir()
	profileOf := func(name string, code int, args ...string) string {
		out := filepath.Join(dir, name)
		got := jsprof(t, "", append([]string{"run", "-o", out}, args...)...)
		require.Equal(t, code, got.code, got.stderr)
		return out
	}
	base := profileOf("base.pb.gz", 0, fib)
	cut := profileOf("cut.pb.gz", cli.ExitLimit, "--max-instructions", "2000000", fib)
	timedOut := profileOf("timeout.pb.gz", cli.ExitLimit, "--timeout", "100ms", forever)
	threw := profileOf("throw.pb.gz", cli.ExitTrap, throws)

	tests := []struct {
		name      string
		base, new string
		want      string
	}{
		{"NEW stopped by --max-instructions", base, cut,
			"jsprof: diff: the NEW run (cut.pb.gz) did not complete: the guest reached the instruction limit (2000000 Wasm instructions), exit 124: --fail-over 5\n"},
		{"NEW stopped by --timeout", base, timedOut,
			"jsprof: diff: the NEW run (timeout.pb.gz) did not complete: stopped after --timeout 100ms, exit 124: --fail-over 5\n"},
		{"NEW threw", base, threw,
			"jsprof: diff: the NEW run (throw.pb.gz) did not complete: uncaught Error: boom at 3, exit 134: --fail-over 5\n"},
		{"BASE stopped by --max-instructions", cut, base,
			"jsprof: diff: the BASE run (cut.pb.gz) did not complete: the guest reached the instruction limit (2000000 Wasm instructions), exit 124: --fail-over 5\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := jsprof(t, "", "diff", "--fail-over", "5", tt.base, tt.new)
			assert.Equal(t, cli.ExitFailure, got.code, got.stderr)
			assert.Equal(t, tt.want, got.stderr)
			assert.Contains(t, got.stdout, "did not complete", "the diff says so")

			// Without the gate: the diff and its warning, exit 0.
			plain := jsprof(t, "", "diff", tt.base, tt.new)
			assert.Equal(t, 0, plain.code, plain.stderr)
			assert.Contains(t, plain.stderr, "jsprof: warning: the ")
			assert.Contains(t, plain.stderr, "run did not complete")
		})
	}
	// Negative control: two whole runs pass.
	whole := jsprof(t, "", "diff", "--fail-over", "5", base, base)
	assert.Equal(t, 0, whole.code, whole.stderr)
	assert.Empty(t, whole.stderr)
}
