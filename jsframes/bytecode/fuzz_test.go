package bytecode

import (
	"runtime"
	"testing"

	"github.com/jsprof/jsprof/jsframes/internal/bctest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzParseBytecode: whatever the bytes, Parse returns (no panic,
// no runaway recursion), and what it returns stays within the input's
// size. Seeded with real bytecode of both engines.
func FuzzParseBytecode(f *testing.F) {
	specs := []EngineSpec{namingSpec(f, "javy-plugin-1.7.0"), namingSpec(f, "javy-plugin-1.1.0")}
	for _, engine := range bctest.Plugins {
		for _, program := range bctest.Programs {
			f.Add(bctest.Bytecode(f, engine, program))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, spec := range specs {
			prog, err := Parse(b, spec)
			if err != nil {
				continue
			}
			code := 0
			for _, fn := range prog.Functions {
				code += len(fn.Code) + len(fn.Lines)
			}
			if len(prog.Functions) > len(b) || code > 2*len(b) {
				t.Fatalf("%d functions, %d bytes of code and line entries from %d bytes", len(prog.Functions), code, len(b))
			}
		}
	})
}

// TestParseBytecodeAllocation: hostile counts (huge atom tables, strings,
// functions nested without end) are refused without allocating for them.
func TestParseBytecodeAllocation(t *testing.T) {
	spec := namingSpec(t, "javy-plugin-1.7.0")
	nested := []byte{0x15, 0x00} // no atoms, then functions whose constant pools hold functions
	fn := []byte{0x0c, 0x00, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0, 1, 0, 0}
	for i := 0; i < 10000; i++ {
		nested = append(nested, fn...)
	}
	tests := []struct {
		name  string
		input []byte
		want  string
	}{
		{"atom count", []byte{0x15, 0xff, 0xff, 0xff, 0xff, 0x0f}, "atom count"},
		{"string length", []byte{0x15, 0x01, 0x01, 0xfe, 0xff, 0xff, 0xff, 0x0f}, "string of"},
		{"code length", append([]byte{0x15, 0x00, 0x0c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0xff, 0xff, 0xff, 0xff, 0x0f, 0), "bytes of code"},
		{"nesting", nested, "nested more than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := Parse(tt.input, spec)
			runtime.ReadMemStats(&after)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64*len(tt.input)+1<<20))
		})
	}
}

// BenchmarkParseBytecode parses the largest fixture program (classes.js)
// as each engine serialized it.
func BenchmarkParseBytecode(b *testing.B) {
	for _, engine := range bctest.Plugins {
		spec := namingSpec(b, engine)
		bc := bctest.Bytecode(b, engine, "classes")
		b.Run(engine, func(b *testing.B) {
			b.SetBytes(int64(len(bc)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Parse(bc, spec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
