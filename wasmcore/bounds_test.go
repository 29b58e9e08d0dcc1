package wasmcore

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// boundsModule is a module of one function () -> () with body (its
// final end included).
func boundsModule(body []byte) *Module {
	return &Module{Types: []FuncType{{}}, Functions: []Function{{Type: 0, Body: body}}}
}

func nestedBlocks(n int) []byte {
	var body []byte
	for range n {
		body = append(body, 0x02, 0x40)
	}
	for range n + 1 {
		body = append(body, 0x0b)
	}
	return body
}

func brTable(n int) []byte {
	body := []byte{0x02, 0x40, 0x41, 0x00, 0x0e}
	body = appendULEB(body, uint64(n))
	for range n + 1 {
		body = append(body, 0x00)
	}
	return append(body, 0x0b, 0x0b)
}

func appendULEB(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// TestCheckBounds: the shapes that made wazero's compiler take tens of
// seconds are refused, naming the function and offset; just within the
// bounds, and the real engines, pass.
func TestCheckBounds(t *testing.T) {
	tests := []struct {
		name    string
		body    []byte
		wantErr string
	}{
		{"1,000 nested blocks", nestedBlocks(1000), ""},
		{"100,000 nested blocks", nestedBlocks(100_000), "function 0 (offset 0x3ffe): blocks nested 8192 deep, 33558528 nesting work in the module: more than jsprof compiles (33554432)"},
		{"a br_table of 16,384 (with its default)", brTable(16383), ""},
		{"a br_table of 10^6", brTable(1_000_000), "function 0 (offset 0x4): a br_table of 1000001 entries, 1000002000001 br_table work in the module: more than jsprof compiles (268435456)"},
		{"a 9 MB body", append(make([]byte, 9<<20), 0x0b), "function 0 (offset 0x0): a body of 9437185 bytes: more than jsprof compiles (8388608)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckBounds(context.Background(), boundsModule(tt.body))
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, ErrTooComplex)
			assert.EqualError(t, err, tt.wantErr)
		})
	}
	engines, _ := filepath.Glob(filepath.Join(fixtures.CacheDir(), "*.wasm"))
	for _, e := range engines {
		b, err := os.ReadFile(e)
		require.NoError(t, err)
		m, err := Decode(b)
		require.NoError(t, err)
		assert.NoError(t, CheckBounds(context.Background(), m), e)
	}
}

func BenchmarkCheckBounds(b *testing.B) {
	engines, _ := filepath.Glob(filepath.Join(fixtures.CacheDir(), "javy-plugin-1.7.0.wasm"))
	if len(engines) == 0 {
		b.Skip("no engine")
	}
	wasm, err := os.ReadFile(engines[0])
	require.NoError(b, err)
	m, err := Decode(wasm)
	require.NoError(b, err)
	b.SetBytes(int64(len(wasm)))
	for b.Loop() {
		if err := CheckBounds(context.Background(), m); err != nil {
			b.Fatal(err)
		}
	}
}
