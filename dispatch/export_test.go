package dispatch

import (
	"context"

	"github.com/jsprof/jsprof/wasmcore"
)

// Stats is what an analysis cost (analysisStats), for the tests of
// package dispatch_test.
type Stats struct {
	Steps     int64    // steps of the whole analysis
	Interpret int64    // of them, interpreting functions
	Trace     int64    // and tracing values
	MaxSteps  int64    // most steps taken by one function
	MaxShare  float64  // largest share of its budget a function took
	Functions int      // functions interpreted
	Exhausted []uint32 // functions whose budget ran out
}

// AnalyzeStats is Analyze returning its cost; onCheck, if not nil, is
// called at every look at the context with the steps taken so far.
func AnalyzeStats(ctx context.Context, m *wasmcore.Module, onCheck func(steps int64)) (*Report, Stats, error) {
	rep, st, err := analyze(ctx, m, onCheck)
	return rep, Stats{Steps: st.steps, Interpret: st.phases[phaseInterpret], Trace: st.phases[phaseTrace], MaxSteps: st.maxSteps, MaxShare: st.maxShare, Functions: st.functions, Exhausted: st.exhausted}, err
}

// Budget constants (budget.go).
const (
	StepsPerByte       = stepsPerByte
	ModuleStepsPerByte = moduleStepsPerByte
	ModuleBaseSteps    = moduleBaseSteps
	CheckEvery         = checkEvery
)

// FunctionBudget is functionBudget.
func FunctionBudget(size int) int64 { return functionBudget(size) }
