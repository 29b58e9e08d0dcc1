package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/google/pprof/profile"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/wasmcore"
)

// invocation is one in-process run of jsprof.
type invocation struct {
	code           int
	stdout, stderr string
}

// jsprof runs Main with args, the shared compilation cache and stdin.
func jsprof(t testing.TB, stdin string, args ...string) invocation {
	t.Helper()
	var out, errOut bytes.Buffer
	if len(args) > 0 && (args[0] == "build" || args[0] == "run") {
		extra := []string{"--cache-dir", fixtures.CompileCacheDir()}
		if args[0] == "run" && !slices.Contains(args, "-o") && !unprofiled(args) {
			extra = append(extra, "-o", filepath.Join(t.TempDir(), "jsprof.pb.gz"))
		}
		args = append(append([]string{args[0]}, extra...), args[1:]...)
	}
	code := Main(context.Background(), args, stdio{in: strings.NewReader(stdin), out: &out, err: &errOut})
	return invocation{code: code, stdout: out.String(), stderr: errOut.String()}
}

// unprofiled says whether a run's arguments ask for --mode off, which writes
// no profile (and takes no -o).
func unprofiled(args []string) bool {
	for i, a := range args {
		if a == "--mode=off" || a == "-mode=off" || (a == "--mode" || a == "-mode") && i+1 < len(args) && args[i+1] == "off" {
			return true
		}
	}
	return false
}

var javyPlugins = []string{"javy-plugin-1.7.0", "javy-plugin-1.1.0"}

// jsPrograms lists fixtures/js/*.js with their expected output.
func jsPrograms(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob(fixtures.Path("js", "*.js"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no JS fixtures")
	out := map[string]string{}
	for _, f := range files {
		want, err := os.ReadFile(strings.TrimSuffix(f, ".js") + ".expected")
		require.NoError(t, err)
		out[f] = string(want)
	}
	return out
}

// TestStaticAndDynamicAgree: every fixture program, and the two programs
// of issue 28 whose functions a dynamic build once misnamed (the engine
// had freed the plugin's start-up code and read the program into its
// place), built static and dynamic on both plugins, prints what it should,
// passes its self-check, and the two builds' profiles have the same opcode
// executions, functions and calls: the program's bytecode is the same,
// only the engine's start-up differs.
func TestStaticAndDynamicAgree(t *testing.T) {
	programs := jsPrograms(t)
	for _, name := range []string{"fib20", "recurse"} {
		programs[filepath.Join("testdata", name+".js")] = readFileText(t, filepath.Join("testdata", name+".expected"))
	}
	// Program by program, so that the two subtests running at once on a
	// fresh machine compile two engines side by side, not one twice.
	for src, want := range programs {
		for _, plugin := range javyPlugins {
			pluginPath := fixtures.EnginePath(t, plugin)
			t.Run(plugin+"/"+filepath.Base(src), func(t *testing.T) {
				t.Parallel()
				var views [2]profileFacts
				for i, dynamic := range []bool{false, true} {
					dir := t.TempDir()
					out := filepath.Join(dir, "index.wasm")
					args := []string{"build", "--plugin", pluginPath, src, "-o", out}
					run := []string{"run", "--report-json", filepath.Join(dir, "report.json"), out}
					if dynamic {
						args = append(args, "--dynamic")
						run = []string{"run", "--plugin", pluginPath, "--report-json", filepath.Join(dir, "report.json"), out}
					}
					built := jsprof(t, "", args...)
					require.Equal(t, 0, built.code, "build: %s", built.stderr)
					ran := jsprof(t, "", run...)
					require.Equal(t, 0, ran.code, "stderr: %s", ran.stderr)
					assert.Equal(t, want, ran.stdout)
					assert.NotContains(t, ran.stderr, "warning", "dynamic %v", dynamic)
					views[i] = readProfileFacts(t, filepath.Join(dir, "report.json"))
				}
				assert.Equal(t, views[0], views[1], "static, then dynamic")
				assert.NotContains(t, fmt.Sprint(views[1].Functions), "anonymous@", "every function named")
			})
		}
	}
}

// profileFacts are what a program's bytecode decides in a profile, however
// its engine was built: opcode executions and functions' calls.
type profileFacts struct {
	Opcodes   map[string]uint64   // executions by opcode name
	Functions map[string][]string // by kind, name, file and line: calls, executions and opcode executions of each
}

// readProfileFacts reads them from a --report-json document.
func readProfileFacts(t *testing.T, path string) profileFacts {
	t.Helper()
	var doc struct {
		CheckedFunctions int               `json:"checked_functions"`
		CheckFailures    []json.RawMessage `json:"check_failures"`
		Opcodes          []struct {
			Name       string `json:"name"`
			Executions uint64 `json:"executions"`
		} `json:"opcodes"`
		Functions []struct {
			Name, Kind, File string
			Line             int
			Calls            uint64
			Executions       uint64
			Opcodes          []struct {
				Name       string `json:"name"`
				Executions uint64 `json:"executions"`
			}
		} `json:"functions"`
	}
	require.NoError(t, json.Unmarshal([]byte(readFileText(t, path)), &doc))
	assert.Positive(t, doc.CheckedFunctions, "the run checked itself")
	assert.Empty(t, doc.CheckFailures, "and passed")
	facts := profileFacts{Opcodes: map[string]uint64{}, Functions: map[string][]string{}}
	for _, o := range doc.Opcodes {
		if o.Executions > 0 {
			facts.Opcodes[o.Name] = o.Executions
		}
	}
	for _, f := range doc.Functions {
		var ops []string
		for _, o := range f.Opcodes {
			if o.Executions > 0 {
				ops = append(ops, fmt.Sprintf("%s=%d", o.Name, o.Executions))
			}
		}
		slices.Sort(ops)
		key := fmt.Sprintf("%s %s %s:%d", f.Kind, f.Name, f.File, f.Line)
		facts.Functions[key] = append(facts.Functions[key], fmt.Sprintf("calls=%d executions=%d %s", f.Calls, f.Executions, strings.Join(ops, " ")))
	}
	for _, v := range facts.Functions {
		slices.Sort(v)
	}
	return facts
}

func TestBuildReportsCompileErrors(t *testing.T) {
	src := filepath.Join(t.TempDir(), "broken.js")
	require.NoError(t, os.WriteFile(src, []byte("function f( {\n"), 0o644))
	for _, plugin := range javyPlugins {
		t.Run(plugin, func(t *testing.T) {
			got := jsprof(t, "", "build", "--plugin", fixtures.EnginePath(t, plugin), src, "-o", filepath.Join(t.TempDir(), "x.wasm"))
			assert.Equal(t, cli.ExitFailure, got.code)
			assert.Contains(t, got.stderr, "broken.js: ")
			assert.Contains(t, got.stderr, "invalid property name")
			assert.NotContains(t, got.stderr, "panicked")
			assert.Equal(t, 1, strings.Count(got.stderr, "\n"), "one line: %q", got.stderr)
		})
	}
}

func TestRunExitCodesAndErrors(t *testing.T) {
	dir := t.TempDir()
	truncated := filepath.Join(dir, "truncated.wasm")
	plugin, err := os.ReadFile(fixtures.EnginePath(t, "javy-plugin-1.7.0"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(truncated, plugin[:len(plugin)/2], 0o644))
	garbage := filepath.Join(dir, "garbage.wasm")
	require.NoError(t, os.WriteFile(garbage, []byte("this is not wasm at all"), 0o644))
	dynamic := filepath.Join(dir, "dynamic.wasm")
	fib := fixtures.Path("js", "fib.js")
	require.Equal(t, 0, jsprof(t, "", "build", "--dynamic", "--plugin", fixtures.EnginePath(t, "javy-plugin-1.7.0"), fib, "-o", dynamic).code)
	// A Javy plugin of another namespace than the module imports: the
	// newer plugin, declaring another in its import_namespace section.
	otherNS := filepath.Join(dir, "other.wasm")
	m, err := wasmcore.Decode(plugin)
	require.NoError(t, err)
	renamed := false
	for i := range m.Customs {
		if m.Customs[i].Name == javy.ImportNamespaceSection {
			m.Customs[i].Data, renamed = []byte("javy_other_sdk"), true
		}
	}
	require.True(t, renamed, "the plugin declares its namespace")
	other, err := m.Encode()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(otherNS, other, 0o644))

	tests := []struct {
		name     string
		args     []string
		code     int
		inStderr string
	}{
		{"exit code passes through", []string{"run", "--mode", "off", "testdata/exit3.wasm"}, 3, ""},
		{"trap", []string{"run", "--mode", "off", "testdata/trap.wasm"}, 134, "guest trapped: wasm error: unreachable"},
		{"unresolved import names it", []string{"run", "--mode", "off", "testdata/unresolved.wasm"}, 134, "env.missing_host_function, which jsprof does not provide"},
		{"no _start", []string{"run", "--mode", "off", "testdata/reactor.wasm"}, cli.ExitFailure, "no _start or shopify_main export"},
		{"no interpreter, report asked", []string{"run", "--report", "testdata/exit3.wasm"}, 3, "holds no JS interpreter to profile"},
		{"bad --mode", []string{"run", "--mode", "fast", "testdata/exit3.wasm"}, cli.ExitUsage, "want exact, sample or off"},
		{"truncated module", []string{truncated}, cli.ExitFailure, "truncated.wasm"},
		{"not wasm", []string{garbage}, cli.ExitFailure, "garbage.wasm"},
		{"missing module", []string{filepath.Join(dir, "nope.wasm")}, cli.ExitFailure, "no such file"},
		{"missing plugin", []string{"run", "--plugin", filepath.Join(dir, "nope.wasm"), dynamic}, cli.ExitFailure, "plugin"},
		{"dynamic without plugin", []string{"run", "--mode", "off", dynamic}, cli.ExitFailure, ": give its plugin with --plugin"},
		{"plugin is not a plugin", []string{"run", "--plugin", "testdata/trap.wasm", dynamic}, cli.ExitFailure, "not a Javy plugin"},
		{"plugin of another namespace", []string{"run", "--plugin", otherNS, dynamic}, cli.ExitFailure,
			"the module imports javy_chainlink_sdk, but plugin " + otherNS + " is javy_other_sdk (by its import_namespace section)"},
		{"plugin of another ABI", []string{"run", "--plugin", fixtures.EnginePath(t, "javy-plugin-1.1.0"), dynamic}, cli.ExitFailure,
			"(javy_chainlink_sdk) exports no func cabi_realloc, which the function imports from it"},
		{"bad --env", []string{"run", "--mode", "off", "--env", "NOEQUALS", "testdata/exit3.wasm"}, cli.ExitFailure, "KEY=VALUE"},
		{"bad --dir", []string{"run", "--dir", filepath.Join(dir, "nodir"), "testdata/exit3.wasm"}, cli.ExitUsage, "not a directory"},
		{"build without plugin", []string{"build", fib}, cli.ExitUsage, "--plugin is required"},
		{"build with missing plugin", []string{"build", "--plugin", filepath.Join(dir, "nope.wasm"), fib}, cli.ExitFailure, "no such file"},
		{"no arguments", nil, cli.ExitUsage, "usage: jsprof"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := jsprof(t, "", tt.args...)
			assert.Equal(t, tt.code, got.code, "stderr: %s", got.stderr)
			assert.Contains(t, got.stderr, tt.inStderr)
			if strings.HasPrefix(tt.name, "plugin of another") {
				assert.NotContains(t, got.stderr, "needs --plugin", "the plugin given is named, not asked for")
			}
			if tt.code != 0 && tt.code != 3 && tt.name != "no arguments" {
				assert.Equal(t, 1, strings.Count(got.stderr, "\n"), "one-line error: %q", got.stderr)
				assert.True(t, strings.HasPrefix(got.stderr, "jsprof: "), "%q", got.stderr)
			}
		})
	}
}

func TestHelpForEveryCommand(t *testing.T) {
	for _, c := range commands() {
		t.Run(c.name, func(t *testing.T) {
			got := jsprof(t, "", c.name, "--help")
			assert.Equal(t, 0, got.code)
			assert.Contains(t, got.stdout, "usage: jsprof")
		})
	}
	got := jsprof(t, "", "--help")
	assert.Equal(t, 0, got.code)
	for _, c := range commands() {
		assert.Contains(t, got.stdout, c.name)
	}
}

func TestRunGrantsOnlyWhatIsGiven(t *testing.T) {
	t.Setenv("JSPROF_HOST_SECRET", "do-not-leak")
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("granted file\n"), 0o644))

	t.Run("nothing granted", func(t *testing.T) {
		got := jsprof(t, "", "run", "testdata/wasiecho.wasm", "@/data/hello.txt")
		require.Equal(t, 0, got.code, got.stderr)
		assert.Equal(t, "arg[0]=wasiecho.wasm\narg[1]=@/data/hello.txt\nstdin=\nopen /data/hello.txt: failed\n", got.stdout)
		assert.NotContains(t, got.stdout, "do-not-leak")
	})
	t.Run("env, dir, args and stdin granted", func(t *testing.T) {
		got := jsprof(t, "piped input", "run", "--env", "GREETING=hi", "--env", "EMPTY=", "--dir", dir+":/data",
			"testdata/wasiecho.wasm", "--", "@/data/hello.txt", "plain")
		require.Equal(t, 0, got.code, got.stderr)
		assert.Equal(t, "arg[0]=wasiecho.wasm\narg[1]=@/data/hello.txt\narg[2]=plain\nenv GREETING=hi\nenv EMPTY=\n"+
			"stdin=piped input\nfile /data/hello.txt: granted file\n", got.stdout)
	})
	t.Run("guest exit code", func(t *testing.T) {
		got := jsprof(t, "", "run", "--mode", "off", "testdata/wasiecho.wasm", "fail")
		assert.Equal(t, 42, got.code)
	})
}

func TestAnalyze(t *testing.T) {
	tests := []struct {
		name     string
		module   string
		dispatch bool
		family   string
		kind     string
	}{
		{"javy plugin", fixtures.EnginePath(t, "javy-plugin-1.7.0"), true, "quickjs-ng", "plugin"},
		{"plain C program", fixtures.Path("plain", "plain-O2.wasm"), false, "unknown", "none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := jsprof(t, "", "analyze", "--json", tt.module)
			require.Equal(t, 0, got.code, got.stderr)
			var report struct {
				Dispatch *struct {
					FunctionIndex uint32 `json:"function_index"`
					OpcodeCount   int    `json:"opcode_count"`
				} `json:"dispatch"`
				Reason string `json:"reason"`
				Engine struct {
					Family string `json:"family"`
				} `json:"engine"`
				Javy struct {
					Kind string `json:"kind"`
				} `json:"javy"`
			}
			require.NoError(t, json.Unmarshal([]byte(got.stdout), &report))
			assert.Equal(t, tt.dispatch, report.Dispatch != nil, report.Reason)
			assert.NotEmpty(t, report.Reason)
			assert.Equal(t, tt.family, report.Engine.Family)
			assert.Equal(t, tt.kind, report.Javy.Kind)

			text := jsprof(t, "", "analyze", tt.module)
			assert.Equal(t, 0, text.code)
			if tt.dispatch {
				assert.Contains(t, text.stdout, "dispatch: function 338")
			}
		})
	}
	got := jsprof(t, "", "analyze", "testdata/nope.wasm")
	assert.Equal(t, cli.ExitFailure, got.code)
	assert.Contains(t, got.stderr, "nope.wasm")
}

// TestRunReport: exact mode on both Javy plugins, static and dynamic.
func TestRunReport(t *testing.T) {
	t.Parallel()
	for _, plugin := range javyPlugins {
		for _, dynamic := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/dynamic=%v", plugin, dynamic), func(t *testing.T) {
				dir := t.TempDir()
				module := filepath.Join(dir, "fib.wasm")
				args := []string{"build", "--plugin", fixtures.EnginePath(t, plugin), fixtures.Path("js", "fib.js"), "-o", module}
				if dynamic {
					args = append(args, "--dynamic")
				}
				require.Equal(t, 0, jsprof(t, "", args...).code)
				pprofPath := filepath.Join(dir, "fib.pb.gz")
				runArgs := func(report string) []string {
					run := []string{"run", "-o", pprofPath, "--report", "--report-json", report}
					if dynamic {
						run = append(run, "--plugin", fixtures.EnginePath(t, plugin))
					}
					return append(run, module)
				}
				report := filepath.Join(dir, "cost.json")
				got := jsprof(t, "", runArgs(report)...)
				require.Equal(t, 0, got.code, got.stderr)
				assert.Equal(t, "fib(20) = 6765\n", got.stdout, "the report stays out of the guest's stdout")
				assert.Contains(t, got.stderr, "call1")

				var cost reportJSON
				b, err := os.ReadFile(report)
				require.NoError(t, err)
				require.NoError(t, json.Unmarshal(b, &cost))
				require.NotEmpty(t, cost.Opcodes)
				var fib *functionJSON
				var sum uint64
				for i, f := range cost.Functions {
					if f.Calls == 21891 {
						fib = &cost.Functions[i]
					}
					sum += f.SelfWasmInstructions
				}
				require.NotNil(t, fib, "a function called exactly 21891 times: fib(20)")
				assert.Equal(t, "fib", fib.Name)
				assert.Equal(t, "fib.js", fib.File, "Javy compiles the program as function.mjs; jsprof build records fib.js")
				assert.Equal(t, 1, fib.Line)
				assert.Greater(t, fib.SelfWasmInstructions, cost.TotalWasmInstructions/2)
				for _, b := range cost.Buckets {
					sum += b.WasmInstructions
				}
				assert.Equal(t, cost.TotalWasmInstructions, sum, "functions and buckets add up to the total")

				// The profile carries the same exact figures.
				pf, err := os.Open(pprofPath)
				require.NoError(t, err)
				prof, err := profile.Parse(pf)
				pf.Close()
				require.NoError(t, err)
				require.NoError(t, prof.CheckValid())
				var instr, calls int64
				for _, s := range prof.Sample {
					instr += s.Value[jsprofile.ValueInstructions]
					calls += s.Value[jsprofile.ValueCalls]
				}
				assert.Equal(t, int64(cost.TotalWasmInstructions), instr)
				assert.Contains(t, prof.Comments, fmt.Sprintf("jsprof.total_wasm_instructions=%d", cost.TotalWasmInstructions))
				assert.GreaterOrEqual(t, calls, int64(21891))

				again := filepath.Join(dir, "again.json")
				require.Equal(t, 0, jsprof(t, "", runArgs(again)...).code)
				b2, err := os.ReadFile(again)
				require.NoError(t, err)
				assert.Equal(t, string(b), string(b2), "identical across runs")
			})
		}
	}
}

// TestRunReportResolvesGenerators: generators and async functions resume
// mid-buffer with their saved state, not a function object; every one must
// still be charged to its own bytecode buffer, with its length known.
func TestRunReportResolvesGenerators(t *testing.T) {
	t.Parallel()
	for _, plugin := range javyPlugins {
		t.Run(plugin, func(t *testing.T) {
			dir := t.TempDir()
			module := filepath.Join(dir, "generators.wasm")
			require.Equal(t, 0, jsprof(t, "", "build", "--plugin", fixtures.EnginePath(t, plugin), fixtures.Path("js", "generators.js"), "-o", module).code)
			wasm, err := os.ReadFile(module)
			require.NoError(t, err)
			out, res, err := profiler.Profile(context.Background(), wasm,
				runner.Options{Name: "generators.wasm", Cache: fixtures.CompilationCache(t)}, profiler.Options{Mode: profiler.Exact})
			require.NoError(t, err)
			require.Nil(t, res.Trap)
			resumed := 0
			for _, f := range out.Results.Functions {
				assert.NotZero(t, f.Length, "function at %#x: bytecode length unknown", f.Address)
				resumed += len(f.Resumptions)
			}
			assert.Greater(t, resumed, 5, "generators resumed at several points")
		})
	}
}

// reportJSON is what scripts read of jsprof run --report-json (and of
// jsprof report --json): the fields the schema promises (docs/reports.md).
type reportJSON struct {
	TotalWasmInstructions uint64 `json:"total_wasm_instructions"`
	Opcodes               []struct {
		Name             string `json:"name"`
		Executions       uint64 `json:"executions"`
		WasmInstructions uint64 `json:"wasm_instructions"`
	} `json:"opcodes"`
	Functions []functionJSON `json:"functions"`
	Buckets   []struct {
		Name             string `json:"name"`
		WasmInstructions uint64 `json:"wasm_instructions"`
	} `json:"buckets"`
}

type functionJSON struct {
	Name                  string `json:"name"`
	File                  string `json:"file"`
	Line                  int    `json:"line"`
	Calls                 uint64 `json:"calls"`
	SelfWasmInstructions  uint64 `json:"self_wasm_instructions"`
	TotalWasmInstructions uint64 `json:"total_wasm_instructions"`
	Opcodes               []struct {
		Name       string `json:"name"`
		Executions uint64 `json:"executions"`
	} `json:"opcodes"`
}

// TestRunReportIsTheSummary: what run --report prints is jsprof report
// --by summary of the profile it wrote, and --report-json is that view's
// JSON: one computation of the tables for both.
func TestRunReportIsTheSummary(t *testing.T) {
	dir := t.TempDir()
	module := filepath.Join(dir, "fib.wasm")
	require.Equal(t, 0, jsprof(t, "", "build", "--plugin", fixtures.EnginePath(t, "javy-plugin-1.7.0"), fixtures.Path("js", "fib.js"), "-o", module).code)
	prof, doc := filepath.Join(dir, "fib.pb.gz"), filepath.Join(dir, "cost.json")
	run := jsprof(t, "", "run", "-q", "-o", prof, "--report", "--report-json", doc, module)
	require.Equal(t, 0, run.code, run.stderr)

	text := jsprof(t, "", "report", "--by", "summary", prof)
	require.Equal(t, 0, text.code, text.stderr)
	assert.Equal(t, text.stdout, run.stderr)
	assert.Contains(t, run.stderr, "fib (fib.js:1)")

	js := jsprof(t, "", "report", "--by", "summary", "--json", prof)
	require.Equal(t, 0, js.code, js.stderr)
	assert.JSONEq(t, js.stdout, readFileText(t, doc))
}
