package wasmcore_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/wasmcore"
)

// shapeRun runs export fn of a test module, counted with opts, once for
// each selector and returns the count after each call, and the values of
// the module's other exported globals after each call.
func shapeRun(t *testing.T, file string, opts func(m *wasmcore.Module) wasmcore.CountOptions, fn string, selectors []uint64) ([]uint64, map[string][]uint64) {
	t.Helper()
	ctx := context.Background()
	wasm, err := os.ReadFile(file)
	require.NoError(t, err)
	m, err := wasmcore.Decode(wasm)
	require.NoError(t, err)
	o := opts(m)
	ctr, err := m.CountInstructions(o)
	require.NoError(t, err)
	addCheckpointFunc(t, m, ctr, o)
	out, err := m.Encode()
	require.NoError(t, err)
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	inst, err := rt.Instantiate(ctx, out)
	require.NoError(t, err)
	var counts []uint64
	globals := map[string][]uint64{}
	for _, sel := range selectors {
		_, err := inst.ExportedFunction(fn).Call(ctx, sel)
		require.NoError(t, err, "%s(%d)", fn, sel)
		counts = append(counts, inst.ExportedGlobal(ctr.Export).Get())
		for _, e := range m.Exports {
			if e.Kind == wasmcore.ExternGlobal && e.Name != ctr.Export {
				globals[e.Name] = append(globals[e.Name], inst.ExportedGlobal(e.Name).Get())
			}
		}
	}
	return counts, globals
}

// shapeCases: every export of the control-flow shapes and of the
// cost-model shapes, each with selectors that take every path.
var shapeCases = []struct {
	file, fn  string
	selectors []uint64
}{
	{"testdata/shapes.wasm", "ifelse", shapeSelectors},
	{"testdata/shapes.wasm", "brifs", shapeSelectors},
	{"testdata/shapes.wasm", "table", shapeSelectors},
	{"testdata/shapes.wasm", "loops", shapeSelectors},
	{"testdata/shapes.wasm", "selfloop", shapeSelectors},
	{"testdata/shapes.wasm", "returns", shapeSelectors},
	{"testdata/shapes.wasm", "fact", shapeSelectors},
	{"testdata/costs.wasm", "straight", shapeSelectors},
	{"testdata/costs.wasm", "nops", shapeSelectors},
	{"testdata/costs.wasm", "early", shapeSelectors},
	{"testdata/costs.wasm", "drops", shapeSelectors},
	{"testdata/costs.wasm", "table", shapeSelectors},
	{"testdata/costs.wasm", "dead", shapeSelectors},
	{"testdata/costs.wasm", "bulk", []uint64{0, 1, 1000, 60000, 3}},
}

var shapeSelectors = []uint64{0, 1, 2, 3, 4, 5, 6, 7, 9, 12}

// TestHoistingKeepsCountsExact: whatever the hoisting moves, every path
// through every shape counts what the per-instruction mode counts, call by
// call, under each cost model: escapes (br, br_if, br_table, return) take
// back exactly what was charged ahead for the code they skip, also where
// what they skip, or they themselves, cost nothing.
func TestHoistingKeepsCountsExact(t *testing.T) {
	for _, c := range shapeCases {
		for _, cost := range []wasmcore.CostModel{wasmcore.CostAll, wasmcore.CostFuel} {
			want, _ := shapeRun(t, c.file, func(*wasmcore.Module) wasmcore.CountOptions {
				return wasmcore.CountOptions{Cost: cost, PerInstruction: true}
			}, c.fn, c.selectors)
			require.Greater(t, want[len(want)-1], uint64(len(c.selectors)), "%s runs", c.fn)
			for _, v := range fastCountModes(cost) {
				t.Run(c.file+"/"+c.fn+"/"+cost.String()+"/"+v.name, func(t *testing.T) {
					got, globals := shapeRun(t, c.file, v.opts, c.fn, c.selectors)
					assert.Equal(t, want, got)
					if fired, ok := globals["checkpoint.fired"]; ok && (c.fn == "loops" || c.fn == "fact" || c.fn == "nops") {
						assert.NotZero(t, fired[len(fired)-1], "checkpoints fire")
					}
				})
			}
		}
	}
}

// TestCostFuel: the fuel model counts, call by call, exactly the executed
// nop, drop, unreachable and return instructions fewer than CostAll and
// one more per entry into a defined function (as hooks tally them); the
// instructions of a straight line and a bulk memory instruction of any
// length cost what wasmtime charges.
func TestCostFuel(t *testing.T) {
	perInstruction := func(cost wasmcore.CostModel, tally bool) func(m *wasmcore.Module) wasmcore.CountOptions {
		return func(m *wasmcore.Module) wasmcore.CountOptions {
			opts := wasmcore.CountOptions{Cost: cost, PerInstruction: true}
			if tally {
				opts.Hooks = zeroFuelHooks(t, m)
			}
			return opts
		}
	}
	deltas := func(counts []uint64) []uint64 {
		out := make([]uint64, len(counts))
		for i := range counts {
			out[i] = counts[i]
			if i > 0 {
				out[i] -= counts[i-1]
			}
		}
		return out
	}
	repeat := func(n uint64, k int) []uint64 {
		out := make([]uint64, k)
		for i := range out {
			out[i] = n
		}
		return out
	}
	tallied := uint64(0)
	for _, c := range shapeCases {
		t.Run(c.file+"/"+c.fn, func(t *testing.T) {
			all, globals := shapeRun(t, c.file, perInstruction(wasmcore.CostAll, true), c.fn, c.selectors)
			allPlain, _ := shapeRun(t, c.file, perInstruction(wasmcore.CostAll, false), c.fn, c.selectors)
			require.Equal(t, allPlain, all, "the tally is not counted")
			fuel, _ := shapeRun(t, c.file, perInstruction(wasmcore.CostFuel, false), c.fn, c.selectors)
			free, entries := globals[fuelFreeExport], globals[fuelEntriesExport]
			if free == nil { // nothing to tally in the module
				free = make([]uint64, len(all))
			}
			require.Len(t, entries, len(all))
			for i := range all {
				assert.Equal(t, all[i]-free[i]+entries[i], fuel[i], "after %s(%d)", c.fn, c.selectors[i])
			}
			tallied += free[len(free)-1]
			switch c.fn {
			case "straight": // entry, nop, local.get, drop, i32.const, return
				assert.Equal(t, repeat(5, len(all)), deltas(all))
				assert.Equal(t, repeat(3, len(all)), deltas(fuel))
			case "bulk": // entry, 3 operands and memory.fill, 3 and memory.copy
				assert.Equal(t, repeat(8, len(all)), deltas(all))
				assert.Equal(t, repeat(9, len(all)), deltas(fuel))
			}
		})
	}
	assert.Greater(t, tallied, uint64(50), "the shapes run nop, drop and return")
}

// TestHoistingChargesLess: on a real engine, hoisting leaves fewer charges
// in the code (each is a global or local update on the hot path).
func TestHoistingChargesLess(t *testing.T) {
	wasm, err := os.ReadFile(fixtures.EnginePath(t, "javy-plugin-1.7.0"))
	require.NoError(t, err)
	charges := func(h wasmcore.Hoisting) int {
		m, err := wasmcore.Decode(wasm)
		require.NoError(t, err)
		ctr, err := m.CountInstructions(wasmcore.CountOptions{Hoist: h})
		require.NoError(t, err)
		n := 0
		for _, f := range m.Functions {
			ins, err := wasmcore.DecodeInstructions(f.Body)
			require.NoError(t, err)
			for _, in := range ins {
				if in.Op == wasmcore.OpGlobalSet && in.Index == ctr.Global {
					n++
				}
			}
		}
		return n
	}
	none, hoisted := charges(wasmcore.HoistNone), charges(wasmcore.HoistAcrossCalls)
	assert.Less(t, hoisted, none*3/4, "hoisted %d charges, segment by segment %d", hoisted, none)
}

// TestRecursionHeads: every cycle of the call graph has a head, and
// functions on no cycle have none.
func TestRecursionHeads(t *testing.T) {
	wasm, err := os.ReadFile("testdata/shapes.wasm")
	require.NoError(t, err)
	m, err := wasmcore.Decode(wasm)
	require.NoError(t, err)
	heads, err := m.RecursionHeads()
	require.NoError(t, err)
	names := map[string]uint32{}
	for _, e := range m.Exports {
		names[e.Name] = e.Index
	}
	// fact calls itself. returns calls ifelse directly and, through the
	// table, ifelse or leaf; none of those calls back.
	assert.Equal(t, map[uint32]bool{names["fact"]: true}, heads)
}
