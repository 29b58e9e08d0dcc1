package wasmcore

import (
	"testing"

	"github.com/jsprof/jsprof/fixtures"
)

// BenchmarkDecodeEncode round-trips the largest real engine (1.3 MB).
func BenchmarkDecodeEncode(b *testing.B) {
	data := fixtures.EngineBytes(b, "javy-plugin-1.1.0")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		m, err := Decode(data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := m.Encode(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeModified encodes the largest engine after changing one
// function body, which forces the code section to be rebuilt.
func BenchmarkEncodeModified(b *testing.B) {
	data := fixtures.EngineBytes(b, "javy-plugin-1.1.0")
	m, err := Decode(data)
	if err != nil {
		b.Fatal(err)
	}
	f := &m.Functions[len(m.Functions)/2]
	f.Body = append([]byte{byte(OpNop)}, f.Body...)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Encode(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeInstructions decodes every body of the largest engine.
func BenchmarkDecodeInstructions(b *testing.B) {
	data := fixtures.EngineBytes(b, "javy-plugin-1.1.0")
	m, err := Decode(data)
	if err != nil {
		b.Fatal(err)
	}
	var size int64
	for _, f := range m.Functions {
		size += int64(len(f.Body))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range m.Functions {
			ir := NewInstrReader(f.Body)
			for {
				_, ok, err := ir.Next()
				if err != nil {
					b.Fatal(err)
				}
				if !ok {
					break
				}
			}
		}
	}
}
