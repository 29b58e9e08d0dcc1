package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/internal/measure/meter"
	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/internal/run/runner"
)

// TestExactEqualsSlowModeOnPlugins: on both Javy plugins, the per-segment
// counting gives the same total, and the same per-function and per-pc
// figures, as the test-only mode that charges every instruction on its own.
func TestExactEqualsSlowModeOnPlugins(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the slow mode")
	}
	for _, plugin := range javyPlugins {
		for _, program := range []string{"fib", "trycatch", "generators"} {
			t.Run(plugin+"/"+program, func(t *testing.T) {
				src, err := os.ReadFile(fixtures.Path("js", program+".js"))
				require.NoError(t, err)
				wasm := buildSource(t, plugin, string(src))
				fast := meteredRun(t, wasm, meter.Options{Checkpoints: true})
				slow := meteredRun(t, wasm, meter.Options{Checkpoints: true, PerInstruction: true})
				assert.Equal(t, slow.TotalInstructions, fast.TotalInstructions)
				assert.Equal(t, slow.Functions, fast.Functions)
				assert.Equal(t, slow.Buckets, fast.Buckets)
			})
		}
	}
}

// meteredRun runs a static module instrumented with opts, with fixed
// clocks, and returns the meter's results.
func meteredRun(t *testing.T, wasm []byte, opts meter.Options) *costs.Results {
	t.Helper()
	ctx := context.Background()
	out, res, err := profiler.Profile(ctx, wasm, runner.Options{Name: "index.wasm", Deterministic: true, Cache: fixtures.CompilationCache(t)},
		profiler.Options{Meter: &opts})
	require.NoError(t, err)
	require.Nil(t, res.Trap)
	require.Empty(t, out.Warnings)
	return out.Results
}

// TestDeterministicFlag: with --deterministic, a program that reads the
// clock gives the same report on every run.
func TestDeterministicFlag(t *testing.T) {
	module := filepath.Join(t.TempDir(), "clock.wasm")
	require.NoError(t, os.WriteFile(module, buildSource(t, "javy-plugin-1.7.0", readFileText(t, "testdata/clock.js")), 0o644))
	reports := func(flags ...string) []string {
		var out []string
		for i := 0; i < 2; i++ {
			report := filepath.Join(t.TempDir(), "cost.json")
			got := jsprof(t, "", append(append([]string{"run"}, flags...), "--report-json", report, module)...)
			require.Equal(t, 0, got.code, got.stderr)
			out = append(out, readFileText(t, report))
		}
		return out
	}
	fixed := reports("--deterministic")
	assert.Equal(t, fixed[0], fixed[1])
	// The negative control: without the flag the guest reads the host's
	// clocks and its reports differ.
	real := reports()
	assert.NotEqual(t, real[0], real[1], "real clocks: the reports differ")
}
