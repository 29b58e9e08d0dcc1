package bctest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/internal/measure/meter"
	"github.com/jsprof/jsprof/internal/name/natives"
	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/wasmcore"
)

// Plugins are the two real engines naming must work on.
var Plugins = []string{"javy-plugin-1.7.0", "javy-plugin-1.1.0"}

// Programs are the programs whose bytecode testdata keeps: fixture
// programs (the largest, classes, for the benchmark) and testdata's own
// variety.js, which has a constant and a definition of every kind.
var Programs = []string{"fib", "classes", "generators", "trycatch", "variety"}

// Path joins elem under bytecode/testdata/naming.
func Path(elem ...string) string {
	return testdataPath("naming", elem...)
}

// ReleasesPath joins elem under bytecode/testdata/releases: the golden
// bytecode of every release (fixtures/engines/goldens/build.sh),
// <release>-<program>.bc, and <release>.json, a SpecFile.
func ReleasesPath(elem ...string) string {
	return testdataPath("releases", elem...)
}

func testdataPath(dir string, elem ...string) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("bctest: cannot locate source directory")
	}
	base := filepath.Join(filepath.Dir(file), "..", "..", "internal", "name", "bytecode", "testdata", dir)
	return filepath.Join(append([]string{base}, elem...)...)
}

// Source reads a fixture program, or one of testdata/naming.
func Source(tb testing.TB, program string) []byte {
	tb.Helper()
	src, err := os.ReadFile(fixtures.Path("js", program+".js"))
	if os.IsNotExist(err) {
		src, err = os.ReadFile(Path(program + ".js"))
	}
	require.NoError(tb, err)
	return src
}

// SpecFile is what testdata keeps of an engine: enough to parse its
// bytecode without the engine's binary.
type SpecFile struct {
	Family   string   `json:"family"`
	Table    string   `json:"table"`
	Tables   []string `json:"tables,omitempty"`
	Releases []string `json:"releases,omitempty"`
	RQuickJS string   `json:"rquickjs,omitempty"`
	Atoms    []string `json:"atoms"`
}

// ReadSpecFile returns the engine description kept in testdata.
func ReadSpecFile(tb testing.TB, engine string) SpecFile {
	tb.Helper()
	return readSpecFile(tb, Path(engine+".json"))
}

// ReadReleaseSpecFile returns a golden release's engine description.
func ReadReleaseSpecFile(tb testing.TB, release string) SpecFile {
	tb.Helper()
	return readSpecFile(tb, ReleasesPath(release+".json"))
}

func readSpecFile(tb testing.TB, path string) SpecFile {
	tb.Helper()
	var sf SpecFile
	require.NoError(tb, json.Unmarshal(readFile(tb, path), &sf))
	return sf
}

func readFile(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	require.NoError(tb, err)
	return b
}

// Bytecode returns a fixture program's bytecode kept in testdata.
func Bytecode(tb testing.TB, engine, program string) []byte {
	tb.Helper()
	return readFile(tb, Path(engine+"-"+program+".bc"))
}

// Releases returns the releases whose golden bytecode testdata keeps,
// sorted.
func Releases(tb testing.TB) []string {
	tb.Helper()
	files, err := filepath.Glob(ReleasesPath("*.json"))
	require.NoError(tb, err)
	var out []string
	for _, f := range files {
		out = append(out, strings.TrimSuffix(filepath.Base(f), ".json"))
	}
	slices.Sort(out)
	return out
}

// ReleaseBytecode returns a program's golden bytecode as a release wrote it.
func ReleaseBytecode(tb testing.TB, release, program string) []byte {
	tb.Helper()
	return readFile(tb, ReleasesPath(release+"-"+program+".bc"))
}

// Engine is a real Javy plugin, decoded and analysed.
type Engine struct {
	Name   string
	Wasm   []byte
	Module *wasmcore.Module
	Plugin javy.Plugin
	Report *dispatch.Report
	Cache  wazero.CompilationCache
}

// LoadEngine loads a pinned engine (fixtures/engines).
func LoadEngine(tb testing.TB, name string) *Engine {
	tb.Helper()
	return newEngine(tb, name, fixtures.EngineBytes(tb, name))
}

// newEngine decodes and analyses a Javy plugin or provider.
func newEngine(tb testing.TB, name string, wasm []byte) *Engine {
	tb.Helper()
	m, r := analyze(tb, wasm)
	p, err := javy.Inspect(m)
	require.NoError(tb, err)
	return &Engine{Name: name, Wasm: wasm, Module: m, Plugin: p, Report: r, Cache: fixtures.CompilationCache(tb)}
}

// analyze decodes a module and finds its dispatch.
func analyze(tb testing.TB, wasm []byte) (*wasmcore.Module, *dispatch.Report) {
	tb.Helper()
	m, err := wasmcore.Decode(wasm)
	require.NoError(tb, err)
	r, err := dispatch.Analyze(context.Background(), m)
	require.NoError(tb, err)
	return m, r
}

// Compile returns the serialized bytecode the plugin makes of src.
func (e *Engine) Compile(tb testing.TB, src []byte) []byte {
	tb.Helper()
	bc, err := javy.Compile(context.Background(), e.Plugin, e.Wasm, src, e.Cache)
	require.NoError(tb, err)
	return bc
}

// Run is one run of a static Javy module under the meter.
type Run struct {
	Static  *wasmcore.Module // the static module, as it was before instrumenting
	Report  *dispatch.Report // its analysis
	Results *costs.Results
	Memory  api.Memory // the instance's memory after the run
	Stdout  string
}

// RunMetered builds src into a static module with the engine, instruments
// it with the meter and runs it.
func (e *Engine) RunMetered(tb testing.TB, src []byte) *Run {
	tb.Helper()
	return e.runMetered(tb, src, false)
}

// RunMeteredNatives is RunMetered with the engine's native calls located
// (meter.Options.Natives, as internal/profiler does): Results.Natives and
// the natives' contexts, with their call sites, are filled in.
func (e *Engine) RunMeteredNatives(tb testing.TB, src []byte) *Run {
	tb.Helper()
	return e.runMetered(tb, src, true)
}

func (e *Engine) runMetered(tb testing.TB, src []byte, withNatives bool) *Run {
	tb.Helper()
	static, err := javy.BuildStatic(context.Background(), e.Wasm, e.Plugin, e.Compile(tb, src), e.Cache)
	require.NoError(tb, err)
	m, r := analyze(tb, static)
	require.NotNil(tb, r.Dispatch, r.Reason)
	var opts meter.Options
	if withNatives {
		c, err := natives.FindCFunctionCalls(m, r)
		require.NoError(tb, err)
		opts.Natives = &meter.NativeCalls{Func: c.Func, TableIndex: c.TableIndex, FuncOffset: c.FuncOffset, MagicOffset: c.MagicOffset, HasMagic: c.MagicOffset != 0}
		if c.TableIndex != 0 {
			for _, s := range c.ClassCalls {
				opts.Natives.ClassCalls = append(opts.Natives.ClassCalls, s.BodyOffset)
			}
		}
	}
	out, mt := instrument(tb, static, r, opts)
	return runWASI(tb, m, r, out, mt, runner.Options{Name: "fixture.wasm", Cache: e.Cache})
}

// instrument rewrites wasm with the meter as jsprof run does, for the
// dispatch r found in it, and returns the rewritten module and its meter.
func instrument(tb testing.TB, wasm []byte, r *dispatch.Report, opts meter.Options) ([]byte, *meter.Meter) {
	tb.Helper()
	require.NotNil(tb, r.Dispatch, r.Reason)
	rewritten, err := wasmcore.Decode(wasm)
	require.NoError(tb, err)
	plan, err := meter.Instrument(rewritten, r.Dispatch, opts)
	require.NoError(tb, err)
	out, err := rewritten.Encode()
	require.NoError(tb, err)
	return out, meter.New(plan)
}

// runWASI runs wasm, which instrument rewrote from static, as a WASI
// command with its meter, deterministically, and returns the run; the
// command must exit 0.
func runWASI(tb testing.TB, static *wasmcore.Module, r *dispatch.Report, wasm []byte, mt *meter.Meter, opts runner.Options) *Run {
	tb.Helper()
	var stdout, stderr bytes.Buffer
	var inst api.Module
	opts.Stdout, opts.Stderr, opts.Deterministic = &stdout, &stderr, true
	opts.Link, opts.Context = mt.Link, mt.Context
	opts.Instantiated = func(ctx context.Context, mod api.Module) error {
		inst = mod
		return mt.Start(ctx, mod)
	}
	res, err := runner.Run(context.Background(), wasm, opts)
	require.NoError(tb, err)
	require.Zero(tb, res.ExitCode, "stderr: %s; trap: %v", stderr.String(), res.Trap)
	results, err := mt.Collect()
	require.NoError(tb, err)
	return &Run{Static: static, Report: r, Results: results, Memory: inst.Memory(), Stdout: stdout.String()}
}

// Providers are Shopify function-runner's providers read by the format
// tests: Javy's provider v1 (Bellard QuickJS 2023-12-09, version 2) and
// shopify_functions_javy_v4 (QuickJS-NG v0.15-v0.16, version 0x1a).
var Providers = []string{"javy_quickjs_provider_v1", "shopify_functions_javy_v4"}

// LoadProvider loads one of function-runner's providers as an engine.
func LoadProvider(tb testing.TB, name string) *Engine {
	tb.Helper()
	return newEngine(tb, name, readFile(tb, filepath.Join(fixtures.ProvidersDir(tb), name+".wasm")))
}
