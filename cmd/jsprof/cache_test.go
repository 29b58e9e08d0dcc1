package main

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
)

// TestDamagedCacheEntry: an entry damaged on disk (overwritten in place,
// cut short, one bit flipped where wazero's checksum does not look) made
// wazero panic, fail every run or jump into the wrong code (SIGSEGV);
// jsprof checks each entry against the digest it sealed it with, drops
// the one that differs, says so, compiles again and runs.
func TestDamagedCacheEntry(t *testing.T) {
	t.Parallel()
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
		// Outside wazero's checksum, which covers the code alone: it
		// crashed jsprof with SIGSEGV.
		"one bit of a function's offset flipped": flipFunctionOffset,
	}
	// One cache compiled once, copied for each damage: compiling into
	// an empty cache is not what this test is about.
	seed := t.TempDir()
	first := jsprof(t, "", "run", "-q", "--cache-dir", seed, "-o", filepath.Join(t.TempDir(), "p.pb.gz"), module)
	require.Equal(t, 0, first.code, first.stderr)
	for name, damageEntry := range damage {
		t.Run(name, func(t *testing.T) {
			cache := copyTree(t, seed)
			run := func() invocation {
				return jsprof(t, "", "run", "-q", "--cache-dir", cache, "-o", filepath.Join(t.TempDir(), "p.pb.gz"), module)
			}
			entries, err := filepath.Glob(filepath.Join(cache, "wazero-*", "*"))
			require.NoError(t, err)
			require.NotEmpty(t, entries)
			for _, e := range entries {
				if !strings.HasSuffix(e, ".jsprof-sum") { // jsprof's seals
					damageEntry(t, e)
				}
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

// TestConcurrentProcessesShareTheCache: jsprof processes started together
// on one cache directory, two programs of each of two plugins (more
// processes than the machine's cores, two on each engine), each compile,
// store, read and trim the cache while the others do. First the cache is
// empty, so they all compile and store the same entries at once; then it
// is kept to 1 MB, smaller than one compiled engine, so that every process
// evicts the entries the others are reading. Every run must still succeed,
// print its program's output, write a profile that names its function
// and warn of nothing.
func TestConcurrentProcessesShareTheCache(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs rounds of four jsprof processes")
	}
	bin := jsprofProcess(t)
	type program struct{ module, want string }
	var programs []program
	for _, plugin := range []string{"javy-plugin-1.1.0", "javy-plugin-1.7.0"} {
		for i := range 2 {
			src := fmt.Sprintf("function f%d(n) { return n < 2 ? n : f%d(n - 1) + f%d(n - 2); }\nconsole.log(f%d(%d));\n", i, i, i, i, 10+i)
			module := filepath.Join(t.TempDir(), "index.wasm")
			require.NoError(t, os.WriteFile(module, buildSource(t, plugin, src), 0o644))
			programs = append(programs, program{module, fmt.Sprint([]int{55, 89}[i]) + "\n"})
		}
	}
	cache := t.TempDir()
	rounds := []struct {
		name string
		size string // --cache-size, MB
	}{
		{"empty cache", "512"},
		{"warm cache", "512"},
		{"evicting", "1"},
		{"evicting again", "1"},
	}
	for _, round := range rounds {
		var wg sync.WaitGroup
		type result struct {
			err                  error
			stdout, stderr, prof string
		}
		results := make([]result, len(programs))
		for i, p := range programs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i].prof = filepath.Join(t.TempDir(), "p.pb.gz")
				cmd := exec.Command(bin, "run", "-q", "--cache-dir", cache, "--cache-size", round.size, "-o", results[i].prof, p.module)
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				results[i].err = cmd.Run()
				results[i].stdout, results[i].stderr = stdout.String(), stderr.String()
			}()
		}
		wg.Wait()
		for i, r := range results {
			assert.NoError(t, r.err, "%s, program %d: %s", round.name, i, r.stderr)
			assert.Equal(t, programs[i].want, r.stdout, "%s, program %d", round.name, i)
			assert.Empty(t, r.stderr, "%s, program %d", round.name, i)
			var named []string
			for _, f := range readProfile(t, r.prof).Function {
				named = append(named, f.Name)
			}
			assert.Contains(t, named, fmt.Sprint("f", i%2), "%s, program %d: its function named", round.name, i)
		}
	}
}

// TestCacheSizeFromEnv: $JSPROF_CACHE_SIZE is --cache-size's default, as
// $JSPROF_CACHE_DIR is --cache-dir's; a value that is not a whole number
// of MB is said in one warning, and the run keeps the default bound.
func TestCacheSizeFromEnv(t *testing.T) {
	t.Setenv("JSPROF_CACHE_SIZE", "77")
	help := jsprof(t, "", "run", "--help")
	require.Equal(t, 0, help.code, help.stderr)
	assert.Contains(t, help.stdout, "(env JSPROF_CACHE_SIZE) (default 77)")

	for _, bad := range []string{"lots", "0", "-5", "1.5"} {
		t.Run(bad, func(t *testing.T) {
			t.Setenv("JSPROF_CACHE_SIZE", bad)
			got := jsprof(t, "", "run", "--mode", "off", "--cache-dir", t.TempDir(), "testdata/exit3.wasm")
			assert.Equal(t, 3, got.code, got.stderr)
			assert.Equal(t, fmt.Sprintf("jsprof: warning: JSPROF_CACHE_SIZE=%q is not a whole number of MB; the cache is kept within 512 MB\n", bad), got.stderr)
		})
	}
	// The negative control: a good value says nothing.
	t.Setenv("JSPROF_CACHE_SIZE", "64")
	got := jsprof(t, "", "run", "--mode", "off", "--cache-dir", t.TempDir(), "testdata/exit3.wasm")
	assert.Equal(t, 3, got.code)
	assert.Empty(t, got.stderr)
}
