package profiler

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/measure/meter"
	"github.com/jsprof/jsprof/internal/run/runner"
)

// ExitCode is jsprof's exit code for a run: the guest's own; 134 for a trap
// (cli.ExitTrap, as wasmtime exits); cli.ExitLimit for --timeout or
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
		if res.ExitCode > cli.MaxExitStatus {
			// A process cannot exit with it: 256 would read as 0.
			return cli.ExitOutOfRange, fmt.Errorf("the guest exited with code %d, which no process can exit with (0-%d)", res.ExitCode, cli.MaxExitStatus)
		}
		return int(res.ExitCode), nil
	}
	var (
		unresolved *runner.UnresolvedImportError
		limit      *meter.LimitError
		sig        cli.Signaled
	)
	switch {
	case errors.As(res.Trap, &unresolved):
		return int(res.ExitCode), unresolved
	case errors.As(res.Trap, &limit):
		return cli.ExitLimit, fmt.Errorf("stopped: %w", limit)
	case errors.As(res.Trap, &sig):
		return cli.ExitSignalBase + int(sig.Signal()), sig
	case errors.Is(res.Trap, context.DeadlineExceeded) || strings.HasPrefix(res.Trap.Error(), TimeoutPrefix):
		return cli.ExitLimit, res.Trap
	}
	return int(res.ExitCode), fmt.Errorf("guest trapped: %w", res.Trap)
}

// TimeoutPrefix starts the cause of a run stopped by its timeout.
const TimeoutPrefix = "stopped after --timeout"
