package outfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRemoveTemporariesNamesTheUnwritten (issue 38, N11): what a second
// signal leaves unwritten is the files created and neither written nor
// discarded, by path; a file written or discarded is not among them, and
// none is when every one was written (the control: a second signal after
// the outputs were written said "exiting without writing").
func TestRemoveTemporariesNamesTheUnwritten(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		act  map[string]string // file: "commit", "discard" or "" (left)
		want []string
	}{
		{"all written", map[string]string{"a": "commit", "b": "commit"}, nil},
		{"one left", map[string]string{"a": "commit", "b": "", "c": "discard"}, []string{"b"}},
		{"none written", map[string]string{"b": "", "a": ""}, []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			var set Set
			for name, act := range tt.act {
				f, err := set.Create(filepath.Join(dir, name))
				require.NoError(t, err)
				switch act {
				case "commit":
					require.NoError(t, f.Commit(func(w *os.File) error { _, err := w.WriteString(name); return err }))
				case "discard":
					f.Discard()
				}
			}
			var want []string
			for _, n := range tt.want {
				want = append(want, filepath.Join(dir, n))
			}
			assert.Equal(t, want, set.RemoveTemporaries())
		})
	}
}
