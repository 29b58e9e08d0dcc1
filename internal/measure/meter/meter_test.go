package meter_test

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/fixtures/interp"
	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/internal/measure/meter"
	"github.com/jsprof/jsprof/wasmcore"
)

// instrument rewrites wasm with the meter for the dispatch found in it,
// as jsprof run does, and returns the rewritten module and its plan.
func instrument(tb testing.TB, wasm []byte, opts meter.Options) ([]byte, *meter.Plan) {
	tb.Helper()
	m, err := wasmcore.Decode(wasm)
	require.NoError(tb, err)
	report, err := dispatch.Analyze(context.Background(), m)
	require.NoError(tb, err)
	require.NotNil(tb, report.Dispatch, report.Reason)
	plan, err := meter.Instrument(m, report.Dispatch, opts)
	require.NoError(tb, err)
	out, err := m.Encode()
	require.NoError(tb, err)
	return out, plan
}

// meteredRun instruments one fixture interpreter module, runs one program
// and returns the results with each function's name, read from the
// interpreter's function header (JSFunc.name at +12).
func meteredRun(t *testing.T, mod interp.Module, g interp.Golden, opts meter.Options) (*costs.Results, map[uint32]string) {
	t.Helper()
	ctx := context.Background()
	wasm, err := os.ReadFile(interp.Path(mod.File))
	require.NoError(t, err)
	out, plan := instrument(t, wasm, opts)

	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	mt := meter.New(plan)
	ctx = mt.Context(ctx)
	_, err = mt.Link(ctx, rt)
	require.NoError(t, err)
	cfg := wazero.NewModuleConfig().WithArgs("interp", g.Program, strconv.Itoa(g.N)).WithStartFunctions()
	inst, err := rt.InstantiateWithConfig(ctx, out, cfg)
	require.NoError(t, err)
	require.NoError(t, mt.Start(ctx, inst))
	if mod.Kind == "bare" {
		_, err = inst.ExportedFunction("run_" + g.Program).Call(ctx)
	} else {
		_, err = inst.ExportedFunction("_start").Call(ctx)
		if err != nil && err.Error() == "module closed with exit_code(0)" {
			err = nil
		}
	}
	require.NoError(t, err)
	res, err := mt.Collect()
	require.NoError(t, err)
	return res, functionNames(inst.Memory(), res)
}

func functionNames(mem api.Memory, res *costs.Results) map[uint32]string {
	names := map[uint32]string{}
	for _, f := range res.Functions {
		ptr, _ := mem.ReadUint32Le(f.Bytecode + 12)
		var name []byte
		for i := uint32(0); i < 64; i++ {
			c, ok := mem.ReadByte(ptr + i)
			if !ok || c == 0 {
				break
			}
			name = append(name, c)
		}
		names[f.Address] = string(name)
	}
	return names
}

// TestExactCountsOnFixtureInterpreters: per function and per opcode, the
// executions and calls the meter reports equal those the native counting
// build of the same interpreter recorded, on every build and program.
func TestExactCountsOnFixtureInterpreters(t *testing.T) {
	mods, err := interp.Modules()
	require.NoError(t, err)
	table, err := interp.Opcodes()
	require.NoError(t, err)
	progs, err := interp.Programs()
	require.NoError(t, err)
	goldens, err := interp.Goldens()
	require.NoError(t, err)
	golden := func(program string, n int) interp.Golden {
		for _, g := range goldens {
			if g.Program == program && g.N == n {
				return g
			}
		}
		t.Fatalf("no golden %s-%d", program, n)
		return interp.Golden{}
	}
	for _, mod := range mods {
		for _, p := range progs {
			g := golden(p.Name, p.SmallN)
			t.Run(mod.File+"/"+p.Name, func(t *testing.T) {
				res, names := meteredRun(t, mod, g, meter.Options{})
				require.NoError(t, res.Check())

				byName := map[string]costs.FunctionCost{}
				for _, f := range res.Functions {
					byName[names[f.Address]] = f
				}
				for name, want := range g.Functions {
					got, ok := byName[name]
					if !assert.True(t, ok, "function %s not seen", name) {
						continue
					}
					assert.Equal(t, want.Calls, got.Calls, "%s calls", name)
					assert.Equal(t, uint32(want.ByteCodeLen), got.Length, "%s bytecode length", name)
					execs := map[string]uint64{}
					for _, o := range got.Opcodes {
						if o.Opcode != costs.CallSetup {
							execs[table.Info[o.Opcode].Name] = o.Executions
						}
					}
					assert.Equal(t, want.Opcodes, execs, "%s opcodes", name)
				}
				assert.Len(t, res.Functions, len(g.Functions), "only bytecode functions get a block")

				var dispatches uint64
				for _, o := range res.OpcodeTotals() {
					dispatches += o.Executions
				}
				assert.Equal(t, g.Dispatch, dispatches)
			})
		}
	}
}

// TestExactTotalsEqualSlowMode: the run's total equals wasmcore's
// per-instruction count, and is the same on a second run.
func TestExactTotalsEqualSlowMode(t *testing.T) {
	mods, err := interp.Modules()
	require.NoError(t, err)
	goldens, err := interp.Goldens()
	require.NoError(t, err)
	for _, mod := range mods {
		if mod.File != "build/interp-O2.wasm" && mod.File != "build/bare-O0.wasm" && mod.File != "build/direct-O2-wasmopt.wasm" {
			continue
		}
		for _, g := range goldens {
			if g.Program != "fib" && g.Program != "trycatch" {
				continue
			}
			t.Run(mod.File+"/"+g.Program+"-"+strconv.Itoa(g.N), func(t *testing.T) {
				fast, _ := meteredRun(t, mod, g, meter.Options{})
				again, _ := meteredRun(t, mod, g, meter.Options{})
				slow, _ := meteredRun(t, mod, g, meter.Options{PerInstruction: true})
				assert.Equal(t, slow.TotalInstructions, fast.TotalInstructions)
				assert.Equal(t, fast, again, "identical across runs")
				assert.Equal(t, slow.Functions, fast.Functions, "per function and opcode too")
			})
		}
	}
}
