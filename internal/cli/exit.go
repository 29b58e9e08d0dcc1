package cli

import (
	"strings"
	"syscall"

	"github.com/jsprof/jsprof/internal/printable"
)

// jsprof's exit codes, each the one definition of its number: a run that
// ended by itself exits with the guest's own code instead.
const (
	// ExitFailure: input jsprof cannot use (before any guest runs), or an
	// output it could not write.
	ExitFailure = 1
	// ExitUsage: a command line jsprof cannot follow.
	ExitUsage = 2
	// ExitLimit: stopped by a timeout or an instruction limit, as
	// timeout(1) exits.
	ExitLimit = 124
	// ExitSignalBase plus n: stopped by signal n, as a shell reports it.
	ExitSignalBase = 128
	// ExitTrap: the guest trapped, as wasmtime exits on Unix (128 +
	// SIGABRT); internal/run/runner reports it as the guest's exit code.
	ExitTrap = 134
	// MaxExitStatus is the largest exit status a process can report; a
	// guest exiting with a larger code (WASI allows any u32) makes jsprof
	// exit with ExitOutOfRange instead.
	MaxExitStatus  = 255
	ExitOutOfRange = ExitFailure
)

// Interrupted is the cause of a run's context cancelled by a signal (the
// command's handler cancels it so).
type Interrupted struct{ Sig syscall.Signal }

func (i Interrupted) Error() string { return "interrupted by " + i.Sig.String() }

// Signal is the signal that interrupted the run.
func (i Interrupted) Signal() syscall.Signal { return i.Sig }

// Signaled is the cause of a run cancelled by a signal.
type Signaled interface {
	error
	Signal() syscall.Signal
}

// FirstLine keeps the first line of a message, trimmed and made
// printable (printable.String): wazero appends Wasm stack traces on the
// following lines, jsprof says an error in one line, and a message may
// quote what a guest chose (an import's name, a custom section).
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return printable.String(s)
}
