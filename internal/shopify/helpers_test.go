package shopify_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/wasmcore"
)

// providersDir is where function-runner's bundled providers are: shared/
// beside the repository (see its README). They are Shopify's, redistributed
// as test data only, and never copied into the repository.
const providersDir = "../../../shared/engines/function-runner"

// providerPath returns the path of a bundled provider, skipping the test
// when the folder is absent (a checkout without shared/).
func providerPath(t *testing.T, namespace string) string {
	t.Helper()
	path := filepath.Join(providersDir, namespace+".wasm")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("function-runner's providers are not available (%v): they live in shared/engines/function-runner beside the repository", err)
	}
	return path
}

func readProvider(t *testing.T, namespace string) ([]byte, *wasmcore.Module) {
	t.Helper()
	wasm, err := os.ReadFile(providerPath(t, namespace))
	require.NoError(t, err)
	m, err := wasmcore.Decode(wasm)
	require.NoError(t, err)
	return wasm, m
}
