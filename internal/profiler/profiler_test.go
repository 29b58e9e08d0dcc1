package profiler_test

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/measure/meter"
	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/wasmcore"
)

// staticFib builds fixtures/js/fib.js into a static module with a plugin
// (staticProgram).
func staticFib(t *testing.T, cache wazero.CompilationCache, plugin string) []byte {
	return staticProgram(t, cache, plugin, "fib")
}

// TestProfile: the whole pipeline, in both modes, on both Javy plugins.
func TestProfile(t *testing.T) {
	cache := fixtures.CompilationCache(t)
	for _, plugin := range []string{"javy-plugin-1.7.0", "javy-plugin-1.1.0"} {
		wasm := staticFib(t, cache, plugin)
		for _, mode := range []profiler.Mode{profiler.Exact, profiler.Sample} {
			t.Run(plugin+"/"+string(mode), func(t *testing.T) {
				var stdout bytes.Buffer
				out, res, err := profiler.Profile(context.Background(), wasm,
					runner.Options{Name: "fib.wasm", Stdout: &stdout, Cache: cache, Deterministic: true},
					profiler.Options{Mode: mode, SampleEvery: 20_000, Source: "fib.js"})
				require.NoError(t, err)
				require.Nil(t, res.Trap)
				assert.Equal(t, 0, profiler.ExitCode(res))
				assert.Equal(t, "fib(20) = 6765\n", stdout.String())
				assert.Empty(t, out.Warnings)
				assert.Equal(t, string(mode), out.Tables.Mode)
				assert.Equal(t, out.Results.TotalInstructions, out.Tables.TotalWasmInstructions)
				assert.Contains(t, out.Profile.Comments, "jsprof.exit_code=0")
				require.NotEmpty(t, out.Tables.Functions)
				fib := out.Tables.Functions[0]
				assert.Equal(t, "fib", fib.Name)
				assert.Equal(t, "fib.js", fib.File)
				if mode == profiler.Exact {
					assert.Equal(t, uint64(21891), fib.Calls)
					assert.Equal(t, out.Tables.TotalWasmInstructions, out.Tables.SampledWasmInstructions)
				}
			})
		}
	}
}

// TestPrepareNoInterpreter: a WASI program without a JS interpreter can
// run, unprofiled; Prepare says why.
func TestPrepareNoInterpreter(t *testing.T) {
	wasm, err := os.ReadFile(fixtures.Path("plain", "plain-O2.wasm"))
	require.NoError(t, err)
	_, err = profiler.Prepare(context.Background(), "plain.wasm", wasm, nil, profiler.Options{})
	var none *profiler.NoInterpreterError
	require.ErrorAs(t, err, &none)
	assert.Equal(t, "plain.wasm", none.Module)
	assert.Contains(t, err.Error(), "plain.wasm holds no JS interpreter to profile")
}

// TestPrepareRejectsMode: only exact and sample profile.
func TestPrepareRejectsMode(t *testing.T) {
	_, err := profiler.Prepare(context.Background(), "x.wasm", nil, nil, profiler.Options{Mode: "off"})
	assert.EqualError(t, err, `profiling mode "off": want exact or sample`)
	assert.Equal(t, jsprofile.ModeExact, string(profiler.Exact))
}

// TestCountWithoutInterpreter: with Options.CountWithoutInterpreter, a
// program without a JS interpreter is counted rather than refused: its
// profile is one frame holding the whole count, the same count as
// wasmcore's per-instruction mode, under either cost model.
func TestCountWithoutInterpreter(t *testing.T) {
	wasm, err := os.ReadFile(fixtures.Path("plain", "plain-O2.wasm"))
	require.NoError(t, err)
	cache := fixtures.CompilationCache(t)
	count := func(t *testing.T, opts profiler.Options) (*profiler.Outcome, string) {
		var stdout bytes.Buffer
		opts.CountWithoutInterpreter = true
		out, res, err := profiler.Profile(context.Background(), wasm,
			runner.Options{Name: "plain.wasm", Stdout: &stdout, Cache: cache, Deterministic: true}, opts)
		require.NoError(t, err)
		require.Nil(t, res.Trap)
		assert.Empty(t, out.Warnings)
		return out, stdout.String()
	}
	for _, cost := range []wasmcore.CostModel{wasmcore.CostFuel, wasmcore.CostAll} {
		t.Run(cost.String(), func(t *testing.T) {
			out, printed := count(t, profiler.Options{Cost: cost})
			assert.NotEmpty(t, printed)
			total := out.Tables.TotalWasmInstructions
			assert.Positive(t, total)
			assert.Equal(t, cost.String(), out.Tables.CostModel)
			assert.Equal(t, []report.BucketCost{{Name: jsprofile.BucketWasm, WasmInstructions: total}}, out.Tables.Buckets)
			assert.Empty(t, out.Tables.Functions)

			slow, slowPrinted := count(t, profiler.Options{Meter: &meter.Options{PerInstruction: true, Cost: cost}})
			assert.Equal(t, printed, slowPrinted)
			assert.Equal(t, total, slow.Tables.TotalWasmInstructions, "per-instruction count")
		})
	}
}

// TestCountOnlyAgreesWithTheMeter: a static JS module counted by
// wasmcore's counter alone (PrepareCount) counts what the meter counts
// for its profile, on the same run — also for a program that grows its
// memory while it runs, whose allocator would take another path if the
// meter's pages were in its way (meter/memview.go).
func TestCountOnlyAgreesWithTheMeter(t *testing.T) {
	cache := fixtures.CompilationCache(t)
	for _, program := range []string{"fib", "jsonheavy"} {
		t.Run(program, func(t *testing.T) {
			wasm := staticProgram(t, cache, "javy-plugin-1.7.0", program)
			ropts := func(stdout *bytes.Buffer) runner.Options {
				return runner.Options{Name: program + ".wasm", Stdout: stdout, Cache: cache, Deterministic: true}
			}
			var profiledOut bytes.Buffer
			profiled, _, err := profiler.Profile(context.Background(), wasm, ropts(&profiledOut), profiler.Options{Cost: wasmcore.CostFuel})
			require.NoError(t, err)

			var countedOut bytes.Buffer
			s, err := profiler.PrepareCount(context.Background(), program+".wasm", wasm, nil, profiler.Options{Cost: wasmcore.CostFuel})
			require.NoError(t, err)
			require.EqualError(t, s.CountOnly(), "counting instructions only, as asked")
			o := ropts(&countedOut)
			s.Configure(&o)
			res, err := runner.Run(context.Background(), s.Main(), o)
			require.NoError(t, err)
			require.Nil(t, res.Trap)
			counted, err := s.Finish(context.Background(), profiler.Run{ExitCode: profiler.ExitCode(res)})
			require.NoError(t, err)

			assert.NotEmpty(t, countedOut.String())
			assert.Equal(t, profiledOut.String(), countedOut.String())
			assert.Equal(t, profiled.Tables.TotalWasmInstructions, counted.Tables.TotalWasmInstructions)
			assert.Equal(t, profiled.Tables.Run.StartupInstructions, counted.Tables.Run.StartupInstructions)
			if program == "jsonheavy" {
				m, err := wasmcore.Decode(wasm)
				require.NoError(t, err)
				assert.Greater(t, res.MemoryBytes, uint64(m.Memories[0].Limits.Min)*65536, "the guest grew its memory")
			}
		})
	}
}
