package enginecache

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGoBuildID: the test binary's Go build ID is read from its ELF note,
// the same from a copy of it elsewhere (the point: go test links its
// binary into a new folder on every run), and a file without the note
// has none (the negative control), which executableIdentity then names
// by path, size and time.
func TestGoBuildID(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	require.NoError(t, err)
	id := goBuildID(exe)
	require.NotEmpty(t, id)
	assert.Contains(t, id, "/", "action ID/content ID")

	b, err := os.ReadFile(exe)
	require.NoError(t, err)
	copied := filepath.Join(t.TempDir(), "copy")
	require.NoError(t, os.WriteFile(copied, b, 0o755))
	assert.Equal(t, id, goBuildID(copied))

	plain := filepath.Join(t.TempDir(), "plain")
	require.NoError(t, os.WriteFile(plain, []byte("not an executable"), 0o644))
	assert.Empty(t, goBuildID(plain))
}
