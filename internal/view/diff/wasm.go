package diff

import (
	"sort"

	"github.com/jsprof/jsprof/internal/view/report"
)

// WasmSide is a Wasm function's cost in one profile of a diff.
type WasmSide struct {
	// Index is the function's index in that module; -1 when several
	// functions of the module have the name, or for another module's.
	Index                 int    `json:"index"`
	SelfWasmInstructions  uint64 `json:"self_wasm_instructions"`
	TotalWasmInstructions uint64 `json:"total_wasm_instructions"`
}

// WasmFunction is one Wasm function, by name, in both profiles of a diff (or
// one of the Wasm view's buckets). Functions of stripped modules
// (wasm-function[N]) align by that name too, which says nothing across
// different builds.
type WasmFunction struct {
	Name string    `json:"name"`
	Kind string    `json:"kind"` // report.WasmKind*
	Base *WasmSide `json:"base"` // null when only in new
	New  *WasmSide `json:"new"`  // null when only in base
	Only string    `json:"only,omitempty"`
	// DeltaSelfWasmInstructions is new − base self instructions.
	DeltaSelfWasmInstructions int64 `json:"delta_self_wasm_instructions"`
	// Ratio is new self ÷ base self; absent when the base ran none.
	Ratio *float64 `json:"ratio,omitempty"`
}

// alignWasm aligns the Wasm rows of base and new by name: the functions by
// the size of their change, as opcodes are.
func alignWasm(base, new []report.WasmFunctionStats, order func(a, b *WasmFunction) bool) []WasmFunction {
	rows := map[string]*WasmFunction{}
	var names []string
	add := func(fs []report.WasmFunctionStats, isBase bool) {
		for _, f := range fs {
			wd := rows[f.Name]
			if wd == nil {
				wd = &WasmFunction{Name: f.Name, Kind: f.Kind}
				rows[f.Name] = wd
				names = append(names, f.Name)
			}
			into := &wd.New
			if isBase {
				into = &wd.Base
			}
			if *into == nil {
				*into = &WasmSide{Index: f.Index}
			} else if (*into).Index != f.Index {
				(*into).Index = -1
			}
			(*into).SelfWasmInstructions += f.SelfWasmInstructions
			(*into).TotalWasmInstructions += f.TotalWasmInstructions
		}
	}
	add(base, true)
	add(new, false)
	out := make([]WasmFunction, 0, len(names))
	for _, n := range names {
		wd := rows[n]
		var b, nw WasmSide
		b, nw, wd.Only = sides(wd.Base, wd.New)
		wd.DeltaSelfWasmInstructions = deltaOf(b.SelfWasmInstructions, nw.SelfWasmInstructions)
		if wd.Base != nil && wd.New != nil && b.SelfWasmInstructions > 0 {
			r := float64(nw.SelfWasmInstructions) / float64(b.SelfWasmInstructions)
			wd.Ratio = &r
		}
		out = append(out, *wd)
	}
	if order != nil {
		sort.SliceStable(out, func(i, j int) bool { return order(&out[i], &out[j]) })
	}
	return out
}

// wasmDiffWeight is what a Wasm function ran, self, in both profiles.
func wasmDiffWeight(w *WasmFunction) uint64 {
	return bothSides(w.Base, w.New, func(s *WasmSide) uint64 { return s.SelfWasmInstructions })
}

// byWasmChange orders Wasm functions by the size of their change in self
// instructions, then by their weight, then by name.
func byWasmChange(a, b *WasmFunction) bool {
	return byChange(a.DeltaSelfWasmInstructions, b.DeltaSelfWasmInstructions, wasmDiffWeight(a), wasmDiffWeight(b), a.Name, b.Name)
}

// byWasmKind keeps the Wasm view's buckets in their order: the
// interpreter loop, then no Wasm frame.
func byWasmKind(a, b *WasmFunction) bool {
	return a.Kind == report.WasmKindInterpreter && b.Kind != report.WasmKindInterpreter
}
