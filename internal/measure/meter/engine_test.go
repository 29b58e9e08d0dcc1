package meter_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/measure/meter"
	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/wasmcore"
)

// tinyJS is a program small enough to run in milliseconds that still calls
// a few functions, recursively, and loops.
const tinyJS = `
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function sum(xs) { let s = 0; for (const x of xs) s += x; return s; }
const r = fib(12) + sum([1, 2, 3, 4]);
if (r !== 154) throw new Error("wrong: " + r);
`

// engineModule builds src with a real Javy plugin into a static module and
// instruments it with opts.
func engineModule(tb testing.TB, plugin, src string, opts meter.Options) ([]byte, *meter.Plan) {
	tb.Helper()
	ctx := context.Background()
	wasm := fixtures.EngineBytes(tb, plugin)
	cache := fixtures.CompilationCache(tb)
	pm, err := wasmcore.Decode(wasm)
	require.NoError(tb, err)
	p, err := javy.Inspect(pm)
	require.NoError(tb, err)
	bytecode, err := javy.Compile(ctx, p, wasm, []byte(src), cache)
	require.NoError(tb, err)
	static, err := javy.BuildStatic(ctx, wasm, p, bytecode, cache)
	require.NoError(tb, err)
	return instrument(tb, static, opts)
}

// engineRun runs an instrumented module as jsprof run does, until it ends
// or ctx is done, and returns its meter, its counters not yet collected.
func engineRun(ctx context.Context, tb testing.TB, wasm []byte, plan *meter.Plan, opts runner.Options) (*meter.Meter, runner.Result) {
	tb.Helper()
	mt := meter.New(plan)
	opts.Name = "index.wasm"
	opts.Cache = fixtures.CompilationCache(tb)
	opts.KeepOnContextDone = true
	opts.Deterministic = true
	opts.Link, opts.Context, opts.Instantiated = mt.Link, mt.Context, mt.Start
	res, err := runner.Run(ctx, wasm, opts)
	require.NoError(tb, err)
	return mt, res
}
