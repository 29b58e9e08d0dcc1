package diff

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/view/costfmt"
	"github.com/jsprof/jsprof/internal/view/report"
)

// Gate is jsprof diff --fail-over: it fails when either profile's run did
// not complete, or when the total (with Functions, also any function's
// total) rose by Percent or more.
type Gate struct {
	Flag      string  // the value given, as the messages quote it
	Percent   float64 // the threshold: 0 fails on any rise
	Functions bool    // whether functions' totals are gated too
}

// ParseGate reads --fail-over's value: 5, 5% or 0.5%. It returns nil when
// the flag was not given, and refuses an empty value as it refuses any
// other bad one: an unset CI variable (--fail-over "$PCT") must not turn
// the gate off.
func ParseGate(s string, given, functions bool) (*Gate, error) {
	if !given {
		return nil, nil
	}
	const want = "want a percentage, 0 or more, such as 5 or 5%"
	if s == "" {
		return nil, errors.New("--fail-over is empty: " + want)
	}
	p, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || p < 0 || math.IsInf(p, 0) || math.IsNaN(p) {
		return nil, fmt.Errorf("--fail-over %s: %s", s, want)
	}
	return &Gate{Flag: s, Percent: p, Functions: functions}, nil
}

// Failures says why the gate fails, one line each; none when it passes
// (and with a nil gate). A run that did not complete fails it, BASE's as
// NEW's: a profile of part of a run says nothing of the change, and the
// rises are not looked at. Otherwise each rise (RisesOver) fails it.
func (g *Gate) Failures(df *Diff) []string {
	if g == nil {
		return nil
	}
	var fails []string
	for _, s := range []struct {
		what string
		side Side
	}{{"BASE", df.Base}, {"NEW", df.New}} {
		if s.side.Incomplete != "" {
			fails = append(fails, fmt.Sprintf("the %s run (%s) did not complete: %s: --fail-over %s", s.what, s.side.Profile, s.side.Incomplete, g.Flag))
		}
	}
	if len(fails) > 0 {
		return fails
	}
	for _, r := range df.RisesOver(g.Percent, g.Functions) {
		fails = append(fails, fmt.Sprintf("%s rose %s (%s → %s Wasm instructions): --fail-over %s",
			r.What, r.PercentText(), costfmt.Human(r.Base), costfmt.Human(r.New), g.Flag))
	}
	return fails
}

// incomplete says how a profile's run ended when it did not end with
// exit code 0, from what the profile records ("uncaught Error: boom, exit
// 134"); "" when it did, or when the profile does not say (ExitCode nil:
// earlier jsprof). A profile merged from several inputs keeps the first
// code that was not 0, and no trap.
func incomplete(d *report.Tables) string {
	if d.ExitCode == nil || *d.ExitCode == 0 {
		return ""
	}
	code := *d.ExitCode
	var how string
	switch {
	case d.Throw != nil:
		how = "uncaught " + d.Throw.Message
	case d.Trap != "" && code == cli.ExitTrap:
		how = "the guest trapped: " + d.Trap
	case d.Trap != "":
		how = d.Trap // the limit, the timeout or the signal that stopped it
	case code == cli.ExitLimit:
		how = "stopped by --timeout or --max-instructions"
	case code == cli.ExitTrap:
		how = "the guest trapped"
	case code > cli.ExitSignalBase && code <= cli.MaxExitStatus:
		how = "stopped by " + syscall.Signal(code-cli.ExitSignalBase).String()
	default:
		how = "the guest exited with code " + strconv.Itoa(code)
	}
	return fmt.Sprintf("%s, exit %d", how, code)
}

// Rise is a cost that rose by at least a threshold (RisesOver).
type Rise struct {
	// What rose: "the total", or a function's Label.
	What      string
	Base, New uint64
	// Percent is the rise, (New − Base) / Base × 100: +Inf from 0.
	Percent float64
}

// RisesOver returns what rose by pct percent or more — by anything, with
// a pct of 0 — the total first, then, with functions, each function in
// both profiles by its total instructions (pprof's cum), largest rise
// first. A function in one profile only is not compared: what it costs
// is in the total. Costs that held or fell never rise.
func (df *Diff) RisesOver(pct float64, functions bool) []Rise {
	var rises []Rise
	check := func(what string, base, new uint64) {
		if new <= base {
			return
		}
		r := Rise{What: what, Base: base, New: new, Percent: math.Inf(1)}
		if base > 0 {
			r.Percent = float64(new-base) / float64(base) * 100
		}
		if r.Percent >= pct {
			rises = append(rises, r)
		}
	}
	check("the total", df.Base.TotalWasmInstructions, df.New.TotalWasmInstructions)
	if !functions {
		return rises
	}
	total := len(rises)
	for i := range df.Functions {
		f := &df.Functions[i]
		if f.Only == "" {
			check(f.Label(), f.Base.TotalWasmInstructions, f.New.TotalWasmInstructions)
		}
	}
	fns := rises[total:]
	sort.SliceStable(fns, func(i, j int) bool { return fns[i].Percent > fns[j].Percent })
	return rises
}

// PercentText is the rise as a percentage with three significant digits
// ("by 12.5%"), or "from nothing".
func (r Rise) PercentText() string {
	if math.IsInf(r.Percent, 1) {
		return "from nothing"
	}
	return "by " + strconv.FormatFloat(r.Percent, 'g', 3, 64) + "%"
}
