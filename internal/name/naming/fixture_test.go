package naming

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero/api"

	"github.com/jsprof/jsprof/internal/bctest"
	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/internal/name/bytecode"
)

// testEngine is a real engine with its spec, as the profiler derives it.
type testEngine struct {
	*bctest.Engine
	spec bytecode.EngineSpec
}

func loadEngine(tb testing.TB, name string) testEngine {
	tb.Helper()
	e := bctest.LoadEngine(tb, name)
	spec, err := bytecode.EngineSpecForModule(e.Module, e.Report)
	require.NoError(tb, err)
	return testEngine{e, spec}
}

// bcRun is one run of a static Javy module under the meter, with the
// program found as the profiler finds it.
type bcRun struct {
	prog    *bytecode.Program
	spec    bytecode.EngineSpec
	results *costs.Results
	mem     api.Memory
	stdout  string
}

// runMetered builds src into a static module with the engine, runs it
// under the meter and finds its program (ProgramFromModule).
func (e testEngine) runMetered(tb testing.TB, src []byte) *bcRun {
	tb.Helper()
	return e.found(tb, e.RunMetered(tb, src))
}

// runMeteredNatives is runMetered with the natives metered too: the
// results hold the natives' contexts with their call sites.
func (e testEngine) runMeteredNatives(tb testing.TB, src []byte) *bcRun {
	tb.Helper()
	return e.found(tb, e.RunMeteredNatives(tb, src))
}

// found finds the program of a run as the profiler does.
func (e testEngine) found(tb testing.TB, run *bctest.Run) *bcRun {
	tb.Helper()
	prog, err := bytecode.ProgramFromModule(run.Static, run.Report)
	require.NoError(tb, err)
	require.NotNil(tb, prog, "the static module's bytecode segment")
	spec, err := bytecode.EngineSpecForModule(run.Static, run.Report)
	require.NoError(tb, err)
	return &bcRun{prog: prog, spec: spec, results: run.Results, mem: run.Memory, stdout: run.Stdout}
}
