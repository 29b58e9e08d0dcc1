package wasmcore_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/fixtures/interp"
	"github.com/jsprof/jsprof/fixtures/js"
	"github.com/jsprof/jsprof/wasmcore"
)

// countingRuntime returns a runtime configured as cfg, with WASI, closed
// when t ends, in which the instrumented modules of a test are compiled
// once each and instantiated afresh for every program they run.
func countingRuntime(t *testing.T, cfg wazero.RuntimeConfig) wazero.Runtime {
	t.Helper()
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	t.Cleanup(func() { rt.Close(ctx) })
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	return rt
}

// countedModule is a module instrumented one way and compiled: what it
// counts does not depend on the program, so each program runs in a fresh
// instance of the same compiled code.
type countedModule struct {
	compiled wazero.CompiledModule
	counter  string   // the export of the instruction counter
	globals  []string // every exported global, the counter's included
}

// countModule instruments wasm with the options prepare returns (opts
// when prepare is nil), adds the checkpoint function they ask for, and
// compiles the result in rt.
func countModule(t *testing.T, rt wazero.Runtime, wasm []byte, opts wasmcore.CountOptions, prepare func(m *wasmcore.Module) wasmcore.CountOptions) countedModule {
	t.Helper()
	m, err := wasmcore.Decode(wasm)
	require.NoError(t, err)
	if prepare != nil {
		opts = prepare(m)
	}
	ctr, err := m.CountInstructions(opts)
	require.NoError(t, err)
	addCheckpointFunc(t, m, ctr, opts)
	out, err := m.Encode()
	require.NoError(t, err)
	compiled, err := rt.CompileModule(context.Background(), out)
	require.NoError(t, err)
	cm := countedModule{compiled: compiled, counter: ctr.Export}
	for _, e := range m.Exports {
		if e.Kind == wasmcore.ExternGlobal {
			cm.globals = append(cm.globals, e.Name)
		}
	}
	return cm
}

// run runs one program of the fixture interpreter in a fresh instance of
// cm, compiled in rt, and returns the counter and the values of the
// module's exported i64 globals.
func (cm countedModule) run(t *testing.T, rt wazero.Runtime, mod interp.Module, g interp.Golden) (uint64, map[string]uint64) {
	t.Helper()
	ctx := context.Background()
	// Anonymous, so that the compiled module can be instantiated again.
	cfg := wazero.NewModuleConfig().WithName("").WithArgs("interp", g.Program, strconv.Itoa(g.N)).WithStartFunctions()
	inst, err := rt.InstantiateModule(ctx, cm.compiled, cfg)
	require.NoError(t, err)
	defer inst.Close(ctx)
	if mod.Kind == "bare" {
		_, err = inst.ExportedFunction("run_" + g.Program).Call(ctx)
	} else {
		_, err = inst.ExportedFunction("_start").Call(ctx)
		if err != nil && err.Error() == "module closed with exit_code(0)" {
			err = nil
		}
	}
	require.NoError(t, err)
	globals := map[string]uint64{}
	for _, name := range cm.globals {
		globals[name] = inst.ExportedGlobal(name).Get()
	}
	return inst.ExportedGlobal(cm.counter).Get(), globals
}

// bumpGlobal adds an exported i64 global and returns code that adds one
// to it.
func bumpGlobal(m *wasmcore.Module, name string) []byte {
	idx := m.AddGlobal(wasmcore.Global{Type: wasmcore.GlobalType{Type: wasmcore.ValI64, Mutable: true}, Init: wasmcore.ConstI64(0)})
	m.Exports = append(m.Exports, wasmcore.Export{Name: name, Kind: wasmcore.ExternGlobal, Index: idx})
	var code []byte
	for _, in := range []wasmcore.Instr{{Op: wasmcore.OpGlobalGet, Index: idx}, {Op: wasmcore.OpI64Const, I64: 1}, {Op: wasmcore.OpI64Add}, {Op: wasmcore.OpGlobalSet, Index: idx}} {
		code = wasmcore.AppendInstr(code, in)
	}
	return code
}

// withCheckpoints adds what a firing checkpoint needs: the global of the
// next sample point and the index its function will have
// (addCheckpointFunc adds it once the module is counted), and a global
// counting how often it fired.
func withCheckpoints(m *wasmcore.Module, opts wasmcore.CountOptions) wasmcore.CountOptions {
	next := m.AddGlobal(wasmcore.Global{Type: wasmcore.GlobalType{Type: wasmcore.ValI64, Mutable: true}, Init: wasmcore.ConstI64(0)})
	m.Exports = append(m.Exports, wasmcore.Export{Name: checkpointNextExport, Kind: wasmcore.ExternGlobal, Index: next})
	opts.Checkpoint = &wasmcore.Checkpoint{Next: next, Call: m.NumFuncs()}
	return opts
}

const checkpointNextExport = "checkpoint.next"

// addCheckpointFunc adds the function withCheckpoints promised, uncounted
// since it comes after counting: it moves the next sample point a few
// instructions past the count, so that checkpoints fire all along a run.
func addCheckpointFunc(t *testing.T, m *wasmcore.Module, ctr wasmcore.Counter, opts wasmcore.CountOptions) {
	t.Helper()
	if opts.Checkpoint == nil || opts.Checkpoint.Call != m.NumFuncs() {
		return
	}
	code := bumpGlobal(m, "checkpoint.fired")
	for _, in := range []wasmcore.Instr{{Op: wasmcore.OpGlobalGet, Index: ctr.Global}, {Op: wasmcore.OpI64Const, I64: 7}, {Op: wasmcore.OpI64Add}, {Op: wasmcore.OpGlobalSet, Index: opts.Checkpoint.Next}, {Op: wasmcore.OpEnd}} {
		code = wasmcore.AppendInstr(code, in)
	}
	require.Equal(t, opts.Checkpoint.Call, m.AddFunction(wasmcore.Function{Type: m.AddType(wasmcore.FuncType{}), Body: code}))
}

// fuelFreeExport counts, in zeroFuelHooks, the executed instructions that
// CostAll counts and CostFuel does not; fuelEntriesExport the entries into
// defined functions, which CostFuel charges one each and CostAll nothing.
const (
	fuelFreeExport    = "tally.fuel-free"
	fuelEntriesExport = "tally.entries"
)

// zeroFuelHooks tallies the executed nop, drop, unreachable and return
// instructions of every defined function, with hooks (not counted) before
// each, and every entry into a defined function: the test's own account of
// how wasmtime's fuel differs from CostAll, independent of CostModel.Cost.
func zeroFuelHooks(t *testing.T, m *wasmcore.Module) map[uint32]wasmcore.Hooks {
	t.Helper()
	bump := bumpGlobal(m, fuelFreeExport)
	enter := bumpGlobal(m, fuelEntriesExport)
	hooks := map[uint32]wasmcore.Hooks{}
	for i, f := range m.Functions {
		ins, err := wasmcore.DecodeInstructions(f.Body)
		require.NoError(t, err)
		before := map[uint32][]byte{}
		for _, in := range ins {
			switch in.Op {
			case wasmcore.OpNop, wasmcore.OpDrop, wasmcore.OpUnreachable, wasmcore.OpReturn:
				before[in.Offset] = bump
			}
		}
		hooks[m.NumImportedFuncs()+uint32(i)] = wasmcore.Hooks{Entry: enter, Before: before, CountUnread: true}
	}
	return hooks
}

// fastCountModes are the counting modes that must agree with the
// per-instruction mode on every complete run.
func fastCountModes(cost wasmcore.CostModel) []countVariant {
	inLocals := func(m *wasmcore.Module) wasmcore.CountOptions {
		all := map[uint32]bool{}
		for i := range m.Functions {
			all[m.NumImportedFuncs()+uint32(i)] = true
		}
		return wasmcore.CountOptions{Cost: cost, InLocal: all, Hoist: wasmcore.HoistAcrossCalls}
	}
	return []countVariant{
		{"segments", func(*wasmcore.Module) wasmcore.CountOptions { return wasmcore.CountOptions{Cost: cost} }},
		{"hoist local", func(*wasmcore.Module) wasmcore.CountOptions {
			return wasmcore.CountOptions{Cost: cost, Hoist: wasmcore.HoistLocal}
		}},
		{"hoist across calls", func(*wasmcore.Module) wasmcore.CountOptions {
			return wasmcore.CountOptions{Cost: cost, Hoist: wasmcore.HoistAcrossCalls}
		}},
		{"in locals", inLocals},
		{"in locals, checkpoints", func(m *wasmcore.Module) wasmcore.CountOptions { return withCheckpoints(m, inLocals(m)) }},
	}
}

// smallGoldens returns the golden of each program at the n that the module
// kind runs: the bare modules' run_<program>() use the small n.
func goldensFor(t *testing.T, kind string) []interp.Golden {
	t.Helper()
	progs, err := interp.Programs()
	require.NoError(t, err)
	gs, err := interp.Goldens()
	require.NoError(t, err)
	var out []interp.Golden
	for _, p := range progs {
		for _, g := range gs {
			if g.Program == p.Name && g.N == p.SmallN {
				out = append(out, g)
			}
		}
	}
	require.Len(t, out, len(progs))
	return out
}

// TestCountInstructionsSegmentsEqualPerInstruction checks every fast mode
// against the slow mode that charges each instruction on its own, under
// each cost model, on every fixture interpreter build and program; and
// that the fuel model counts exactly the executed nop, drop, unreachable
// and return instructions fewer.
func TestCountInstructionsSegmentsEqualPerInstruction(t *testing.T) {
	t.Parallel()
	mods, err := interp.Modules()
	require.NoError(t, err)
	for _, mod := range mods {
		t.Run(mod.File, func(t *testing.T) {
			t.Parallel() // each build has a runtime of its own
			wasm, err := os.ReadFile(interp.Path(mod.File))
			require.NoError(t, err)
			// Each way of counting is compiled once, then run with every
			// program.
			rt := countingRuntime(t, wazero.NewRuntimeConfig().WithCompilationCache(fixtures.CompilationCache(t)))
			allMod := countModule(t, rt, wasm, wasmcore.CountOptions{}, func(m *wasmcore.Module) wasmcore.CountOptions {
				return wasmcore.CountOptions{PerInstruction: true, Hooks: zeroFuelHooks(t, m)}
			})
			fuelMod := countModule(t, rt, wasm, wasmcore.CountOptions{Cost: wasmcore.CostFuel, PerInstruction: true}, nil)
			type fastMode struct {
				cost wasmcore.CostModel
				name string
				mod  countedModule
			}
			var fast []fastMode
			for _, cost := range []wasmcore.CostModel{wasmcore.CostAll, wasmcore.CostFuel} {
				for _, v := range fastCountModes(cost) {
					fast = append(fast, fastMode{cost, v.name, countModule(t, rt, wasm, wasmcore.CountOptions{}, v.opts)})
				}
			}
			for _, g := range goldensFor(t, mod.Kind) {
				t.Run(g.Program, func(t *testing.T) {
					all, tally := allMod.run(t, rt, mod, g)
					fuel, _ := fuelMod.run(t, rt, mod, g)
					assert.Greater(t, all, uint64(10*g.Dispatch), "at least a few instructions per opcode")
					assert.Equal(t, all-tally[fuelFreeExport]+tally[fuelEntriesExport], fuel,
						"fuel = all - executed nop, drop, unreachable, return (%d) + function entries (%d)", tally[fuelFreeExport], tally[fuelEntriesExport])
					want := map[wasmcore.CostModel]uint64{wasmcore.CostAll: all, wasmcore.CostFuel: fuel}
					// Hoisted charges have all run by the time the run ends.
					for _, v := range fast {
						got, globals := v.mod.run(t, rt, mod, g)
						assert.Equal(t, want[v.cost], got, "%s, %s", v.cost, v.name)
						if _, ok := globals[checkpointNextExport]; ok {
							assert.Greater(t, globals["checkpoint.fired"], uint64(g.Dispatch)/10, "%s, %s: checkpoints fire", v.cost, v.name)
						}
					}
				})
			}
		})
	}
}

// TestCountInstructionsHooks checks that Entry and Exit hooks run once per
// call of the dispatch function, whichever way it returns, and that Before
// hooks run at the dispatch br_table once per executed opcode.
func TestCountInstructionsHooks(t *testing.T) {
	mods, err := interp.Modules()
	require.NoError(t, err)
	for _, mod := range mods {
		t.Run(mod.File, func(t *testing.T) {
			wasm, err := os.ReadFile(interp.Path(mod.File))
			require.NoError(t, err)
			// Each way of counting is compiled once, then run with every
			// program.
			rt := countingRuntime(t, wazero.NewRuntimeConfig().WithCompilationCache(fixtures.CompilationCache(t)))
			plainMod := countModule(t, rt, wasm, wasmcore.CountOptions{}, nil)
			hookedMod := countModule(t, rt, wasm, wasmcore.CountOptions{}, func(m *wasmcore.Module) wasmcore.CountOptions {
				bump := func(name string) []byte { return bumpGlobal(m, name) }
				f := m.Function(mod.DispatchFunc)
				require.NotNil(t, f)
				ins, err := wasmcore.DecodeInstructions(f.Body)
				require.NoError(t, err)
				hooks := wasmcore.Hooks{Entry: bump("entries"), Exit: bump("exits"), Before: map[uint32][]byte{}}
				dispatches := bump("dispatches")
				for _, in := range ins {
					if in.Op == wasmcore.OpBrTable && len(in.Labels)-1 == mod.DispatchTargets {
						hooks.Before[in.Offset] = dispatches
					}
				}
				require.Len(t, hooks.Before, 1, "one dispatch br_table")
				return wasmcore.CountOptions{Hooks: map[uint32]wasmcore.Hooks{mod.DispatchFunc: hooks}}
			})
			for _, g := range goldensFor(t, mod.Kind) {
				t.Run(g.Program, func(t *testing.T) {
					plain, _ := plainMod.run(t, rt, mod, g)
					hooked, globals := hookedMod.run(t, rt, mod, g)
					assert.Equal(t, uint64(g.CallInternal), globals["entries"])
					assert.Equal(t, uint64(g.CallInternal), globals["exits"])
					assert.Equal(t, uint64(g.Dispatch), globals["dispatches"])
					assert.Equal(t, plain, hooked, "hooks are not counted")
				})
			}
		})
	}
}

// javyEnv instantiates in rt the env module that the compiled modules
// import from, each of its functions failing the run if called.
func javyEnv(t *testing.T, rt wazero.Runtime, mods ...countedModule) {
	t.Helper()
	env := rt.NewHostModuleBuilder("env")
	exported := map[string]bool{}
	for _, cm := range mods {
		for _, imp := range cm.compiled.ImportedFunctions() {
			mod, name, _ := imp.Import()
			if mod == "env" && !exported[name] {
				exported[name] = true
				env.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(context.Context, api.Module, []uint64) {
					panic("unexpected call of env." + name)
				}), imp.ParamTypes(), imp.ResultTypes()).Export(name)
			}
		}
	}
	_, err := env.Instantiate(context.Background())
	require.NoError(t, err)
}

// javyRun runs src in a fresh instance of cm, the newer Javy plugin
// instrumented and compiled in rt, and returns what the counter and the
// module's other exported i64 globals gained during invoke alone: the
// plugin's initialization and compilation are no part of a program's
// cost, as function-runner counts the export call only.
func (cm countedModule) javyRun(t *testing.T, rt wazero.Runtime, src []byte) (uint64, map[string]uint64) {
	t.Helper()
	ctx := context.Background()
	var stdout bytes.Buffer
	// Anonymous, so that the compiled module can be instantiated again.
	inst, err := rt.InstantiateModule(ctx, cm.compiled, wazero.NewModuleConfig().WithName("").WithStdout(&stdout).WithStartFunctions())
	require.NoError(t, err)
	defer inst.Close(ctx)
	call := func(name string, args ...uint64) uint64 {
		res, err := inst.ExportedFunction(name).Call(ctx, args...)
		require.NoError(t, err, name)
		if len(res) == 0 {
			return 0
		}
		return res[0]
	}
	call("initialize-runtime")
	ptr := call("cabi_realloc", 0, 0, 1, uint64(len(src)))
	require.True(t, inst.Memory().Write(uint32(ptr), src))
	ret, ok := inst.Memory().Read(uint32(call("compile-src", ptr, uint64(len(src)))), 12)
	require.True(t, ok)
	require.Zero(t, binary.LittleEndian.Uint32(ret), "compile-src")
	values := func() map[string]uint64 {
		out := map[string]uint64{}
		for _, name := range cm.globals {
			out[name] = inst.ExportedGlobal(name).Get()
		}
		return out
	}
	before := values()
	call("invoke", uint64(binary.LittleEndian.Uint32(ret[4:])), uint64(binary.LittleEndian.Uint32(ret[8:])), 0, 0, 0)
	gained := values()
	for name := range gained {
		gained[name] -= before[name]
	}
	require.NotEmpty(t, stdout.String(), "the program prints")
	return gained[cm.counter], gained
}

// TestCostFuelOnJavyPlugin: on a real engine running JavaScript, every
// fast mode counts what the per-instruction mode counts under the fuel
// model, which is CostAll less the executed nop, drop, unreachable and
// return.
func TestCostFuelOnJavyPlugin(t *testing.T) {
	if testing.Short() {
		t.Skip("real engines skipped in -short mode")
	}
	wasm := fixtures.EngineBytes(t, "javy-plugin-1.7.0")
	progs, err := js.Programs()
	require.NoError(t, err)
	// Each way of counting is compiled once (or found in the machine's
	// compilation cache), then run with every program.
	cache := fixtures.CompilationCache(t)
	t.Cleanup(func() { cache.Close(context.Background()) })
	rt := countingRuntime(t, wazero.NewRuntimeConfig().WithCompilationCache(cache))
	allMod := countModule(t, rt, wasm, wasmcore.CountOptions{}, func(m *wasmcore.Module) wasmcore.CountOptions {
		return wasmcore.CountOptions{PerInstruction: true, Hooks: zeroFuelHooks(t, m)}
	})
	fuelMod := countModule(t, rt, wasm, wasmcore.CountOptions{Cost: wasmcore.CostFuel, PerInstruction: true}, nil)
	type fastMode struct {
		name string
		mod  countedModule
	}
	var fast []fastMode
	for _, v := range fastCountModes(wasmcore.CostFuel) {
		if v.name == "hoist across calls" { // the in-locals modes hoist as far
			continue
		}
		fast = append(fast, fastMode{v.name, countModule(t, rt, wasm, wasmcore.CountOptions{}, v.opts)})
	}
	mods := []countedModule{allMod, fuelMod}
	for _, v := range fast {
		mods = append(mods, v.mod)
	}
	javyEnv(t, rt, mods...)
	for _, p := range progs {
		if p.Name != "fib" && p.Name != "json" {
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			src, err := p.Source()
			require.NoError(t, err)
			all, tally := allMod.javyRun(t, rt, src)
			fuel, _ := fuelMod.javyRun(t, rt, src)
			t.Logf("%s: CostAll %d, CostFuel %d, nop/drop/unreachable/return %d, function entries %d", p.Name, all, fuel, tally[fuelFreeExport], tally[fuelEntriesExport])
			assert.Equal(t, all-tally[fuelFreeExport]+tally[fuelEntriesExport], fuel)
			for _, v := range fast {
				got, globals := v.mod.javyRun(t, rt, src)
				assert.Equal(t, fuel, got, v.name)
				if _, ok := globals[checkpointNextExport]; ok {
					assert.NotZero(t, globals["checkpoint.fired"], "%s: checkpoints fire", v.name)
				}
			}
		})
	}
}

// TestParseCostModel: every model is parsed back from its name, and a name
// of none is an error offering the two a user may choose.
func TestParseCostModel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		want    wasmcore.CostModel
		meaning string
		err     string
	}{
		{name: "fuel", want: wasmcore.CostFuel, meaning: "wasmtime's fuel, as function-runner counts"},
		{name: "all", want: wasmcore.CostAll, meaning: "every instruction but block, loop, else and end"},
		{name: "fuel-ops", want: wasmcore.CostFuelOps, meaning: "wasmtime's fuel without its charge per function entered"},
		{name: "time", err: `"time": want fuel or all`},
		{name: "", err: `"": want fuel or all`},
		{name: "Fuel", err: `"Fuel": want fuel or all`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := wasmcore.ParseCostModel(tt.name)
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.name, got.String())
			assert.Equal(t, tt.meaning, got.Meaning())
		})
	}
}
