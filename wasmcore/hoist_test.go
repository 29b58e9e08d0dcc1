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

// shapeCounts runs export fn of testdata/shapes.wasm, counted with opts,
// once for each selector and returns the count after each call.
func shapeCounts(t *testing.T, opts func(m *wasmcore.Module) wasmcore.CountOptions, fn string, selectors []uint64) []uint64 {
	t.Helper()
	ctx := context.Background()
	wasm, err := os.ReadFile("testdata/shapes.wasm")
	require.NoError(t, err)
	m, err := wasmcore.Decode(wasm)
	require.NoError(t, err)
	ctr, err := m.CountInstructions(opts(m))
	require.NoError(t, err)
	out, err := m.Encode()
	require.NoError(t, err)
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	inst, err := rt.Instantiate(ctx, out)
	require.NoError(t, err)
	var counts []uint64
	for _, sel := range selectors {
		_, err := inst.ExportedFunction(fn).Call(ctx, sel)
		require.NoError(t, err, "%s(%d)", fn, sel)
		counts = append(counts, inst.ExportedGlobal(ctr.Export).Get())
	}
	return counts
}

// TestHoistingKeepsCountsExact: whatever the hoisting moves, every path
// through every shape counts what the per-instruction mode counts, call by
// call: escapes (br, br_if, br_table, return) take back exactly what was
// charged ahead for the code they skip.
func TestHoistingKeepsCountsExact(t *testing.T) {
	selectors := []uint64{0, 1, 2, 3, 4, 5, 6, 7, 9, 12}
	all := func(h wasmcore.Hoisting, inLocal bool) func(m *wasmcore.Module) wasmcore.CountOptions {
		return func(m *wasmcore.Module) wasmcore.CountOptions {
			opts := wasmcore.CountOptions{Hoist: h}
			if inLocal {
				opts.InLocal = map[uint32]bool{}
				for i := range m.Functions {
					opts.InLocal[m.NumImportedFuncs()+uint32(i)] = true
				}
			}
			return opts
		}
	}
	variants := []struct {
		name string
		opts func(m *wasmcore.Module) wasmcore.CountOptions
	}{
		{"segments", all(wasmcore.HoistNone, false)},
		{"hoist local", all(wasmcore.HoistLocal, false)},
		{"hoist across calls", all(wasmcore.HoistAcrossCalls, false)},
		{"hoist across calls, in locals", all(wasmcore.HoistAcrossCalls, true)},
	}
	for _, fn := range []string{"ifelse", "brifs", "table", "loops", "selfloop", "returns", "fact"} {
		want := shapeCounts(t, func(*wasmcore.Module) wasmcore.CountOptions { return wasmcore.CountOptions{PerInstruction: true} }, fn, selectors)
		require.Greater(t, want[len(want)-1], uint64(len(selectors)*5), "%s runs", fn)
		for _, v := range variants {
			t.Run(fn+"/"+v.name, func(t *testing.T) {
				assert.Equal(t, want, shapeCounts(t, v.opts, fn, selectors))
			})
		}
	}
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
