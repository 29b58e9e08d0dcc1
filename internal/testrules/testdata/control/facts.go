package control

import "github.com/jsprof/jsprof/jsframes/jsprofile"

// A second definition of each fact, each marked with a "want" comment:
// RuleOneOwner reads files that are not tests too.
const (
	exitFailure = 1                       // want one-owner
	ExitLimit   = 124                     // want one-owner
	MaxExitCode = 255                     // want one-owner
	trapStatus  = 134                     // want one-owner
	modeOff     = "off"                   // want one-owner
	ModeExact   = jsprofile.ModeExact     // want one-owner
	bucketWasm  = "(Wasm code)"           // want one-owner
	BucketOut   = jsprofile.BucketOutside // want one-owner
)

// Names like the facts' that are none of them: no comment.
const (
	commentExitCode = "jsprof.exit_code"  // a string: a profile comment's key
	MatchExact      = "exact"             // not a Mode* name
	bucketBeforeJS  = "\x00before JS"     // a key, not a bucket's name
	maxAlignedDepth = 128                 // not named like an exit code
	Exact           = jsprofile.ModeExact // a typed mode's value, as profiler.Exact
	Outside         = BucketOut           // not named Bucket*
)

func useFacts() {
	const exitUsage = 2 // want one-owner
	_ = exitUsage
}
