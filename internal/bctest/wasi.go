package bctest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/measure/meter"
	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/wasmcore"
)

// WasiEngines are npm quickjs-wasi's QuickJS-NG builds (fixtures/engines):
// they export the engine's C API, so a test compiles with them what Javy
// would, and reads real bytecode of each QuickJS-NG format version.
var WasiEngines = map[string]struct {
	Release string
	Version byte
}{
	"quickjs-wasi-2.0.0": {"v0.12.1", 0x17},
	"quickjs-wasi-3.0.0": {"v0.15.0", 0x1a},
	"quickjs-wasi-3.6.2": {"next (0.17.0)", 0x1c},
}

// WasiEngine is a quickjs-wasi build, decoded and analysed.
type WasiEngine struct {
	Name   string
	Wasm   []byte
	Module *wasmcore.Module
	Report *dispatch.Report
	Cache  wazero.CompilationCache

	// instrumented is the engine rewritten with the meter, made once.
	instrumented func() (*prepared, error)
}

// LoadWasiEngine loads a pinned quickjs-wasi build.
func LoadWasiEngine(tb testing.TB, name string) *WasiEngine {
	tb.Helper()
	wasm := fixtures.EngineBytes(tb, name)
	m, r := analyze(tb, wasm)
	return &WasiEngine{Name: name, Wasm: wasm, Module: m, Report: r, Cache: fixtures.CompilationCache(tb),
		instrumented: sync.OnceValues(func() (*prepared, error) { return instrument(wasm, r, meter.Options{}) })}
}

// QuickJS's API constants, equal in every QuickJS-NG release.
const (
	evalTypeModule      = 1      // JS_EVAL_TYPE_MODULE
	evalFlagCompileOnly = 1 << 5 // JS_EVAL_FLAG_COMPILE_ONLY
	writeObjBytecode    = 1      // JS_WRITE_OBJ_BYTECODE
	readObjBytecode     = 1      // JS_READ_OBJ_BYTECODE
	tagException        = 6      // JS_TAG_EXCEPTION, the high word of a NaN-boxed JSValue
)

// Compile compiles src as Javy does (the module function.mjs, compiled
// only) and serializes it with JS_WriteObject(JS_WRITE_OBJ_BYTECODE).
func (e *WasiEngine) Compile(tb testing.TB, src []byte) []byte {
	tb.Helper()
	bc, err := e.compile(context.Background(), src)
	require.NoError(tb, err)
	return bc
}

// wasiInstance is an instance of a quickjs-wasi build with its API.
type wasiInstance struct {
	ctx context.Context
	s   *runner.Session
	mod api.Module
}

// instantiate instantiates wasm (the engine, or its metered rewrite) with
// WASI and stubs for its env.host_* imports (timezone, interrupts,
// promise rejections, module loading, host calls: none is needed to
// compile or to run the fixture programs), then, after instantiated (the
// meter's Start) had the module before any of its code ran, _initialize.
// Its memory is reserved as jsprof run reserves a guest's
// (runner.Session.Instantiate), so that the meter's growing it copies
// nothing.
func (e *WasiEngine) instantiate(ctx context.Context, wasm []byte, link func(context.Context, wazero.Runtime) ([]string, error), instantiated func(context.Context, api.Module) error) (w *wasiInstance, err error) {
	s, err := runner.NewSession(ctx, wazero.NewRuntimeConfig(), e.Cache)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			s.Close(ctx)
		}
	}()
	env := s.Runtime().NewHostModuleBuilder("env")
	for _, im := range e.Module.Imports {
		if im.Module != "env" || im.Kind != wasmcore.ExternFunc {
			continue
		}
		t := e.Module.Types[im.Func]
		env.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, m api.Module, stack []uint64) {
			clear(stack)
		}), valueTypes(t.Params), valueTypes(t.Results)).Export(im.Name)
	}
	if _, err := env.Instantiate(ctx); err != nil {
		return nil, err
	}
	s.Provide("env")
	if link != nil {
		names, err := link(ctx, s.Runtime())
		if err != nil {
			return nil, err
		}
		s.Provide(names...)
	}
	compiled, err := s.Compile(ctx, e.Name, wasm)
	if err != nil {
		return nil, err
	}
	mod, err := s.Instantiate(ctx, compiled, wazero.NewModuleConfig(), e.Name)
	if err != nil {
		return nil, err
	}
	w = &wasiInstance{ctx: ctx, s: s, mod: mod}
	if instantiated != nil {
		if err := instantiated(ctx, mod); err != nil {
			return nil, err
		}
	}
	if _, err := w.call("_initialize"); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *wasiInstance) call(name string, args ...uint64) (uint64, error) {
	f := w.mod.ExportedFunction(name)
	if f == nil {
		return 0, fmt.Errorf("no export %s", name)
	}
	res, err := f.Call(w.ctx, args...)
	if err != nil || len(res) == 0 {
		return 0, err
	}
	return res[0], nil
}

// bytes copies b (NUL-terminated) into guest memory.
func (w *wasiInstance) bytes(b []byte) (uint64, error) {
	p, err := w.call("malloc", uint64(len(b)+1))
	if err != nil || p == 0 {
		return 0, fmt.Errorf("malloc(%d): %v", len(b)+1, err)
	}
	if !w.mod.Memory().Write(uint32(p), append(append([]byte(nil), b...), 0)) {
		return 0, fmt.Errorf("writing %d bytes at %#x", len(b)+1, p)
	}
	return p, nil
}

// newContext returns a JSContext of a new runtime.
func (w *wasiInstance) newContext() (uint64, uint64, error) {
	jsrt, err := w.call("JS_NewRuntime")
	if err != nil {
		return 0, 0, err
	}
	jsctx, err := w.call("JS_NewContext", jsrt)
	return jsrt, jsctx, err
}

// eval evaluates src (JS_Eval) and fails on an exception.
func (w *wasiInstance) eval(jsctx uint64, src []byte, file string, flags uint64) (uint64, error) {
	srcPtr, err := w.bytes(src)
	if err != nil {
		return 0, err
	}
	name, err := w.bytes([]byte(file))
	if err != nil {
		return 0, err
	}
	v, err := w.call("JS_Eval", jsctx, srcPtr, uint64(len(src)), name, flags)
	if err != nil {
		return 0, err
	}
	if v>>32 == tagException {
		return 0, fmt.Errorf("%s: exception", file)
	}
	return v, nil
}

func (e *WasiEngine) compile(ctx context.Context, src []byte) ([]byte, error) {
	w, err := e.instantiate(ctx, e.Wasm, nil, nil)
	if err != nil {
		return nil, err
	}
	defer w.s.Close(ctx)
	_, jsctx, err := w.newContext()
	if err != nil {
		return nil, err
	}
	v, err := w.eval(jsctx, src, "function.mjs", evalTypeModule|evalFlagCompileOnly)
	if err != nil {
		return nil, fmt.Errorf("%s: compiling: %w", e.Name, err)
	}
	psize, err := w.call("malloc", 4)
	if err != nil {
		return nil, err
	}
	buf, err := w.call("JS_WriteObject", jsctx, psize, v, writeObjBytecode)
	if err != nil || buf == 0 {
		return nil, fmt.Errorf("%s: JS_WriteObject failed: %v", e.Name, err)
	}
	size, ok := w.mod.Memory().ReadUint32Le(uint32(psize))
	if !ok {
		return nil, fmt.Errorf("reading the size")
	}
	out, ok := w.mod.Memory().Read(uint32(buf), size)
	if !ok {
		return nil, fmt.Errorf("reading %d bytes at %#x", size, buf)
	}
	return append([]byte(nil), out...), nil
}

// RunMetered runs bytecode (Compile's) under the meter: the engine reads
// it back (JS_ReadObject), evaluates it (JS_EvalFunction) and runs the
// pending jobs. console.log is a no-op defined by a script evaluated
// first.
func (e *WasiEngine) RunMetered(tb testing.TB, bc []byte) *Run {
	tb.Helper()
	p, err := e.instrumented()
	require.NoError(tb, err)
	mt := meter.New(p.plan)
	ctx := mt.Context(context.Background())
	w, err := e.instantiate(ctx, p.wasm, mt.Link, mt.Start)
	require.NoError(tb, err)
	tb.Cleanup(func() { w.s.Close(ctx) })
	jsrt, jsctx, err := w.newContext()
	require.NoError(tb, err)
	_, err = w.eval(jsctx, []byte("globalThis.console = { log() {} };"), "prelude.js", 0)
	require.NoError(tb, err)
	buf, err := w.bytes(bc)
	require.NoError(tb, err)
	obj, err := w.call("JS_ReadObject", jsctx, buf, uint64(len(bc)), readObjBytecode)
	require.NoError(tb, err)
	require.NotEqual(tb, uint64(tagException), obj>>32, "JS_ReadObject")
	v, err := w.call("JS_EvalFunction", jsctx, obj)
	require.NoError(tb, err)
	require.NotEqual(tb, uint64(tagException), v>>32, "JS_EvalFunction")
	pctx, err := w.call("malloc", 4)
	require.NoError(tb, err)
	for i := 0; i < 1<<20; i++ {
		r, err := w.call("JS_ExecutePendingJob", jsrt, pctx)
		require.NoError(tb, err)
		if int32(r) <= 0 {
			require.Zero(tb, int32(r), "a job threw")
			break
		}
	}
	results, err := mt.Collect()
	require.NoError(tb, err)
	return &Run{Static: e.Module, Report: e.Report, Results: results, Memory: w.mod.Memory()}
}

func valueTypes(ts []wasmcore.ValType) []api.ValueType {
	out := make([]api.ValueType, len(ts))
	for i, t := range ts {
		out[i] = api.ValueType(t)
	}
	return out
}
