package profiler

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/jsprof/jsprof/internal/measure/meter"
	"github.com/jsprof/jsprof/internal/run/runner"
)

// Exit codes for runs that did not end by themselves.
const (
	// ExitLimit: stopped by a timeout or an instruction limit, as timeout(1)
	// exits.
	ExitLimit = 124
	// ExitSignalBase plus n: stopped by signal n, as a shell reports it.
	ExitSignalBase = 128
)

// MaxExitStatus is the largest exit status a process can report; a guest
// exiting with a larger code (WASI allows any u32) makes jsprof exit with
// ExitOutOfRange instead.
const (
	MaxExitStatus  = 255
	ExitOutOfRange = 1
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

// ExitCode is jsprof's exit code for a run: the guest's own; 134 for a trap
// (runner.ExitTrap, as wasmtime exits); ExitLimit for --timeout or
// --max-instructions; 128+n for signal n.
func ExitCode(res runner.Result) int {
	code, _ := Ending(res)
	return code
}

// Ending is how a run ended: jsprof's exit code (ExitCode) and, unless the
// guest exited by itself with a code a process can have, why, in one
// error for the command to say.
func Ending(res runner.Result) (int, error) {
	if res.Trap == nil {
		if res.ExitCode > MaxExitStatus {
			// A process cannot exit with it: 256 would read as 0.
			return ExitOutOfRange, fmt.Errorf("the guest exited with code %d, which no process can exit with (0-%d)", res.ExitCode, MaxExitStatus)
		}
		return int(res.ExitCode), nil
	}
	var (
		unresolved *runner.UnresolvedImportError
		limit      *meter.LimitError
		sig        Signaled
	)
	switch {
	case errors.As(res.Trap, &unresolved):
		return int(res.ExitCode), unresolved
	case errors.As(res.Trap, &limit):
		return ExitLimit, fmt.Errorf("stopped: %w", limit)
	case errors.As(res.Trap, &sig):
		return ExitSignalBase + int(sig.Signal()), sig
	case errors.Is(res.Trap, context.DeadlineExceeded) || strings.HasPrefix(res.Trap.Error(), TimeoutPrefix):
		return ExitLimit, res.Trap
	}
	return int(res.ExitCode), fmt.Errorf("guest trapped: %w", res.Trap)
}

// TimeoutPrefix starts the cause of a run stopped by its timeout.
const TimeoutPrefix = "stopped after --timeout"
