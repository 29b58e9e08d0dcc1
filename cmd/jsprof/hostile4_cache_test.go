package main

import (
	"bytes"
	"io/fs"
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

// copyTree copies the folder dir, files and folders with their modes,
// into a new folder of the test's, and returns it.
func copyTree(t *testing.T, dir string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), filepath.Base(dir))
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), info.Mode().Perm())
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, info.Mode().Perm())
	}))
	return to
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

// TestCacheOfAnotherUser (issue 38, N9): a cache directory another user
// owns, or that others may write, was used without a word, and a fresh
// entry with no seal was sealed as it was: root ran the other user's
// modified native code (SIGSEGV). The cache is trusted only when
// jsprof's own user made it and no one else can write it: the run goes
// uncached, with one warning, and leaves the cache as it is.
func TestCacheOfAnotherUser(t *testing.T) {
	t.Parallel()
	bin := jsprofProcess(t)
	module := buildJS(t, fixtures.Path("js", "fib.js"))
	tests := []struct {
		name     string
		needRoot bool
		hand     func(t *testing.T, cache string)
		want     string // in the warning
	}{
		{"owned by nobody", true, func(t *testing.T, cache string) {
			require.NoError(t, filepath.WalkDir(cache, func(path string, _ fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				return os.Lchown(path, 65534, 65534)
			}))
		}, "is owned by user 65534, not by user 0 that jsprof runs as"},
		{"writable by all", false, func(t *testing.T, cache string) { require.NoError(t, os.Chmod(cache, 0o777)) }, "(mode 0777)"},
		{"writable by all, sticky", false, func(t *testing.T, cache string) {
			require.NoError(t, os.Chmod(cache, 0o777|os.ModeSticky))
		}, "is writable by other users"},
		{"writable by its group", false, func(t *testing.T, cache string) { require.NoError(t, os.Chmod(cache, 0o770)) }, "(mode 0770)"},
		{"wazero's directory writable by all", false, func(t *testing.T, cache string) {
			subs, err := filepath.Glob(filepath.Join(cache, "wazero-*"))
			require.NoError(t, err)
			for _, s := range subs {
				require.NoError(t, os.Chmod(s, 0o777))
			}
		}, "is writable by other users (mode 0777)"},
	}
	// One cold run makes the damaged cache each case starts from a copy
	// of: what is tested is the run on it, not the compiling.
	template := unsealedDamagedCache(t, bin, module)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.needRoot && os.Geteuid() != 0 {
				t.Skip("handing the cache to another user (chown) needs root")
			}
			cache := copyTree(t, template)
			tt.hand(t, cache)
			before, _ := cacheFiles(t, cache)
			stdout, stderr := runFib(t, bin, module, cache)
			assert.Equal(t, "fib(20) = 6765\n", stdout)
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			require.Len(t, lines, 1, "one warning: %q", stderr)
			assert.True(t, strings.HasPrefix(lines[0], "jsprof: warning: --cache-dir "+cache+": "), lines[0])
			assert.Contains(t, lines[0], tt.want)
			assert.True(t, strings.HasSuffix(lines[0], "; running uncached"), lines[0])
			after, seals := cacheFiles(t, cache)
			assert.Equal(t, before, after, "the cache left as it is")
			assert.Empty(t, seals, "nothing of it sealed")
		})
	}
}

// TestUnsealedEntryIsCompiledAgain (issue 38, D16r): an entry without a
// seal — left by a run killed after compiling (SIGKILL, out of memory),
// damaged since — was sealed as it was by the next run, which then
// crashed (SIGSEGV). An entry without a seal is never trusted: it is
// dropped and compiled again, and sealed then.
func TestUnsealedEntryIsCompiledAgain(t *testing.T) {
	t.Parallel()
	bin := jsprofProcess(t)
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

// TestCacheWithinItsSizeWhenTheRunEnds (issue 38, N15): the cache was
// trimmed to --cache-size only when a run started, so it exceeded it by
// what the last run added (25 MB at --cache-size 20) until the next one.
// What a run adds is trimmed as soon as it is sealed.
func TestCacheWithinItsSizeWhenTheRunEnds(t *testing.T) {
	t.Parallel()
	module := buildJS(t, fixtures.Path("js", "fib.js"))
	cache := t.TempDir()
	got := jsprof(t, "", "run", "-q", "--cache-dir", cache, "--cache-size", "1", "-o", filepath.Join(t.TempDir(), "p.pb.gz"), module)
	require.Equal(t, 0, got.code, got.stderr)
	assert.Equal(t, "fib(20) = 6765\n", got.stdout)
	var total int64
	require.NoError(t, filepath.WalkDir(cache, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".jsprof-sum") {
			return err
		}
		info, err := d.Info()
		total += info.Size()
		return err
	}))
	assert.LessOrEqual(t, total, int64(1<<20), "the cache within --cache-size 1 when jsprof exits")
}
