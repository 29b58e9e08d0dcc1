package wasmcore_test

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/jsprof/jsprof/fixtures/interp"
	"github.com/jsprof/jsprof/wasmcore"
)

// countedRun instruments wasm with opts, runs one program of the fixture
// interpreter and returns the counter and the values of extra exported i64
// globals.
func countedRun(t *testing.T, wasm []byte, mod interp.Module, g interp.Golden, opts wasmcore.CountOptions, prepare func(m *wasmcore.Module) wasmcore.CountOptions) (uint64, map[string]uint64) {
	t.Helper()
	ctx := context.Background()
	m, err := wasmcore.Decode(wasm)
	require.NoError(t, err)
	if prepare != nil {
		opts = prepare(m)
	}
	ctr, err := m.CountInstructions(opts)
	require.NoError(t, err)
	out, err := m.Encode()
	require.NoError(t, err)

	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	cfg := wazero.NewModuleConfig().WithArgs("interp", g.Program, strconv.Itoa(g.N)).WithStartFunctions()
	inst, err := rt.InstantiateWithConfig(ctx, out, cfg)
	require.NoError(t, err)
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
	for _, e := range m.Exports {
		if e.Kind == wasmcore.ExternGlobal {
			globals[e.Name] = inst.ExportedGlobal(e.Name).Get()
		}
	}
	return inst.ExportedGlobal(ctr.Export).Get(), globals
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

// TestCountInstructionsSegmentsEqualPerInstruction checks the per-segment
// counter against the slow mode that charges each instruction on its own,
// on every fixture interpreter build and program.
func TestCountInstructionsSegmentsEqualPerInstruction(t *testing.T) {
	mods, err := interp.Modules()
	require.NoError(t, err)
	for _, mod := range mods {
		wasm, err := os.ReadFile(interp.Path(mod.File))
		require.NoError(t, err)
		for _, g := range goldensFor(t, mod.Kind) {
			t.Run(mod.File+"/"+g.Program, func(t *testing.T) {
				fast, _ := countedRun(t, wasm, mod, g, wasmcore.CountOptions{}, nil)
				slow, _ := countedRun(t, wasm, mod, g, wasmcore.CountOptions{PerInstruction: true}, nil)
				assert.Equal(t, slow, fast)
				assert.Greater(t, fast, uint64(10*g.Dispatch), "at least a few instructions per opcode")
				// Hoisted charges have all run by the time the run ends.
				for _, h := range []wasmcore.Hoisting{wasmcore.HoistLocal, wasmcore.HoistAcrossCalls} {
					hoisted, _ := countedRun(t, wasm, mod, g, wasmcore.CountOptions{Hoist: h}, nil)
					assert.Equal(t, slow, hoisted, "hoisting %d", h)
				}
				inLocal, _ := countedRun(t, wasm, mod, g, wasmcore.CountOptions{}, func(m *wasmcore.Module) wasmcore.CountOptions {
					all := map[uint32]bool{}
					for i := range m.Functions {
						all[m.NumImportedFuncs()+uint32(i)] = true
					}
					return wasmcore.CountOptions{InLocal: all, Hoist: wasmcore.HoistAcrossCalls}
				})
				assert.Equal(t, slow, inLocal, "in locals")
			})
		}
	}
}

// TestCountInstructionsHooks checks that Entry and Exit hooks run once per
// call of the dispatch function, whichever way it returns, and that Before
// hooks run at the dispatch br_table once per executed opcode.
func TestCountInstructionsHooks(t *testing.T) {
	mods, err := interp.Modules()
	require.NoError(t, err)
	for _, mod := range mods {
		wasm, err := os.ReadFile(interp.Path(mod.File))
		require.NoError(t, err)
		for _, g := range goldensFor(t, mod.Kind) {
			t.Run(mod.File+"/"+g.Program, func(t *testing.T) {
				plain, _ := countedRun(t, wasm, mod, g, wasmcore.CountOptions{}, nil)
				hooked, globals := countedRun(t, wasm, mod, g, wasmcore.CountOptions{}, func(m *wasmcore.Module) wasmcore.CountOptions {
					bump := func(name string) []byte {
						idx := m.AddGlobal(wasmcore.Global{Type: wasmcore.GlobalType{Type: wasmcore.ValI64, Mutable: true}, Init: wasmcore.ConstI64(0)})
						m.Exports = append(m.Exports, wasmcore.Export{Name: name, Kind: wasmcore.ExternGlobal, Index: idx})
						var code []byte
						for _, in := range []wasmcore.Instr{{Op: wasmcore.OpGlobalGet, Index: idx}, {Op: wasmcore.OpI64Const, I64: 1}, {Op: wasmcore.OpI64Add}, {Op: wasmcore.OpGlobalSet, Index: idx}} {
							code = wasmcore.AppendInstr(code, in)
						}
						return code
					}
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
				assert.Equal(t, uint64(g.CallInternal), globals["entries"])
				assert.Equal(t, uint64(g.CallInternal), globals["exits"])
				assert.Equal(t, uint64(g.Dispatch), globals["dispatches"])
				assert.Equal(t, plain, hooked, "hooks are not counted")
			})
		}
	}
}
