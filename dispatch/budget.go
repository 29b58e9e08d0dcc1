package dispatch

import (
	"context"
	"fmt"
)

// The analysis is bounded by a budget of steps, so that its cost is linear
// in the module's size whatever the code looks like. A step is one
// instruction interpreted, one local merged at a control-flow join, or one
// node visited by a tracing walk (selector, pc, operand reads, bytecode
// pointer). The interpretation of a function, and then its tracing, may
// each take
//
//	min(stepsPerByte × body size + baseSteps, maxFunctionSteps)
//
// steps, and the interpretation of all functions, and their tracing, each
// moduleStepsPerByte × code size + moduleBaseSteps. Interpretation and
// tracing are budgeted apart so that a function whose interpretation was
// cut short is still traced. When a function's steps run out, its analysis
// widens to "unknown": the interpreter stops tracking locals (every later
// read is an unknown value) and every tracing walk stops where it is, so
// the function's candidates keep the evidence found so far and lose the
// rest; once the module's run out, so do those of every later function.
// The report's reason names the functions concerned. The real engines take at most a third of
// a function's budget and a quarter of the module's (docs/performance.md).
const (
	stepsPerByte       = 64
	baseSteps          = 1 << 12
	maxFunctionSteps   = 1 << 26
	moduleStepsPerByte = 4
	moduleBaseSteps    = 1 << 20
)

// checkEvery is the number of steps between two looks at the context: a
// step costs tens of nanoseconds, so cancellation is seen within a
// fraction of a millisecond.
const checkEvery = 1 << 12

// meter counts the steps of one Analyze call and watches its context.
type meter struct {
	ctx     context.Context
	steps   int64             // steps taken so far, all functions
	phase   [2]int64          // of them, interpreting and tracing
	limit   int64             // steps the module may take in each phase
	next    int64             // steps count at which to look at the context
	err     error             // the context's error, once seen
	onCheck func(steps int64) // tests: called at every look at the context
}

// newMeter returns the meter of the analysis of a module with codeBytes
// bytes of function bodies.
func newMeter(ctx context.Context, codeBytes int, onCheck func(int64)) *meter {
	return &meter{ctx: ctx, next: checkEvery, onCheck: onCheck,
		limit: moduleStepsPerByte*int64(codeBytes) + moduleBaseSteps}
}

// Phases of the analysis of a function, with a budget each.
const (
	phaseInterpret = 0
	phaseTrace     = 1
)

// add counts n steps of a phase; it is false once the context is done or
// the module's budget for the phase is spent.
func (mt *meter) add(phase int, n int64) bool {
	if mt.err != nil || mt.phase[phase] >= mt.limit {
		return false
	}
	mt.steps += n
	mt.phase[phase] += n
	if mt.steps >= mt.next {
		mt.next = mt.steps + checkEvery
		return mt.check()
	}
	return true
}

// check looks at the context now; it is false once the context is done.
func (mt *meter) check() bool {
	if mt.err != nil {
		return false
	}
	if mt.onCheck != nil {
		mt.onCheck(mt.steps)
	}
	if err := mt.ctx.Err(); err != nil {
		mt.err = err
		return false
	}
	return true
}

// cancelled returns the analysis's cancellation error, nil if the context
// is not done (as far as the meter has seen).
func (mt *meter) cancelled() error {
	if mt.err != nil {
		return fmt.Errorf("dispatch: analysis cancelled: %w", mt.err)
	}
	return nil
}

// functionBudget is the number of steps the analysis of a function of the
// given body size may take.
func functionBudget(size int) int64 {
	return min(stepsPerByte*int64(size)+baseSteps, maxFunctionSteps)
}

// startTracing gives the tracing of a function (selectors, pc, bytecode
// pointer) a budget of its own, so that a function whose interpretation
// ran out of steps is still traced as far as it was read.
func (fa *funcAnalysis) startTracing() {
	fa.phase = phaseTrace
	fa.interpSteps, fa.phaseSteps = fa.phaseSteps, 0
	fa.stopped = fa.meter.err != nil
}

// budgetShare is the largest share of its budget a phase of the
// function's analysis took.
func (fa *funcAnalysis) budgetShare() float64 {
	return float64(max(fa.interpSteps, fa.phaseSteps)) / float64(fa.limit)
}

// tick takes n steps from the function's budget. It is false once the
// budget is exhausted or the analysis is cancelled: the caller then stops
// and treats what it has not seen as unknown.
func (fa *funcAnalysis) tick(n int) bool {
	if fa.stopped {
		return false
	}
	fa.steps += int64(n)
	if fa.phaseSteps += int64(n); fa.phaseSteps > fa.limit {
		fa.exhausted, fa.stopped = true, true
		return false
	}
	if !fa.meter.add(fa.phase, int64(n)) {
		fa.stopped = true
		fa.exhausted = fa.exhausted || fa.meter.err == nil
		return false
	}
	return true
}
