package link

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/measure/meter"
	"github.com/jsprof/jsprof/wasmcore"
)

// TestLinkRefusals: what a module's imports cannot be linked with is one
// error saying why; a module that imports only what jsprof serves links
// nothing (the negative control).
func TestLinkRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	providers := filepath.Join(dir, "providers")
	require.NoError(t, os.Mkdir(providers, 0o755))
	fn := func(module, name string) wasmcore.Import {
		return wasmcore.Import{Module: module, Name: name, Kind: wasmcore.ExternFunc}
	}
	tests := []struct {
		name    string
		imports []wasmcore.Import
		paths   []string
		want    string // "": links nothing
	}{
		{"static", []wasmcore.Import{fn("wasi_snapshot_preview1", "fd_write"), fn("env", "abort")}, nil, ""},
		{"jsprof's names", []wasmcore.Import{fn(meter.HostModule, "count")}, nil, "only jsprof's own instrumentation may use jsprof's names"},
		{"jsprof's names in another module", []wasmcore.Import{fn("plugin", meter.HostModule+".state")}, nil, "only jsprof's own instrumentation"},
		{"two plugins", []wasmcore.Import{fn("a", "f"), fn("b", "g")}, nil, "the module imports a, b: jsprof links one plugin"},
		{"no --plugin", []wasmcore.Import{fn("my_plugin", "f")}, nil, "the module imports my_plugin: give its plugin with --plugin"},
		{"no provider", []wasmcore.Import{fn("javy_quickjs_provider_v9", "f")}, nil, "the function imports provider javy_quickjs_provider_v9: give its file"},
		{"a path out of the folder", []wasmcore.Import{fn("../x", "f")}, []string{providers}, "which no --plugin declares"},
		{"a plugin file missing", []wasmcore.Import{fn("p", "f")}, []string{filepath.Join(dir, "absent.wasm")}, "plugin: open "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l, err := Link(&wasmcore.Module{Imports: tt.imports}, tt.paths)
			if tt.want == "" {
				require.NoError(t, err)
				assert.Equal(t, Linking{}, l)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestReadModule: a module file is read and decoded; what is not one is
// an error naming the file.
func TestReadModule(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "m.wasm"), filepath.Join(dir, "bad.wasm")
	require.NoError(t, os.WriteFile(good, []byte("\x00asm\x01\x00\x00\x00"), 0o644))
	require.NoError(t, os.WriteFile(bad, []byte("not wasm"), 0o644))
	wasm, m, err := ReadModule(good)
	require.NoError(t, err)
	assert.Len(t, wasm, 8)
	assert.NotNil(t, m)
	_, _, err = ReadModule(bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), bad)
	_, _, err = ReadModule(filepath.Join(dir, "absent.wasm"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}
