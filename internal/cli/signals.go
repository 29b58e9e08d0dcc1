package cli

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/jsprof/jsprof/internal/printable"
)

// StopSignals are the signals that stop a run, the profile written:
// SIGINT, SIGTERM, SIGHUP (a closed terminal, a dropped SSH session) and
// SIGQUIT.
func StopSignals() []os.Signal {
	return []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}
}

// repeatWindow is how soon a repeat of the first signal is taken for the
// same event rather than a second signal: GNU timeout signals its child
// and then its whole process group, so jsprof gets SIGTERM twice within
// microseconds, and a terminal's hang-up can come to the process more
// than once too. Go's os/signal does not say who sent a signal (the
// kernel's siginfo does, but it is not passed on), so the two cannot be
// told apart by their source. A person pressing ^C again to end jsprof
// does so later than this; another signal ends it at once.
const repeatWindow = 500 * time.Millisecond

// CancelOnSignals has the first stop signal call first (which cancels the
// run: wazero then stops the guest, and jsprof writes what it measured)
// and a second one, while jsprof is still writing, call second (which
// ends it at once). stop stops listening; reset gives the stop signals
// back their default action, ending the process (a run Go cannot stop).
func CancelOnSignals(first, second func(syscall.Signal)) (stop, reset func()) {
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, StopSignals()...)
	go func() {
		sig, ok := <-signals
		if !ok {
			return
		}
		at := time.Now()
		first(sig.(syscall.Signal))
		for again := range signals {
			if again == sig && time.Since(at) < repeatWindow {
				continue // the same event, signalled twice
			}
			second(again.(syscall.Signal))
		}
	}()
	return func() { signal.Stop(signals) }, func() { signal.Reset(StopSignals()...) }
}

// ExitNow returns what ends jsprof on a second signal: cleanup runs (the
// temporary files of outputs not yet written are removed: no .jsprof-*
// is left beside them; it returns the files not written), the signal and
// what was not written are said, and jsprof exits with 128 + its number.
// The message is given a moment, not more: stderr may be a pipe nobody
// reads, where a write would block for ever and the exit with it.
func ExitNow(cleanup func() (unwritten []string)) func(syscall.Signal) {
	return func(sig syscall.Signal) {
		unwritten := cleanup()
		said := make(chan struct{})
		go func() {
			fmt.Fprintf(os.Stderr, "jsprof: %s, a second signal: %s\n", sig, SecondSignal(unwritten))
			close(said)
		}()
		select {
		case <-said:
		case <-time.After(200 * time.Millisecond):
		}
		os.Exit(ExitSignalBase + int(sig))
	}
}

// SecondSignal says what a second signal left unwritten: the files, the
// first three by name.
func SecondSignal(unwritten []string) string {
	switch n := len(unwritten); {
	case n == 0:
		return "exiting, every output written"
	case n <= 3:
		return "exiting without writing " + printable.String(strings.Join(unwritten, ", "))
	default:
		return fmt.Sprintf("exiting without writing %s and %d more", printable.String(strings.Join(unwritten[:3], ", ")), n-3)
	}
}
