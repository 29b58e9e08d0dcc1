package sourcemap

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFindMap: a program's map is the file given, else the one its
// comment names, checked against its JS; one that cannot be used is a
// one-line warning and no map, never a wrong one.
func TestFindMap(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	js := filepath.Join(dir, "app.js")
	mapFile := filepath.Join(dir, "app.js.map")
	require.NoError(t, os.WriteFile(mapFile, minifiedMap(t), 0o644))
	moved := "var q=0;function t(e){return e+1}t(1);\n//# sourceMappingURL=app.js.map\n"
	tests := []struct {
		name string
		flag string
		prog Program
		from string // the map found; "": none
		warn string // "": no warning
	}{
		{name: "named by its comment", prog: Program{Text: []byte(minified), Path: js}, from: mapFile},
		{name: "given", flag: mapFile, prog: Program{Text: []byte("t(1)\n" + minified), Path: js}, warn: "source map: "},
		{name: "given, matching", flag: mapFile, prog: Program{Text: []byte(minified), Path: js}, from: mapFile},
		{name: "no comment", prog: Program{Text: []byte("let a = 1;\n"), Path: js}},
		{name: "no JS", prog: Program{Why: "gone"}},
		{name: "no JS, a map given", flag: mapFile, prog: Program{Why: "gone"}, warn: "--source-map " + mapFile + ": the program's JS is not at hand to check the map against (gone); showing bundle positions"},
		{name: "stale", prog: Program{Text: []byte(moved), Path: js}, warn: "identifiers it joins differ"},
		{name: "missing", prog: Program{Text: []byte("x\n//# sourceMappingURL=none.map\n"), Path: js}, warn: "; showing bundle positions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l, err := FindMap(context.Background(), tt.flag, tt.prog)
			if tt.warn != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.warn)
				assert.NotContains(t, err.Error(), "\n")
				assert.Nil(t, l)
				return
			}
			require.NoError(t, err)
			if tt.from == "" {
				assert.Nil(t, l)
				return
			}
			require.NotNil(t, l)
			assert.Equal(t, tt.from, l.From)
		})
	}
}
