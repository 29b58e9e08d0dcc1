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
func namingSpec(t testing.TB, engine string) EngineSpec {
	t.Helper()
	sf := bctest.ReadSpecFile(t, engine)
	info, ok := dispatch.OpcodeTable(sf.Table)
	require.True(t, ok, "table %s", sf.Table)
	spec := EngineSpec{Family: sf.Family, TableID: sf.Table, Tables: sf.Tables, Releases: sf.Releases, RQuickJS: sf.RQuickJS, Atoms: sf.Atoms}
	for _, d := range info.Opcodes {
		spec.Opcodes = append(spec.Opcodes, OpcodeSpec{Name: d.Name, Size: d.Size, Fmt: info.FormatName(d), NPop: d.NPop, NPush: d.NPush})
	}
	return spec
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
			sf := bctest.SpecFile{Family: e.spec.Family, Table: e.spec.TableID, Tables: e.spec.Tables, Releases: e.spec.Releases, RQuickJS: e.spec.RQuickJS, Atoms: e.spec.Atoms}
			want, err := json.MarshalIndent(sf, "", " ")
			require.NoError(t, err)
			want = append(want, '\n')
			files := map[string][]byte{engine + ".json": want}
			for _, p := range bctest.Programs {
				files[engine+"-"+p+".bc"] = e.Compile(t, bctest.Source(t, p))
			}
			for name, b := range files {
				if *updateBytecode {
					require.NoError(t, os.WriteFile(bctest.Path(name), b, 0o644))
					continue
				}
				got, err := os.ReadFile(bctest.Path(name))
				require.NoError(t, err)
				require.Equal(t, b, got, "%s is stale: run go test ./internal/name/bytecode -run TestBytecodeTestdata -update-bytecode", name)
			}
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
