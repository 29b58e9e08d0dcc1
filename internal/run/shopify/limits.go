package shopify

import "github.com/jsprof/jsprof/jsframes/jsprofile"

// Limits function-runner checks a function against, before they are
// scaled by the factor @scaleLimits gives (internal/run/shopify/scalelimits).
const (
	InstructionLimit = 11_000_000
	InputLimit       = 128_000 // bytes
	OutputLimit      = 20_000  // bytes
)

// ScaledLimit is limit scaled by factor as function-runner scales it
// (function_run_result.rs): the product of float64s, truncated to an
// integer. A factor of 0 (none given) is 1.
func ScaledLimit(limit uint64, factor float64) uint64 {
	if factor == 0 {
		return limit
	}
	return uint64(factor * float64(limit))
}

// Limits are a run's limits, scaled by factor (0 or 1: not scaled), with
// the input and output flags set for those sizes (function-runner flags a
// size over its limit); the caller sets the instructions flag, knowing
// the count.
func Limits(factor float64, inputBytes, outputBytes uint64) *jsprofile.Limits {
	l := &jsprofile.Limits{
		Instructions: ScaledLimit(InstructionLimit, factor),
		InputBytes:   ScaledLimit(InputLimit, factor),
		OutputBytes:  ScaledLimit(OutputLimit, factor),
	}
	if factor != 1 {
		l.ScaleFactor = factor
	}
	l.InputOver, l.OutputOver = inputBytes > l.InputBytes, outputBytes > l.OutputBytes
	return l
}
