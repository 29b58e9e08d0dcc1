package diff

import (
	"errors"
	"math"
	"sort"
	"strconv"
	"strings"
)

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

// ParsePercent reads a threshold (jsprof diff --fail-over): 5, 5% or 0.5%; "" is 0.
func ParsePercent(s string) (float64, error) {
	if s == "" {
		return 0, nil
	}
	p, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || p < 0 || math.IsInf(p, 0) || math.IsNaN(p) {
		return 0, errors.New("want a percentage, 0 or more, such as 5 or 5%")
	}
	return p, nil
}

// PercentText is the rise as a percentage with three significant digits
// ("by 12.5%"), or "from nothing".
func (r Rise) PercentText() string {
	if math.IsInf(r.Percent, 1) {
		return "from nothing"
	}
	return "by " + strconv.FormatFloat(r.Percent, 'g', 3, 64) + "%"
}
