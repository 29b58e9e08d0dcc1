package main

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
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

// TestDamagedCacheEntry: an entry damaged on disk (overwritten in place,
// or cut short) made wazero panic or fail every run; jsprof now clears the
// cache, compiles again and runs.
func TestDamagedCacheEntry(t *testing.T) {
	module := buildJS(t, fixtures.Path("js", "fib.js"))
	damage := map[string]func(t *testing.T, path string){
		"overwritten": func(t *testing.T, path string) {
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			require.NoError(t, err)
			junk := make([]byte, 4096)
			_, err = rand.Read(junk)
			require.NoError(t, err)
			_, err = f.WriteAt(junk, 5000)
			require.NoError(t, err)
			require.NoError(t, f.Close())
		},
		"cut short": func(t *testing.T, path string) { require.NoError(t, os.Truncate(path, 100)) },
	}
	for name, damageEntry := range damage {
		t.Run(name, func(t *testing.T) {
			cache := t.TempDir()
			run := func() invocation {
				return jsprof(t, "", "run", "-q", "--cache-dir", cache, "-o", filepath.Join(t.TempDir(), "p.pb.gz"), module)
			}
			first := run()
			require.Equal(t, 0, first.code, first.stderr)
			entries, err := filepath.Glob(filepath.Join(cache, "wazero-*", "*"))
			require.NoError(t, err)
			require.NotEmpty(t, entries)
			for _, e := range entries {
				damageEntry(t, e)
			}
			got := run()
			assert.Equal(t, 0, got.code, got.stderr)
			assert.Equal(t, first.stdout, got.stdout)
			assert.Contains(t, got.stderr, "the compilation cache has a damaged entry")
			again := run()
			assert.Equal(t, 0, again.code)
			assert.Empty(t, again.stderr, "the cache is whole again")
		})
	}
}
