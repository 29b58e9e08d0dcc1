package profiler_test

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/internal/runner"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// staticFib builds fixtures/js/fib.js into a static module with a plugin.
func staticFib(t *testing.T, plugin string) []byte { return staticProgram(t, plugin, "fib") }

// TestProfile: the whole pipeline, in both modes, on both Javy plugins.
func TestProfile(t *testing.T) {
	for _, plugin := range []string{"javy-plugin-1.7.0", "javy-plugin-1.1.0"} {
		wasm := staticFib(t, plugin)
		for _, mode := range []profiler.Mode{profiler.Exact, profiler.Sample} {
			t.Run(plugin+"/"+string(mode), func(t *testing.T) {
				var stdout bytes.Buffer
				out, res, err := profiler.Profile(context.Background(), wasm,
					runner.Options{Name: "fib.wasm", Stdout: &stdout, Cache: fixtures.CompilationCache(t), Deterministic: true},
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
	assert.Contains(t, err.Error(), "plain.wasm: no JS interpreter found to profile")
}

// TestPrepareRejectsMode: only exact and sample profile.
func TestPrepareRejectsMode(t *testing.T) {
	_, err := profiler.Prepare(context.Background(), "x.wasm", nil, nil, profiler.Options{Mode: "off"})
	assert.EqualError(t, err, `profiling mode "off": want exact or sample`)
	assert.Equal(t, jsprofile.ModeExact, string(profiler.Exact))
}
