package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
)

// flipFunctionOffset flips one bit of the second function's offset in
// the wazero cache entry at path: outside wazero's checksum, which covers
// the code alone, it made wazero jump into the wrong code (SIGSEGV).
func flipFunctionOffset(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	// magic (6 bytes), the version's length and the version, the
	// function count (4), then each function's offset (8): the second's.
	at := 6 + 1 + int(b[6]) + 4 + 8
	require.Greater(t, len(b), at)
	b[at] ^= 0x10
	require.NoError(t, os.WriteFile(path, b, 0o600))
}

// cacheFiles are the files of a cache directory's wazero directories:
// entries and seals.
func cacheFiles(t *testing.T, cache string) (entries, seals []string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(cache, "wazero-*", "*"))
	require.NoError(t, err)
	for _, f := range files {
		if strings.HasSuffix(f, ".jsprof-sum") {
			seals = append(seals, f)
		} else {
			entries = append(entries, f)
		}
	}
	return entries, seals
}

// unsealedDamagedCache fills a cache with fib.js's run, then leaves it
// as a run killed after compiling would, damaged since: its entries
// without seals, one bit of each flipped where only jsprof's seal sees.
func unsealedDamagedCache(t *testing.T, bin, module string) string {
	t.Helper()
	cache := filepath.Join(t.TempDir(), "cache")
	out, err := exec.Command(bin, "run", "-q", "--cache-dir", cache, "-o", filepath.Join(t.TempDir(), "p.pb.gz"), module).CombinedOutput()
	require.NoError(t, err, string(out))
	entries, seals := cacheFiles(t, cache)
	require.NotEmpty(t, entries)
	for _, s := range seals {
		require.NoError(t, os.Remove(s))
	}
	for _, e := range entries {
		flipFunctionOffset(t, e)
	}
	return cache
}

// runFib runs fib.js's module with the cache and returns its stdout and
// stderr, failing the test when jsprof does not exit 0 (a SIGSEGV).
func runFib(t *testing.T, bin, module, cache string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(bin, "run", "-q", "--cache-dir", cache, "-o", filepath.Join(t.TempDir(), "p.pb.gz"), module)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	require.NoError(t, cmd.Run(), e.String())
	return o.String(), e.String()
}

// TestUnsealedEntryIsCompiledAgain (issue 38, D16r): an entry without a
// seal — left by a run killed after compiling (SIGKILL, out of memory),
// damaged since — was sealed as it was by the next run, which then
// crashed (SIGSEGV). An entry without a seal is never trusted: it is
// dropped and compiled again, and sealed then.
func TestUnsealedEntryIsCompiledAgain(t *testing.T) {
	t.Parallel()
	bin := jsprofBinary(t)
	module := buildJS(t, fixtures.Path("js", "fib.js"))
	cache := unsealedDamagedCache(t, bin, module)
	for _, run := range []string{"after the killed run", "again"} {
		stdout, stderr := runFib(t, bin, module, cache)
		assert.Equal(t, "fib(20) = 6765\n", stdout, run)
		assert.Empty(t, stderr, run)
	}
	entries, seals := cacheFiles(t, cache)
	assert.Len(t, seals, len(entries), "every entry sealed: %v", entries)
}
