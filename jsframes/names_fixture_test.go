package jsframes

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/javy"
	"github.com/jsprof/jsprof/internal/runner"
	"github.com/jsprof/jsprof/jsframes/meter"
	"github.com/jsprof/jsprof/wasmcore"
)

// namingPlugins are the two real engines the naming must work on.
var namingPlugins = []string{"javy-plugin-1.7.0", "javy-plugin-1.1.0"}

// bcEngine is a real Javy plugin, decoded and analysed.
type bcEngine struct {
	name   string
	wasm   []byte
	module *wasmcore.Module
	plugin javy.Plugin
	report *dispatch.Report
	spec   EngineSpec
	cache  wazero.CompilationCache
}

func bcLoadEngine(t testing.TB, name string) *bcEngine {
	t.Helper()
	wasm := fixtures.EngineBytes(t, name)
	m, err := wasmcore.Decode(wasm)
	require.NoError(t, err)
	p, err := javy.Inspect(m)
	require.NoError(t, err)
	r, err := dispatch.Analyze(context.Background(), m)
	require.NoError(t, err)
	spec, err := EngineSpecForModule(m, r)
	require.NoError(t, err)
	return &bcEngine{name: name, wasm: wasm, module: m, plugin: p, report: r, spec: spec, cache: fixtures.CompilationCache(t)}
}

// compile returns the serialized bytecode the plugin makes of src.
func (e *bcEngine) compile(t testing.TB, src []byte) []byte {
	t.Helper()
	bc, err := javy.Compile(context.Background(), e.plugin, e.wasm, src, e.cache)
	require.NoError(t, err)
	return bc
}

// bcRun is one run of a static Javy module under the meter.
type bcRun struct {
	prog    *Program // from the static module, as the profiler finds it
	spec    EngineSpec
	results *meter.Results
	mem     api.Memory // the instance's memory after the run
	stdout  string
}

// runMetered builds src into a static module with the engine, finds its
// program as the profiler would (ProgramFromModule), instruments it with
// the meter and runs it.
func (e *bcEngine) runMetered(t testing.TB, src []byte) *bcRun {
	t.Helper()
	ctx := context.Background()
	static, err := javy.BuildStatic(ctx, e.wasm, e.plugin, e.compile(t, src), e.cache)
	require.NoError(t, err)
	m, err := wasmcore.Decode(static)
	require.NoError(t, err)
	r, err := dispatch.Analyze(ctx, m)
	require.NoError(t, err)
	require.NotNil(t, r.Dispatch, r.Reason)
	prog, err := ProgramFromModule(m, r)
	require.NoError(t, err)
	require.NotNil(t, prog, "the static module's bytecode segment")
	spec, err := EngineSpecForModule(m, r)
	require.NoError(t, err)
	plan, err := meter.Instrument(m, r.Dispatch, meter.Options{})
	require.NoError(t, err)
	out, err := m.Encode()
	require.NoError(t, err)
	mt := meter.New(plan)
	var stdout, stderr bytes.Buffer
	var inst api.Module
	res, err := runner.Run(ctx, out, runner.Options{
		Name: "fixture.wasm", Stdout: &stdout, Stderr: &stderr, Cache: e.cache, Deterministic: true,
		Link: mt.Link,
		Instantiated: func(ctx context.Context, mod api.Module) error {
			inst = mod
			return mt.Start(ctx, mod)
		},
	})
	require.NoError(t, err)
	require.Zero(t, res.ExitCode, "stderr: %s", stderr.String())
	results, err := mt.Collect()
	require.NoError(t, err)
	return &bcRun{prog: prog, spec: spec, results: results, mem: inst.Memory(), stdout: stdout.String()}
}
