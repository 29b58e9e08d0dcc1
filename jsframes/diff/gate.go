package diff

import (
	"math"
	"sort"
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
