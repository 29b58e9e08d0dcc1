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
	"github.com/jsprof/jsprof/internal/run/runner"
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

// memoryCache returns a compilation cache in memory, closed when t ends:
// the runtimes made with it share the modules compiled in it while one of
// them holds them (newMeteredModule).
func memoryCache(t *testing.T) wazero.CompilationCache {
	t.Helper()
	cache := wazero.NewCompilationCache()
	t.Cleanup(func() { cache.Close(context.Background()) })
	return cache
}

// meteredModule is one fixture interpreter module instrumented once with
// a set of options; each run of it has a runtime and a meter of its own,
// and the runtimes share a compilation cache, so that it is compiled once.
type meteredModule struct {
	mod   interp.Module
	wasm  []byte
	plan  *meter.Plan
	cache wazero.CompilationCache
}

// newMeteredModule instruments mod with opts for runs on cache, and
// compiles it there in a runtime that holds it until t ends: a compiled
// module leaves the cache's memory when the last runtime using it closes.
func newMeteredModule(t *testing.T, cache wazero.CompilationCache, mod interp.Module, opts meter.Options) *meteredModule {
	t.Helper()
	ctx := context.Background()
	wasm, err := os.ReadFile(interp.Path(mod.File))
	require.NoError(t, err)
	out, plan := instrument(t, wasm, opts)
	holder := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(cache))
	t.Cleanup(func() { holder.Close(ctx) })
	_, err = holder.CompileModule(ctx, out)
	require.NoError(t, err)
	return &meteredModule{mod: mod, wasm: out, plan: plan, cache: cache}
}

// run runs one program under a new meter and returns the results with
// each function's name, read from the interpreter's function header
// (JSFunc.name at +12).
func (mm *meteredModule) run(t *testing.T, g interp.Golden) (*costs.Results, map[uint32]string) {
	t.Helper()
	// Memory as jsprof run backs it: wazero's own zeroes the meter's 256
	// MiB gap (guestGapPages) on every run.
	ctx, release := runner.ReservedMemory(context.Background())
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(mm.cache))
	defer rt.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	mt := meter.New(mm.plan)
	ctx = mt.Context(ctx)
	_, err := mt.Link(ctx, rt)
	require.NoError(t, err)
	cfg := wazero.NewModuleConfig().WithArgs("interp", g.Program, strconv.Itoa(g.N)).WithStartFunctions()
	inst, err := rt.InstantiateWithConfig(ctx, mm.wasm, cfg)
	require.NoError(t, err)
	release(inst.Memory())
	require.NoError(t, mt.Start(ctx, inst))
	if mm.mod.Kind == "bare" {
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
	cache := memoryCache(t)
	for _, mod := range mods {
		t.Run(mod.File, func(t *testing.T) {
			mm := newMeteredModule(t, cache, mod, meter.Options{})
			for _, p := range progs {
				g := golden(p.Name, p.SmallN)
				t.Run(p.Name, func(t *testing.T) {
					res, names := mm.run(t, g)
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
		})
	}
}

// TestExactTotalsEqualSlowMode: the run's total equals wasmcore's
// per-instruction count, and is the same on a second run.
func TestExactTotalsEqualSlowMode(t *testing.T) {
	mods, err := interp.Modules()
	require.NoError(t, err)
	goldens, err := interp.Goldens()
	require.NoError(t, err)
	cache := memoryCache(t)
	for _, mod := range mods {
		if mod.File != "build/interp-O2.wasm" && mod.File != "build/bare-O0.wasm" && mod.File != "build/direct-O2-wasmopt.wasm" {
			continue
		}
		t.Run(mod.File, func(t *testing.T) {
			fastMod := newMeteredModule(t, cache, mod, meter.Options{})
			slowMod := newMeteredModule(t, cache, mod, meter.Options{PerInstruction: true})
			for _, g := range goldens {
				if g.Program != "fib" && g.Program != "trycatch" {
					continue
				}
				t.Run(g.Program+"-"+strconv.Itoa(g.N), func(t *testing.T) {
					fast, _ := fastMod.run(t, g)
					again, _ := fastMod.run(t, g)
					slow, _ := slowMod.run(t, g)
					assert.Equal(t, slow.TotalInstructions, fast.TotalInstructions)
					assert.Equal(t, fast, again, "identical across runs")
					assert.Equal(t, slow.Functions, fast.Functions, "per function and opcode too")
				})
			}
		})
	}
}
