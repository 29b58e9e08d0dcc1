package wasmcore

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/stretchr/testify/require"
)

// engineNames lists the real engines of fixtures/engines/engines.tsv.
func engineNames(t testing.TB) []string {
	t.Helper()
	engines, err := fixtures.Engines()
	require.NoError(t, err)
	var names []string
	for _, e := range engines {
		names = append(names, e.Name)
	}
	return names
}

type wasmInput struct {
	name string
	data []byte
}

// allInputs returns every real engine, every .wasm under fixtures (found at
// test time, so files added later are covered) and every .wasm in testdata.
// The caches under fixtures (folders named .cache) are left out: the
// engines fetched there are the pinned ones above, and the rest is what
// tests and builds left there. The compilation cache, which held hundreds
// of instrumented engines in a long-used checkout (5 minutes of this
// package's tests), now lives outside the module
// (fixtures.CompileCacheDir), and an older checkout's copy is removed by
// scripts/setup.sh.
func allInputs(t *testing.T) []wasmInput {
	t.Helper()
	var out []wasmInput
	seen := map[string]bool{}
	for _, name := range engineNames(t) {
		p := fixtures.EnginePath(t, name)
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		out = append(out, wasmInput{"engine/" + name, b})
		seen[p] = true
	}
	walk := func(root, prefix string) {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() && d.Name() == ".cache" {
				return filepath.SkipDir
			}
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".wasm") || seen[p] {
				return nil
			}
			abs, _ := filepath.Abs(p)
			if seen[abs] {
				return nil
			}
			seen[abs] = true
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			rel, _ := filepath.Rel(root, p)
			out = append(out, wasmInput{prefix + rel, b})
			return nil
		})
	}
	walk(fixtures.Dir(), "fixtures/")
	walk("testdata", "testdata/")
	return out
}
