package jsframes

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/fixtures"
)

// updateBytecode rewrites testdata/naming from the real engines:
//
//	go test ./jsframes -run TestBytecodeTestdata -update-bytecode
var updateBytecode = flag.Bool("update-bytecode", false, "rewrite testdata/naming from the real engines")

// namingPrograms are the programs whose bytecode testdata keeps: fixture
// programs (the largest, classes, for the benchmark) and testdata's own
// variety.js, which has a constant and a definition of every kind.
var namingPrograms = []string{"fib", "classes", "generators", "trycatch", "variety"}

// namingSource reads a fixture program, or one of testdata/naming.
func namingSource(t testing.TB, program string) []byte {
	t.Helper()
	src, err := os.ReadFile(fixtures.Path("js", program+".js"))
	if os.IsNotExist(err) {
		src, err = os.ReadFile(namingPath(program + ".js"))
	}
	require.NoError(t, err)
	return src
}

// namingSpecFile is what testdata keeps of an engine: enough to parse its
// bytecode without the engine's binary.
type namingSpecFile struct {
	Family string   `json:"family"`
	Table  string   `json:"table"`
	Atoms  []string `json:"atoms"`
}

func namingPath(elem ...string) string {
	return filepath.Join(append([]string{"testdata", "naming"}, elem...)...)
}

// namingSpec returns the engine description kept in testdata.
func namingSpec(t testing.TB, engine string) EngineSpec {
	t.Helper()
	b, err := os.ReadFile(namingPath(engine + ".json"))
	require.NoError(t, err)
	var sf namingSpecFile
	require.NoError(t, json.Unmarshal(b, &sf))
	info, ok := dispatch.OpcodeTable(sf.Table)
	require.True(t, ok, "table %s", sf.Table)
	spec := EngineSpec{Family: sf.Family, TableID: sf.Table, Atoms: sf.Atoms}
	for _, d := range info.Opcodes {
		spec.Opcodes = append(spec.Opcodes, OpcodeSpec{Name: d.Name, Size: d.Size, Fmt: info.FormatName(d)})
	}
	return spec
}

// namingBytecode returns a fixture program's bytecode kept in testdata.
func namingBytecode(t testing.TB, engine, program string) []byte {
	t.Helper()
	b, err := os.ReadFile(namingPath(engine + "-" + program + ".bc"))
	require.NoError(t, err)
	return b
}

// TestBytecodeTestdata checks that testdata/naming holds what the real
// engines produce today (or rewrites it with -update-bytecode).
func TestBytecodeTestdata(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the real engines")
	}
	for _, engine := range namingPlugins {
		t.Run(engine, func(t *testing.T) {
			e := bcLoadEngine(t, engine)
			sf := namingSpecFile{Family: e.spec.Family, Table: e.spec.TableID, Atoms: e.spec.Atoms}
			want, err := json.MarshalIndent(sf, "", " ")
			require.NoError(t, err)
			want = append(want, '\n')
			files := map[string][]byte{engine + ".json": want}
			for _, p := range namingPrograms {
				files[engine+"-"+p+".bc"] = e.compile(t, namingSource(t, p))
			}
			for name, b := range files {
				if *updateBytecode {
					require.NoError(t, os.WriteFile(namingPath(name), b, 0o644))
					continue
				}
				got, err := os.ReadFile(namingPath(name))
				require.NoError(t, err)
				require.Equal(t, b, got, "%s is stale: run go test ./jsframes -run TestBytecodeTestdata -update-bytecode", name)
			}
		})
	}
}
