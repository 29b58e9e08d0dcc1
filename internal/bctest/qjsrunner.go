package bctest

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/measure/meter"
	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/wasmcore"
)

// QJSRunner is jsprof's own runner around Bellard QuickJS 2021-03-27
// (fixtures/engines/qjsrunner: sources from npm qjsc@0.3.0, built at test
// time with Debian's clang for WASI).
type QJSRunner struct {
	Name   string
	Wasm   []byte
	Module *wasmcore.Module
	Report *dispatch.Report
	Cache  wazero.CompilationCache

	// instrumented is the runner rewritten with the meter, made once.
	instrumented func() (*prepared, error)
}

var (
	qjsBuildOnce sync.Once
	qjsBuildErr  error
	qjsBuildOut  []byte
)

// LoadQJSRunner builds (once, cached) and loads the runner. The test is
// skipped, saying why, when clang-14 or the npm registry is not available;
// a build that fails otherwise fails the test.
func LoadQJSRunner(tb testing.TB) *QJSRunner {
	tb.Helper()
	qjsBuildOnce.Do(func() {
		cmd := exec.Command("bash", fixtures.Path("engines", "qjsrunner", "build.sh"))
		qjsBuildOut, qjsBuildErr = cmd.CombinedOutput()
	})
	var exit *exec.ExitError
	if errors.As(qjsBuildErr, &exit) && (exit.ExitCode() == 3 || exit.ExitCode() == 4) {
		tb.Skipf("qjsrunner cannot be built here: %s", bytes.TrimSpace(qjsBuildOut))
	}
	require.NoError(tb, qjsBuildErr, "%s", qjsBuildOut)
	wasm := readFile(tb, filepath.Join(fixtures.CacheDir(), "qjsrunner-2021-03-27.wasm"))
	m, r := analyze(tb, wasm)
	return &QJSRunner{Name: "qjsrunner-2021-03-27", Wasm: wasm, Module: m, Report: r, Cache: fixtures.CompilationCache(tb),
		instrumented: sync.OnceValues(func() (*prepared, error) { return instrument(wasm, r, meter.Options{}) })}
}

// Compile returns the serialized bytecode of src, compiled as Javy does.
func (q *QJSRunner) Compile(tb testing.TB, src []byte) []byte {
	tb.Helper()
	var stdout, stderr bytes.Buffer
	res, err := runner.Run(context.Background(), q.Wasm, runner.Options{
		Name: "qjsrunner.wasm", Args: []string{"compile"}, Stdin: bytes.NewReader(src),
		Stdout: &stdout, Stderr: &stderr, Cache: q.Cache, Deterministic: true,
	})
	require.NoError(tb, err)
	require.Zero(tb, res.ExitCode, "stderr: %s", stderr.String())
	return stdout.Bytes()
}

// RunMetered runs bytecode (Compile's) with the runner under the meter.
func (q *QJSRunner) RunMetered(tb testing.TB, bc []byte) *Run {
	tb.Helper()
	p, err := q.instrumented()
	require.NoError(tb, err)
	mt := meter.New(p.plan)
	return runWASI(tb, q.Module, q.Report, p.wasm, mt, mt.Start, runner.Options{
		Name: "qjsrunner.wasm", Args: []string{"run"}, Stdin: bytes.NewReader(bc), Cache: q.Cache,
	})
}
