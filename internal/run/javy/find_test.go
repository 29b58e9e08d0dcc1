package javy

import (
	"bytes"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/wasmcore"
)

// emptyModule is the smallest Wasm module: the header.
var emptyModule = []byte("\x00asm\x01\x00\x00\x00")

func brotliOf(t *testing.T, text string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := brotli.NewWriterLevel(&b, brotli.BestCompression)
	_, err := w.Write([]byte(text))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return b.Bytes()
}

func TestModuleSource(t *testing.T) {
	const js = "function fib(n) {\n  return n < 2 ? n : fib(n - 1) + fib(n - 2);\n}\nconsole.log(fib(20));\n"
	with := func(sections ...[2][]byte) []byte {
		m := emptyModule
		for _, s := range sections {
			m = wasmcore.AppendCustomSection(m, string(s[0]), s[1])
		}
		return m
	}
	tests := []struct {
		name     string
		module   []byte
		wantName string
		wantText string
		err      string
	}{
		{"Brotli, as the Javy CLI writes it", with([2][]byte{[]byte(JavySourceSection), brotliOf(t, js)}), "index.js", js, ""},
		{"plain", with([2][]byte{[]byte(JavySourceSection), []byte(js)}), "index.js", js, ""},
		{"named by jsprof build", with([2][]byte{[]byte("jsprof.source"), []byte("fib.js")}, [2][]byte{[]byte(JavySourceSection), brotliOf(t, js)}), "fib.js", js, ""},
		{"no source, a name", with([2][]byte{[]byte("jsprof.source"), []byte("fib.js")}), "fib.js", "", "carries no JS source"},
		{"no source", emptyModule, "index.js", "", "carries no JS source"},
		{"neither Brotli nor text", with([2][]byte{[]byte(JavySourceSection), {0xff, 0xfe, 0x00, 0x81}}), "", "", "javy_source section: neither Brotli nor text"},
		{"not a module", []byte("function f() {}"), "", "", "magic number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := ModuleSource(tt.module, "index.js")
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				assert.Equal(t, tt.wantName, src.Name)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantName, src.Name)
			assert.Equal(t, tt.wantText, string(src.Text))
			assert.Equal(t, JavySourceSection, src.From)
		})
	}
}
