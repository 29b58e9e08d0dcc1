package dispatch_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/internal/testrules"
	"github.com/jsprof/jsprof/wasmcore"
)

// hostileModule is one function with locals i32 locals, the first sets of
// them assigned twice (so that they need phis), then repeat copies of
// filler, then a dispatch-like br_table on a loaded byte so that the
// function is analysed.
func hostileModule(t testing.TB, locals uint32, sets int, filler []wasmcore.Instr, repeat int) []byte {
	t.Helper()
	var b []byte
	add := func(ins ...wasmcore.Instr) {
		for _, in := range ins {
			b = wasmcore.AppendInstr(b, in)
		}
	}
	for range 2 {
		for l := range sets {
			add(wasmcore.Instr{Op: wasmcore.OpI32Const}, wasmcore.Instr{Op: wasmcore.OpLocalSet, Index: uint32(l)})
		}
	}
	for range repeat {
		add(filler...)
	}
	labels := make([]uint32, 18)
	add(wasmcore.Instr{Op: wasmcore.OpBlock, Block: wasmcore.BlockEmpty},
		wasmcore.Instr{Op: wasmcore.OpI32Const},
		wasmcore.Instr{Op: wasmcore.OpI32Load8U},
		wasmcore.Instr{Op: wasmcore.OpBrTable, Labels: labels},
		wasmcore.Instr{Op: wasmcore.OpEnd},
		wasmcore.Instr{Op: wasmcore.OpEnd})
	m := &wasmcore.Module{
		Types:     []wasmcore.FuncType{{}},
		Memories:  []wasmcore.MemoryType{{Limits: wasmcore.Limits{Min: 1}}},
		Functions: []wasmcore.Function{{Type: 0, Locals: []wasmcore.Local{{Count: locals, Type: wasmcore.ValI32}}, Body: b}},
	}
	out, err := m.Encode()
	require.NoError(t, err)
	return out
}

// TestAnalyzeBoundedAllocation: modules made to multiply what the analysis
// does per local by the number of blocks or loops are analysed (or
// refused) in memory bounded by a small multiple of their size (the time
// is logged). It runs in a process of its own, where what the heap
// allocated is what Analyze did.
func TestAnalyzeBoundedAllocation(t *testing.T) {
	if testrules.RunIsolated(t) {
		return
	}
	block := []wasmcore.Instr{{Op: wasmcore.OpBlock, Block: wasmcore.BlockEmpty}, {Op: wasmcore.OpEnd}}
	loop := []wasmcore.Instr{{Op: wasmcore.OpLoop, Block: wasmcore.BlockEmpty}, {Op: wasmcore.OpEnd}}
	ifElse := []wasmcore.Instr{{Op: wasmcore.OpI32Const}, {Op: wasmcore.OpIf, Block: wasmcore.BlockEmpty}, {Op: wasmcore.OpElse}, {Op: wasmcore.OpEnd}}
	branch := []wasmcore.Instr{{Op: wasmcore.OpBlock, Block: wasmcore.BlockEmpty}, {Op: wasmcore.OpBr}, {Op: wasmcore.OpEnd}}
	tests := []struct {
		name   string
		locals uint32
		sets   int
		filler []wasmcore.Instr
	}{
		{"loops times locals", 1 << 16, 0, loop},
		{"blocks times phi locals", 4096, 4096, block},
		{"ifs times phi locals", 4096, 4096, ifElse},
		{"branches times phi locals", 4096, 4096, branch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wasm := hostileModule(t, tt.locals, tt.sets, tt.filler, 40_000)
			m, err := wasmcore.Decode(wasm)
			require.NoError(t, err)
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			rep, err := dispatch.Analyze(context.Background(), m)
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			require.NoError(t, err)
			require.NotNil(t, rep)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d bytes: %.1f MB allocated, %v", len(wasm), float64(alloc)/(1<<20), elapsed)
			assert.Less(t, alloc, uint64(256*len(wasm)+64<<20), "allocation bounded by the input's size")
		})
	}
}
