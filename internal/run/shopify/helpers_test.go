package shopify_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/wasmcore"
)

// providerPath returns the path of a bundled provider, skipping the test
// when the folder is absent (a checkout without shared/).
func providerPath(t *testing.T, namespace string) string {
	t.Helper()
	return filepath.Join(fixtures.ProvidersDir(t), namespace+".wasm")
}

func readProvider(t *testing.T, namespace string) ([]byte, *wasmcore.Module) {
	t.Helper()
	wasm, err := os.ReadFile(providerPath(t, namespace))
	require.NoError(t, err)
	m, err := wasmcore.Decode(wasm)
	require.NoError(t, err)
	return wasm, m
}
