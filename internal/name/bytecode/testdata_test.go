package bytecode

import (
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/internal/bctest"
)

// updateBytecode rewrites testdata/naming from the real engines:
//
//	go test ./internal/name/bytecode -run TestBytecodeTestdata -update-bytecode
var updateBytecode = flag.Bool("update-bytecode", false, "rewrite testdata/naming from the real engines")

// namingSpec returns the engine description kept in testdata.
func namingSpec(tb testing.TB, engine string) EngineSpec {
	tb.Helper()
	return specOf(tb, bctest.ReadSpecFile(tb, engine))
}

// specOf returns the engine description of a bctest.SpecFile, with the
// opcodes of its catalog table.
func specOf(tb testing.TB, sf bctest.SpecFile) EngineSpec {
	tb.Helper()
	info, ok := dispatch.OpcodeTable(sf.Table)
	require.True(tb, ok, "table %s", sf.Table)
	spec := EngineSpec{Family: sf.Family, TableID: sf.Table, Tables: sf.Tables, Releases: sf.Releases, RQuickJS: sf.RQuickJS, Atoms: sf.Atoms}
	for _, d := range info.Opcodes {
		spec.Opcodes = append(spec.Opcodes, OpcodeSpec{Name: d.Name, Size: d.Size, Fmt: info.FormatName(d), NPop: d.NPop, NPush: d.NPush})
	}
	return spec
}

// specFileJSON is what testdata keeps of spec: its bctest.SpecFile, as JSON.
func specFileJSON(tb testing.TB, spec EngineSpec) []byte {
	tb.Helper()
	sf := bctest.SpecFile{Family: spec.Family, Table: spec.TableID, Tables: spec.Tables, Releases: spec.Releases, RQuickJS: spec.RQuickJS, Atoms: spec.Atoms}
	b, err := json.MarshalIndent(sf, "", " ")
	require.NoError(tb, err)
	return append(b, '\n')
}

// checkTestdata checks that the files under path hold what the real
// engines wrote today, or with -update-bytecode rewrites them; test is
// the test that rewrites them.
func checkTestdata(t *testing.T, path func(elem ...string) string, files map[string][]byte, test string) {
	t.Helper()
	for name, b := range files {
		if *updateBytecode {
			require.NoError(t, os.MkdirAll(path(), 0o755))
			require.NoError(t, os.WriteFile(path(name), b, 0o644))
			continue
		}
		got, err := os.ReadFile(path(name))
		require.NoError(t, err)
		require.Equal(t, b, got, "%s is stale: run go test ./internal/name/bytecode -run %s -update-bytecode", name, test)
	}
}

// TestBytecodeTestdata checks that testdata/naming holds what the real
// engines produce today (or rewrites it with -update-bytecode).
func TestBytecodeTestdata(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the real engines")
	}
	for _, engine := range bctest.Plugins {
		t.Run(engine, func(t *testing.T) {
			e := loadEngine(t, engine)
			files := map[string][]byte{engine + ".json": specFileJSON(t, e.spec)}
			for _, p := range bctest.Programs {
				files[engine+"-"+p+".bc"] = e.Compile(t, bctest.Source(t, p))
			}
			checkTestdata(t, bctest.Path, files, "TestBytecodeTestdata")
		})
	}
}

// testEngine is a real engine with its spec, as the profiler derives it.
type testEngine struct {
	*bctest.Engine
	spec EngineSpec
}

func loadEngine(tb testing.TB, name string) testEngine {
	tb.Helper()
	e := bctest.LoadEngine(tb, name)
	spec, err := EngineSpecForModule(e.Module, e.Report)
	require.NoError(tb, err)
	return testEngine{e, spec}
}
