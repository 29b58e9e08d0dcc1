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
// total) rose by Percent or more. The rule (RisesOver): the total's rise
// and a function's are percentages of their base, rounded to one decimal
// as the tables print them; a function's rise must also be at least
// Floor Wasm instructions, so that a few instructions more in a small
// function ("Map.prototype.entries (native) 1073 → 1204") do not fail a
// change that made the program cheaper.
type Gate struct {
	Flag      string  // the value given, as the messages quote it
	Percent   float64 // the threshold: 0 fails on any rise
	Functions bool    // whether functions' totals are gated too
	Floor     uint64  // the least rise of a function's total that counts
}

// DefaultFloor is --fail-floor's default: 10,000 Wasm instructions, under
// 0.1% of a Shopify Function's 11M limit.
const DefaultFloor = 10_000

// ParseGate reads --fail-over's value: 5, 5% or 0.5%, with floor the
// --fail-floor. It returns nil when the flag was not given, and refuses
// an empty value as it refuses any
// other bad one: an unset CI variable (--fail-over "$PCT") must not turn
// the gate off.
func ParseGate(s string, given, functions bool, floor uint64) (*Gate, error) {
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
	return &Gate{Flag: s, Percent: p, Functions: functions, Floor: floor}, nil
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
	for _, r := range df.RisesOver(g.Percent, g.Functions, g.Floor) {
		what, rule := r.What, "over --fail-over "+g.Flag
		if r.Function {
			what += ": its total (with what it called)"
			rule += fmt.Sprintf(" and --fail-floor %d", g.Floor)
		}
		fails = append(fails, fmt.Sprintf("%s rose %s of its base, %s → %s Wasm instructions (%s): %s",
			what, r.PercentText(), costfmt.Human(r.Base), costfmt.Human(r.New), costfmt.HumanSigned(deltaOf(r.Base, r.New)), rule))
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
	Function  bool // a function's total, not the profile's
	Base, New uint64
	// Percent is the rise, (New − Base) / Base × 100, rounded to one
	// decimal as the tables print it: +Inf from 0.
	Percent float64
}

// RisesOver returns what rose by pct percent or more — by anything, with
// a pct of 0 — the total first, then, with functions, each function in
// both profiles whose total instructions (pprof's cum: the function and
// what it called, the --by function table's total columns) rose by pct
// percent and by floor instructions or more, largest rise first. A
// function in one profile only is not compared: what it costs is in the
// total. Costs that held or fell never rise.
func (df *Diff) RisesOver(pct float64, functions bool, floor uint64) []Rise {
	var rises []Rise
	check := func(what string, fn bool, base, new uint64) {
		if new <= base || fn && new-base < floor {
			return
		}
		r := Rise{What: what, Function: fn, Base: base, New: new, Percent: math.Inf(1)}
		if base > 0 {
			r.Percent = math.Round(float64(new-base)/float64(base)*1000) / 10
		}
		if r.Percent >= pct {
			rises = append(rises, r)
		}
	}
	check("the total", false, df.Base.TotalWasmInstructions, df.New.TotalWasmInstructions)
	if !functions {
		return rises
	}
	total := len(rises)
	for i := range df.Functions {
		f := &df.Functions[i]
		if f.Only == "" {
			check(f.Label(), true, f.Base.TotalWasmInstructions, f.New.TotalWasmInstructions)
		}
	}
	fns := rises[total:]
	sort.SliceStable(fns, func(i, j int) bool { return fns[i].Percent > fns[j].Percent })
	return rises
}

// PercentText is the rise as the tables print it, a plain decimal with
// one digit after the point ("by 12.5%"), or "from nothing".
func (r Rise) PercentText() string {
	if math.IsInf(r.Percent, 1) {
		return "from nothing"
	}
	return "by " + strings.TrimPrefix(costfmt.SignedPercent(float64(r.Base), float64(r.New)), "+")
}
