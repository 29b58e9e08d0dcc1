// Package cli is jsprof's command-line conventions, for cmd/jsprof: flag
// sets whose --help prints the synopsis above the flags (a -1 default left
// unsaid), flags that may come between the positional arguments, a bad
// command line told in one line with where to read more (exit ExitUsage),
// a mistyped flag or command told with the one it is likely to be
// (Suggest, UnknownCommand),
// repeated and duration flags, a guest argument that names one of the
// command's flags, whether stderr is a terminal that takes colour
// (NO_COLOR, TERM=dumb), the version line, and the stop signals
// (CancelOnSignals: the first cancels the run, a second ends jsprof at
// once, a repeat of the first within moments is the same event).
//
// It is the one owner of jsprof's exit codes (exit.go: ExitFailure,
// ExitUsage, ExitLimit, ExitSignalBase, ExitTrap, which
// internal/run/runner reports for a trapped guest, and the largest a
// process can have), of a run cancelled by a signal (Interrupted, the
// cause the handler gives; Signaled) and of a message told in one line
// (FirstLine). internal/testrules fails a second package that defines an
// exit code.
//
// It knows nothing of what the commands do: which flags they have, what
// they check and say belong to cmd/jsprof.
package cli
