package cachedir

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTrimCache: the cache is kept within its size, dropping the entries
// used least recently, and temporary files a dead process left behind.
func TestTrimCache(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "wazero-v1.12.0-amd64-linux")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	now := time.Now()
	files := []struct {
		name string
		size int
		age  time.Duration
	}{
		{"old", 400, 3 * time.Hour},
		{"middle", 400, 2 * time.Hour},
		{"new", 400, time.Minute},
		{"entry.123.tmp", 10, 2 * time.Hour},    // stale: removed
		{"other.456.tmp", 10, 10 * time.Second}, // being written: kept
	}
	for _, f := range files {
		p := filepath.Join(sub, f.name)
		require.NoError(t, os.WriteFile(p, make([]byte, f.size), 0o644))
		require.NoError(t, os.Chtimes(p, now.Add(-f.age), now.Add(-f.age)))
	}
	trimCache(dir, 900, now)
	left, err := filepath.Glob(filepath.Join(sub, "*"))
	require.NoError(t, err)
	var names []string
	for _, l := range left {
		names = append(names, filepath.Base(l))
	}
	assert.ElementsMatch(t, []string{"middle", "new", "other.456.tmp"}, names)

	trimCache(dir, 1<<20, now) // within its size: nothing more goes
	again, err := filepath.Glob(filepath.Join(sub, "*"))
	require.NoError(t, err)
	assert.Len(t, again, 3)
}

// TestClearCacheKeepsDirectories: clearing a damaged cache removes its
// compiled modules but not wazero's directory, which another process
// compiling meanwhile stores its entry in, nor that process's entry being
// written; jsprof's prepared engines are checked on their own and stay.
func TestClearCacheKeepsDirectories(t *testing.T) {
	dir := t.TempDir()
	files := map[string]bool{ // path: kept
		"wazero-v1.12.0-amd64-linux/0123abcd":      false,
		"wazero-v1.12.0-amd64-linux/4567ef01":      false,
		"wazero-v1.12.0-amd64-linux/89ab.1234.tmp": true,
		"jsprof-prepared-v1/cdef.wasm":             true,
		"jsprof-prepared-v1/files/0a1b2c":          true,
	}
	for name := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(name), 0o644))
	}
	require.NoError(t, clearCache(dir))
	for name, kept := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		if kept {
			assert.NoError(t, err, name)
		} else {
			assert.ErrorIs(t, err, os.ErrNotExist, name)
		}
	}
	info, err := os.Stat(filepath.Join(dir, "wazero-v1.12.0-amd64-linux"))
	require.NoError(t, err)
	assert.True(t, info.IsDir(), "wazero's directory, where a process compiling now stores its entry")
}
