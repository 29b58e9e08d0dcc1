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
// --by function, a function's total rising is enough.
func TestDiffFailOver(t *testing.T) {
	t.Parallel()
	// fib on two engines: base → new fell 5.8%, new → base rose 6.15%; fib
	// itself rose 13.7% from new to base.
	base, new := fixtureProfile("fib-base.pb.gz"), fixtureProfile("fib-new.pb.gz")
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"rose 6% against 5%", []string{"--fail-over", "5%", new, base}, cli.ExitFailure,
			[]string{"jsprof: diff: the total rose by 6.15% (15.31M → 16.25M Wasm instructions): --fail-over 5%"}},
		{"fell", []string{"--fail-over", "5%", base, new}, 0, nil},
		{"fell, any rise", []string{"--fail-over", "0", base, new}, 0, nil},
		{"rose 6% against 7", []string{"--fail-over", "7", new, base}, 0, nil},
		{"a function rose 14% against 7", []string{"--by", "function", "--fail-over", "7", new, base}, cli.ExitFailure,
			[]string{"jsprof: diff: fib (function.mjs:1) rose by 13.7% (12.02M → 13.66M Wasm instructions): --fail-over 7"}},
		{"functions, when the total fell", []string{"--by", "function", "--fail-over", "0", base, new}, cli.ExitFailure,
			[]string{"fibLoop (function.mjs:7) rose by 8.65%"}},
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
