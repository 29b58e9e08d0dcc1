package compare

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestComparisonRead: before anything is built, a comparison reads its
// JS and the guests' stdin, naming the flag of a file it cannot read
// (--input for a function's input, else --stdin), and makes its --out-dir;
// a map the JS names but that is missing is a warning, not an error.
func TestComparisonRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	js := filepath.Join(dir, "index.js")
	require.NoError(t, os.WriteFile(js, []byte("console.log(1)\n"), 0o644))
	mapped := filepath.Join(dir, "mapped.js")
	require.NoError(t, os.WriteFile(mapped, []byte("console.log(1)\n//# sourceMappingURL=missing.js.map\n"), 0o644))
	in := filepath.Join(dir, "in.json")
	require.NoError(t, os.WriteFile(in, []byte(`{"a":1}`), 0o644))
	missing := filepath.Join(dir, "missing.json")
	tests := []struct {
		name    string
		c       Comparison
		stdin   string
		warning string // "": none
		err     string // "": read
	}{
		{name: "JS alone", c: Comparison{SourcePath: js}},
		{name: "function input", c: Comparison{SourcePath: js, Function: true, Input: in}, stdin: `{"a":1}`},
		{name: "stdin", c: Comparison{SourcePath: js, Input: in}, stdin: `{"a":1}`},
		{name: "out dir", c: Comparison{SourcePath: js, OutDir: filepath.Join(dir, "kept", "here")}},
		{name: "map missing", c: Comparison{SourcePath: mapped}, warning: "source map: "},
		{name: "no JS", c: Comparison{SourcePath: filepath.Join(dir, "none.js")}, err: "none.js: no such file"},
		{name: "no function input", c: Comparison{SourcePath: js, Function: true, Input: missing}, err: "--input: open " + missing},
		{name: "no stdin", c: Comparison{SourcePath: js, Input: missing}, err: "--stdin: open " + missing},
		{name: "out dir a file", c: Comparison{SourcePath: js, OutDir: in}, err: "--out-dir: mkdir " + in},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var warnings []error
			tt.c.Warn = func(err error) { warnings = append(warnings, err) }
			src, smap, stdin, err := tt.c.read(t.Context())
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "console.log(1)\n", string(src[:15]))
			assert.Equal(t, tt.stdin, string(stdin))
			assert.Nil(t, smap)
			if tt.warning == "" {
				assert.Empty(t, warnings)
			} else {
				require.Len(t, warnings, 1)
				assert.Contains(t, warnings[0].Error(), tt.warning)
			}
			if tt.c.OutDir != "" {
				assert.DirExists(t, tt.c.OutDir)
			}
		})
	}
}
