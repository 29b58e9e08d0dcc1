package bctest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
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

	// prepared holds, by preparedKey, the modules RunMetered
	// instrumented: the static modules built with the engine, their
	// program detached, are one module for every program (runMetered).
	// mu guards it.
	mu       sync.Mutex
	prepared map[preparedKey]*prepared
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
	Static *wasmcore.Module // the static module, as it was before instrumenting
	// Report is the analysis of the module the meter instrumented, which
	// jsprof run reads the static module's program with: Static, or
	// Static with its program detached (the same engine, functions and
	// program segment).
	Report  *dispatch.Report
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

// runMetered builds src into a static module and runs it under the meter
// as jsprof run does (internal/profiler/detach.go): with its program
// detached, so that what is analysed, instrumented and compiled is the
// same module for every program built with the engine, prepared once
// (e.prepared) and compiled once (e.Cache), and the program's bytes put
// back into the instance before it runs. Instruction counts and the
// guest's view of its memory are those of the static module run as it is
// (wasmcore.DetachSegment, meter.HostPages).
func (e *Engine) runMetered(tb testing.TB, src []byte, withNatives bool) *Run {
	tb.Helper()
	static, err := javy.BuildStatic(context.Background(), e.Wasm, e.Plugin, e.Compile(tb, src), e.Cache)
	require.NoError(tb, err)
	m, err := wasmcore.Decode(static)
	require.NoError(tb, err)
	seg := dispatch.ProgramSegment(m)
	require.GreaterOrEqual(tb, seg, 0, "the static module's program segment")
	dm := m.Clone() // m stays as it was, for naming
	detached, err := dm.DetachSegment(uint32(seg))
	require.NoError(tb, err)
	wasm, err := dm.Encode()
	require.NoError(tb, err)
	p, err := e.prepare(wasm, withNatives)
	require.NoError(tb, err)
	mt := meter.New(p.plan)
	start := func(ctx context.Context, mod api.Module) error {
		if err := mt.Start(ctx, mod); err != nil {
			return err
		}
		addr, grew, err := runner.RestoreDetached(mod, detached)
		if err == nil && grew > 0 {
			mt.HostPages(addr, addr+uint32(grew))
		}
		return err
	}
	return runWASI(tb, m, p.report, p.wasm, mt, start, runner.Options{Name: "fixture.wasm", Cache: e.Cache})
}

// preparedKey names a prepared module: the digest of the module before
// instrumenting, and whether its natives are metered.
type preparedKey struct {
	digest  [sha256.Size]byte
	natives bool
}

// prepared is a module rewritten with the meter, the meter's plan and
// the analysis of the module it was rewritten from.
type prepared struct {
	wasm   []byte
	plan   *meter.Plan
	report *dispatch.Report
}

// prepare returns wasm prepared for metering (prepareModule), prepared
// once for the engine.
func (e *Engine) prepare(wasm []byte, withNatives bool) (*prepared, error) {
	key := preparedKey{sha256.Sum256(wasm), withNatives}
	e.mu.Lock()
	defer e.mu.Unlock()
	if p, ok := e.prepared[key]; ok {
		return p, nil
	}
	p, err := prepareModule(wasm, withNatives)
	if err != nil {
		return nil, err
	}
	if e.prepared == nil {
		e.prepared = map[preparedKey]*prepared{}
	}
	e.prepared[key] = p
	return p, nil
}

// prepareModule analyses wasm and instruments it with the meter (its
// natives located, with withNatives), as RunMetered always has.
func prepareModule(wasm []byte, withNatives bool) (*prepared, error) {
	m, err := wasmcore.Decode(wasm)
	if err != nil {
		return nil, err
	}
	r, err := dispatch.Analyze(context.Background(), m)
	if err != nil {
		return nil, err
	}
	var opts meter.Options
	if withNatives {
		c, err := natives.FindCFunctionCalls(m, r)
		if err != nil {
			return nil, err
		}
		opts.Natives = &meter.NativeCalls{Func: c.Func, TableIndex: c.TableIndex, FuncOffset: c.FuncOffset, MagicOffset: c.MagicOffset, HasMagic: c.MagicOffset != 0}
		if c.TableIndex != 0 {
			for _, s := range c.ClassCalls {
				opts.Natives.ClassCalls = append(opts.Natives.ClassCalls, s.BodyOffset)
			}
		}
	}
	return instrument(wasm, r, opts)
}

// instrument rewrites wasm with the meter as jsprof run does, for the
// dispatch r found in it.
func instrument(wasm []byte, r *dispatch.Report, opts meter.Options) (*prepared, error) {
	if r.Dispatch == nil {
		return nil, fmt.Errorf("no dispatch: %s", r.Reason)
	}
	rewritten, err := wasmcore.Decode(wasm)
	if err != nil {
		return nil, err
	}
	plan, err := meter.Instrument(rewritten, r.Dispatch, opts)
	if err != nil {
		return nil, err
	}
	out, err := rewritten.Encode()
	if err != nil {
		return nil, err
	}
	return &prepared{wasm: out, plan: plan, report: r}, nil
}

// runWASI runs wasm, the module static instrumented with its meter, as a
// WASI command, deterministically, and returns the run; start readies
// each instance (mt.Start, or more) and the command must exit 0.
func runWASI(tb testing.TB, static *wasmcore.Module, r *dispatch.Report, wasm []byte, mt *meter.Meter, start func(context.Context, api.Module) error, opts runner.Options) *Run {
	tb.Helper()
	var stdout, stderr bytes.Buffer
	var inst api.Module
	opts.Stdout, opts.Stderr, opts.Deterministic = &stdout, &stderr, true
	opts.Link, opts.Context = mt.Link, mt.Context
	opts.Instantiated = func(ctx context.Context, mod api.Module) error {
		inst = mod
		return start(ctx, mod)
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
