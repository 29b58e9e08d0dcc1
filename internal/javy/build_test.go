package javy

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/jsframes/htmlview"
	"github.com/jsprof/jsprof/wasmcore"
)

func TestNonZeroRuns(t *testing.T) {
	tests := []struct {
		name string
		mem  []byte
		gap  int
		want [][2]int
	}{
		{"all zero", make([]byte, 16), 2, nil},
		{"one byte", []byte{0, 0, 7, 0}, 2, [][2]int{{2, 3}}},
		{"short gap merged", []byte{1, 0, 0, 2}, 2, [][2]int{{0, 4}}},
		{"long gap split", []byte{1, 0, 0, 0, 2}, 2, [][2]int{{0, 1}, {4, 5}}},
		{"trailing zeros dropped", []byte{0, 3, 3, 0, 0, 0, 0}, 8, [][2]int{{1, 3}}},
		{"ends non-zero", []byte{5, 0, 5}, 0, [][2]int{{0, 1}, {2, 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, nonZeroRuns(tt.mem, tt.gap))
		})
	}
}

// TestEmbedSource: the javy_source section jsprof build writes reads back
// as the HTML report reads the Javy CLI's, named as NameSource recorded.
func TestEmbedSource(t *testing.T) {
	tests := []struct {
		name string
		src  string
	}{
		{"empty", ""},
		{"a program", "function f(x) {\n  return x + 1;\n}\nconsole.log(f(1));\n"},
		{"UTF-8", "const s = \"héllo wörld ✓\";\n"},
		{"large", strings.Repeat("let a = [1, 2, 3].map((x) => x * 2);\n", 20_000)},
	}
	empty := []byte("\x00asm\x01\x00\x00\x00")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := EmbedSource(NameSource(empty, "index.js"), []byte(tt.src))
			require.NoError(t, err)
			m, err := wasmcore.Decode(out)
			require.NoError(t, err)
			var names []string
			for _, c := range m.Customs {
				names = append(names, c.Name)
				if c.Name == JavySourceSection && len(tt.src) > 1000 {
					assert.Less(t, len(c.Data), len(tt.src)/10, "compressed")
				}
			}
			assert.Equal(t, []string{SourceSection, JavySourceSection}, names)
			got, err := htmlview.ModuleSource(out, "index.wasm")
			require.NoError(t, err)
			assert.Equal(t, htmlview.SourceFile{Name: "index.js", Text: []byte(tt.src), From: htmlview.JavySourceSection}, got)
		})
	}
	assert.Equal(t, htmlview.JavySourceSection, JavySourceSection, "one section name for the writer and the reader")
}
