package bytecode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/bctest"
)

// providerWant is what each of function-runner's providers must give:
// the layout its release writes and the version byte.
var providerWant = map[string]struct {
	layout  string
	version byte
}{
	"javy_quickjs_provider_v1":  {"B2020", 2},
	"shopify_functions_javy_v4": {"NG13", 0x1a},
}

// formatPrograms are the programs compiled with the providers.
var formatPrograms = []string{"fib", "classes", "generators"}

// providerSource is a fixture program as a provider can compile it:
// Bellard's QuickJS before 2024 has no top-level await, so generators.js's
// awaiting tail (from line 82) runs in an async arrow function started on
// the same line, leaving every line of the program in place.
func providerSource(tb testing.TB, provider, program string) []byte {
	src := string(bctest.Source(tb, program))
	if program == "generators" && noTLA(provider) {
		const tail = "const total = await"
		require.Contains(tb, src, tail)
		src = strings.Replace(src, tail, "(async () => { "+tail, 1) + "})();\n"
	}
	return []byte(src)
}

// noTLA says whether an engine predates top-level await (Bellard's
// QuickJS before 2024).
func noTLA(engine string) bool {
	return engine == "javy_quickjs_provider_v1" || engine == "qjsrunner-2021-03-27" || releaseWant[engine].noTLA
}

// sparseLines says whether an engine writes pc → line entries only at
// calls, new and expression statements (QuickJS-NG v0.7-v0.8, 73cc00e):
// fib's "if (n < 2) return n;" (line 2) then has none, and the engine
// itself reports line 1 there.
func sparseLines(engine string) bool {
	return releaseWant[engine].sparseLines
}

// formatsPath joins elem under testdata/formats: real serialized bytecode
// of the providers, kept so that the fuzz targets and TestFormatsTestdata
// run where the providers are absent.
func formatsPath(elem ...string) string {
	return filepath.Join(append([]string{"testdata", "formats"}, elem...)...)
}

// formatsSpec returns a provider's engine description kept in testdata.
func formatsSpec(tb testing.TB, provider string) EngineSpec {
	tb.Helper()
	return readSpec(tb, formatsPath(provider+".json"))
}

// readSpec returns the engine description of the bctest.SpecFile at path.
func readSpec(tb testing.TB, path string) EngineSpec {
	tb.Helper()
	b, err := os.ReadFile(path)
	require.NoError(tb, err)
	var sf bctest.SpecFile
	require.NoError(tb, json.Unmarshal(b, &sf))
	return specOf(tb, sf)
}

// TestProviderFormats compiles the fixture programs with the real
// providers and reads them: the layout the identified release writes,
// and every function named at its line. It also checks (or with
// -update-bytecode rewrites) testdata/formats.
func TestProviderFormats(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the real providers")
	}
	for _, provider := range bctest.Providers {
		t.Run(provider, func(t *testing.T) {
			e := bctest.LoadProvider(t, provider)
			spec, err := EngineSpecForModule(e.Module, e.Report)
			require.NoError(t, err)
			want := providerWant[provider]
			files := map[string][]byte{provider + ".json": specFileJSON(t, spec)}
			for _, program := range formatPrograms {
				bc := e.Compile(t, providerSource(t, provider, program))
				files[provider+"-"+program+".bc"] = bc
				prog, err := Parse(bc, spec)
				require.NoError(t, err, program)
				assert.Equal(t, want.layout, prog.Layout.Name, program)
				assert.Equal(t, want.version, prog.Version, program)
				checkProviderNames(t, provider, program, prog)
			}
			checkTestdata(t, formatsPath, files, "TestProviderFormats")
		})
	}
}

// TestFormatsTestdata reads the kept provider bytecode without the
// providers.
func TestFormatsTestdata(t *testing.T) {
	for _, provider := range bctest.Providers {
		spec := formatsSpec(t, provider)
		for _, program := range formatPrograms {
			t.Run(provider+"/"+program, func(t *testing.T) {
				prog, err := Parse(readFormats(t, provider, program), spec)
				require.NoError(t, err)
				assert.Equal(t, providerWant[provider].layout, prog.Layout.Name)
				checkProviderNames(t, provider, program, prog)
			})
		}
	}
}

func readFormats(tb testing.TB, provider, program string) []byte {
	tb.Helper()
	b, err := os.ReadFile(formatsPath(provider + "-" + program + ".bc"))
	require.NoError(tb, err)
	return b
}

// checkProviderNames: the functions are those of namingWant, at their
// lines (the top-level await rewrite adds one anonymous function at line
// 82 and moves nothing), each function's table starting at pc 0.
func checkProviderNames(t *testing.T, provider, program string, prog *Program) {
	t.Helper()
	var got []namingEntry
	for _, f := range prog.Functions {
		got = append(got, namingEntry{f.DisplayName(), f.Line})
		assert.Equal(t, "function.mjs", f.File, f.DisplayName())
		require.NotEmpty(t, f.Lines, f.DisplayName())
		assert.Zero(t, f.Lines[0].PC, f.DisplayName())
		if prog.Format == FormatNG {
			assert.Positive(t, f.Column, f.DisplayName())
		}
	}
	want := namingWant[program]
	if program == "generators" && noTLA(provider) {
		want = append([]namingEntry(nil), want...)
		for i, e := range want {
			if e.Line > 82 {
				want = append(append(want[:i:i], namingEntry{"<anonymous>", 82}), want[i:]...)
				break
			}
		}
	}
	assert.Equal(t, want, got)
	if program == "fib" {
		var fib *Function
		for _, f := range prog.Functions {
			if f.Name == "fib" {
				fib = f
			}
		}
		require.NotNil(t, fib)
		assert.Equal(t, 1, fib.Line)
		// "return fib(n - 1) + fib(n - 2)" is line 3: the table says so
		// for some pc of fib.
		lines := map[int]bool{}
		for _, e := range fib.Lines {
			lines[e.Line] = true
		}
		assert.True(t, (lines[2] || sparseLines(provider)) && lines[3], "fib's lines %v", fib.Lines)
	}
}

// TestWasiFormats compiles the fixture programs with npm quickjs-wasi's
// QuickJS-NG builds, one per format version (0x17 NG12, 0x1a and 0x1c
// NG13), and reads them: every function named at its line.
func TestWasiFormats(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the real engines")
	}
	for name, want := range bctest.WasiEngines {
		t.Run(name, func(t *testing.T) {
			e := bctest.LoadWasiEngine(t, name)
			spec, err := EngineSpecForModule(e.Module, e.Report)
			require.NoError(t, err)
			layout := "NG13"
			if want.Version < 0x18 {
				layout = "NG12"
			}
			for _, program := range formatPrograms {
				bc := e.Compile(t, bctest.Source(t, program))
				require.Equal(t, want.Version, bc[0], program)
				prog, err := Parse(bc, spec)
				require.NoError(t, err, program)
				assert.Equal(t, layout, prog.Layout.Name, program)
				checkProviderNames(t, name, program, prog)
			}
		})
	}
}

// TestQJSRunnerFormats compiles the fixture programs with jsprof's own
// runner around Bellard QuickJS 2021-03-27 (npm qjsc@0.3.0's sources,
// built with Debian's clang for WASI) and reads them as B2020.
func TestQJSRunnerFormats(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a real engine")
	}
	q := bctest.LoadQJSRunner(t)
	spec, err := EngineSpecForModule(q.Module, q.Report)
	require.NoError(t, err)
	assert.Equal(t, "bellard-2020-11-08-c731a14a", spec.TableID)
	assert.Empty(t, spec.RQuickJS)
	for _, program := range formatPrograms {
		bc := q.Compile(t, providerSource(t, q.Name, program))
		require.Equal(t, byte(2), bc[0], program)
		prog, err := Parse(bc, spec)
		require.NoError(t, err, program)
		assert.Equal(t, "B2020", prog.Layout.Name, program)
		checkProviderNames(t, q.Name, program, prog)
	}
}
