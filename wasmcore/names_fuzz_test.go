package wasmcore

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/testrules"
)

// FuzzNames feeds arbitrary payloads to the name section reader on its
// own (Decode reads it only from a well-formed custom section): it must
// not panic, must allocate within a fixed multiple of the payload's size,
// and what it accepts must encode back to names that read the same.
func FuzzNames(f *testing.F) {
	for _, pattern := range []string{"testdata/*.wasm", "testdata/*/*.wasm", "../fixtures/interp/build/interp-O2.wasm"} {
		files, _ := filepath.Glob(pattern)
		for _, p := range files {
			b, err := os.ReadFile(p)
			require.NoError(f, err)
			m, err := Decode(b)
			require.NoError(f, err)
			for _, c := range m.Customs {
				if c.Name == "name" {
					f.Add(c.Data)
				}
			}
		}
	}
	// Every subsection the reader models, and one it keeps raw (labels, 3).
	f.Add(encodeNames(&NameSection{
		Module:       "m",
		Funcs:        map[uint32]string{0: "main", 7: "helper"},
		Locals:       map[uint32]map[uint32]string{0: {0: "x", 1: "y"}, 7: {3: "z"}},
		Globals:      map[uint32]string{1: "sp"},
		DataSegments: map[uint32]string{0: ".rodata"},
	}, []nameSub{{id: 3, payload: []byte{1, 0, 1, 0, 1, 'L'}}}))
	f.Add([]byte{nameFunc, 6, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		before := allocatedBytes()
		ns, extra, err := parseNames(data, 0)
		if n, limit := allocatedBytes()-before, uint64(256*len(data)+1<<20); n > limit {
			t.Fatalf("%d bytes allocated for a %d-byte name section (limit %d)", n, len(data), limit)
		}
		if err != nil {
			return
		}
		again, extra2, err := parseNames(encodeNames(ns, extra), 0)
		require.NoError(t, err, "re-encoded names read back")
		require.True(t, ns.equal(again), "names survive a round trip")
		require.Equal(t, len(extra), len(extra2), "unmodelled subsections are kept")
	})
}

// TestDecodeBoundedAllocation: a few bytes claiming a huge count, length or
// size are refused (or, for names, dropped) without allocating for the
// claim. It runs in a process of its own, where what the heap allocated
// is what Decode did.
func TestDecodeBoundedAllocation(t *testing.T) {
	if testrules.RunIsolated(t) {
		return
	}
	huge := []byte{0xFF, 0xFF, 0xFF, 0xFF, 0x0F} // u32 4294967295
	nameSec := func(payload ...byte) []byte {
		return sec(SectionCustom, cat(appendName(nil, "name"), payload)...)
	}
	tests := []struct {
		name string
		in   []byte
		want string // "" when Decode succeeds (a malformed name section is dropped)
	}{
		{"types", module(sec(SectionType, huge...)), "too large"},
		{"type params", module(sec(SectionType, cat([]byte{1, 0x60}, huge, []byte{0})...)), "too large"},
		{"imports", module(sec(SectionImport, huge...)), "too large"},
		{"functions", module(sec(SectionFunction, huge...)), "too large"},
		{"tables", module(sec(SectionTable, huge...)), "too large"},
		{"memories", module(sec(SectionMemory, huge...)), "too large"},
		{"globals", module(sec(SectionGlobal, huge...)), "too large"},
		{"exports", module(sec(SectionExport, huge...)), "too large"},
		{"elements", module(sec(SectionElement, huge...)), "too large"},
		{"element functions", module(sec(SectionElement, cat([]byte{1, 0, 0x41, 0, 0x0B}, huge)...)), "too large"},
		{"element expressions", module(sec(SectionElement, cat([]byte{1, 5, 0x70}, huge)...)), "too large"},
		{"bodies", module(typeSec, funcSec, sec(SectionCode, huge...)), "too large"},
		{"body size", module(typeSec, funcSec, sec(SectionCode, cat([]byte{1}, huge, []byte{0, 0x0B})...)), "body size"},
		{"local entries", module(typeSec, funcSec, sec(SectionCode, cat([]byte{1, 6}, huge, []byte{0x0B})...)), "too large"},
		{"data segments", module(sec(SectionData, huge...)), "too large"},
		{"data length", module(sec(SectionMemory, 1, 0, 1), sec(SectionData, cat([]byte{1, 0, 0x41, 0, 0x0B}, huge)...)), "unexpected end"},
		{"custom name length", module(sec(SectionCustom, huge...)), "unexpected end"},
		{"function names", module(nameSec(cat([]byte{nameFunc, 5}, huge)...)), ""},
		{"local name functions", module(nameSec(cat([]byte{nameLocal, 5}, huge)...)), ""},
		{"local names", module(nameSec(cat([]byte{nameLocal, 7, 1, 0}, huge)...)), ""},
		{"name length", module(nameSec(cat([]byte{nameModule, 5}, huge)...)), ""},
		{"subsection size", module(nameSec(cat([]byte{nameFunc}, huge, []byte{0})...)), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m *Module
			var err error
			n := bytesAllocated(func() { m, err = Decode(tt.in) })
			if tt.want == "" {
				require.NoError(t, err)
				assert.Nil(t, m.Names, "the malformed name section is dropped")
			} else {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.want)
			}
			assert.Less(t, n, uint64(64<<10), "%d bytes allocated for %d bytes of input", n, len(tt.in))
		})
	}
	// Instruction immediates: br_table labels and typed select.
	for _, body := range [][]byte{
		cat([]byte{byte(OpBrTable)}, huge, []byte{0, 0x0B}),
		cat([]byte{byte(SelectT)}, huge, []byte{0x7F, 0x0B}),
	} {
		var err error
		n := bytesAllocated(func() { _, err = DecodeInstructions(body) })
		require.Error(t, err)
		assert.Contains(t, err.Error(), "too large")
		assert.Less(t, n, uint64(64<<10))
	}
}

// bytesAllocated is what f allocates on the heap, exactly.
func bytesAllocated(f func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// allocatedBytes is the bytes allocated on the heap so far, cheap to read
// for a fuzz target (small allocations are counted a span at a time).
func allocatedBytes() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
