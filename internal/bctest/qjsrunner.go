package bctest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero/api"

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
	wasm, err := os.ReadFile(filepath.Join(fixtures.CacheDir(), "qjsrunner-2021-03-27.wasm"))
	require.NoError(tb, err)
	m, err := wasmcore.Decode(wasm)
	require.NoError(tb, err)
	r, err := dispatch.Analyze(context.Background(), m)
	require.NoError(tb, err)
	return &QJSRunner{Name: "qjsrunner-2021-03-27", Wasm: wasm, Module: m, Report: r}
}

// Compile returns the serialized bytecode of src, compiled as Javy does.
func (q *QJSRunner) Compile(tb testing.TB, src []byte) []byte {
	tb.Helper()
	var stdout, stderr bytes.Buffer
	res, err := runner.Run(context.Background(), q.Wasm, runner.Options{
		Name: "qjsrunner.wasm", Args: []string{"compile"}, Stdin: bytes.NewReader(src),
		Stdout: &stdout, Stderr: &stderr, Cache: fixtures.CompilationCache(tb), Deterministic: true,
	})
	require.NoError(tb, err)
	require.Zero(tb, res.ExitCode, "stderr: %s", stderr.String())
	return stdout.Bytes()
}

// RunMetered runs bytecode (Compile's) with the runner under the meter.
func (q *QJSRunner) RunMetered(tb testing.TB, bc []byte) *Run {
	tb.Helper()
	ctx := context.Background()
	require.NotNil(tb, q.Report.Dispatch, q.Report.Reason)
	rewritten, err := wasmcore.Decode(q.Wasm)
	require.NoError(tb, err)
	plan, err := meter.Instrument(rewritten, q.Report.Dispatch, meter.Options{})
	require.NoError(tb, err)
	out, err := rewritten.Encode()
	require.NoError(tb, err)
	mt := meter.New(plan)
	var stdout, stderr bytes.Buffer
	var inst api.Module
	res, err := runner.Run(ctx, out, runner.Options{
		Name: "qjsrunner.wasm", Args: []string{"run"}, Stdin: bytes.NewReader(bc),
		Stdout: &stdout, Stderr: &stderr, Cache: fixtures.CompilationCache(tb), Deterministic: true,
		Link: mt.Link, Context: mt.Context,
		Instantiated: func(ctx context.Context, mod api.Module) error {
			inst = mod
			return mt.Start(ctx, mod)
		},
	})
	require.NoError(tb, err)
	require.Zero(tb, res.ExitCode, "stderr: %s; trap: %v", stderr.String(), res.Trap)
	results, err := mt.Collect()
	require.NoError(tb, err)
	return &Run{Static: q.Module, Report: q.Report, Results: results, Memory: inst.Memory(), Stdout: stdout.String()}
}
