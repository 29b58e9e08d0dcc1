package diff

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/jsprof/jsprof/internal/view/costfmt"
	"github.com/jsprof/jsprof/internal/view/report"
)

// WriteFunctionText writes the function view for a terminal (jsprof diff
// --by function, the view --fail-over gates): the head, then each
// function's self and total instructions (total: with what it called) in
// both, by the size of the change in its total, with that change and its
// percentage of the base total — the figures the gate reads (RisesOver).
func (df *Diff) WriteFunctionText(w io.Writer, top int) error {
	var b strings.Builder
	df.writeHead(&b)
	fns := slices.Clone(df.Functions)
	totalDelta := func(f *Function) int64 {
		bt, nt := f.totals()
		return deltaOf(bt, nt)
	}
	slices.SortStableFunc(fns, func(x, y Function) int {
		if byChange(totalDelta(&x), totalDelta(&y), functionWeight(&x), functionWeight(&y), x.Label(), y.Label()) {
			return -1
		}
		if byChange(totalDelta(&y), totalDelta(&x), functionWeight(&y), functionWeight(&x), y.Label(), x.Label()) {
			return 1
		}
		return 0
	})
	rows := [][]string{{"function", "base calls", "new calls", "base self", "new self", "base total", "new total", "total change", ""}}
	shown, cut := costfmt.FirstN(fns, top)
	cell := func(s *FunctionSide, of func(*FunctionSide) uint64) string {
		if s == nil {
			return "-"
		}
		return costfmt.Human(of(s))
	}
	calls := func(s *FunctionSide) uint64 { return s.Calls }
	self := func(s *FunctionSide) uint64 { return s.SelfWasmInstructions }
	total := func(s *FunctionSide) uint64 { return s.TotalWasmInstructions }
	for i := range shown {
		f := &shown[i]
		note := OnlyText(f.Only)
		if f.Only == "" {
			note = costfmt.SignedPercent(float64(f.Base.TotalWasmInstructions), float64(f.New.TotalWasmInstructions))
		}
		rows = append(rows, []string{f.Label(), cell(f.Base, calls), cell(f.New, calls), cell(f.Base, self), cell(f.New, self),
			cell(f.Base, total), cell(f.New, total), costfmt.HumanSigned(totalDelta(f)), note})
	}
	if cut > 0 {
		rows = append(rows, []string{fmt.Sprintf("… %d more functions", cut), "", "", "", "", "", "", "", ""})
	}
	costfmt.WriteTable(&b, rows)
	b.WriteString("\ntotal: the function and what it called; total change and its % of the base\ntotal: what --fail-over gates\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// totals are the function's total instructions in base and new, 0 on a
// side it is not in.
func (f *Function) totals() (base, new uint64) {
	if f.Base != nil {
		base = f.Base.TotalWasmInstructions
	}
	if f.New != nil {
		new = f.New.TotalWasmInstructions
	}
	return base, new
}

// WriteLineText writes the line view for a terminal (jsprof diff --by
// line): the head, then the JS lines of both profiles by the size of the
// change in their self instructions, a line of a function that moved
// labelled with both its numbers (src/run.ts:50→52).
func (df *Diff) WriteLineText(w io.Writer, top int) error {
	var b strings.Builder
	df.writeHead(&b)
	rows := [][]string{{"line", "function", "base self", "new self", "change", "", "base total", "new total"}}
	shown, cut := costfmt.FirstN(df.Lines, top)
	cell := func(s *LineSide, of func(*LineSide) uint64) string {
		if s == nil {
			return "-"
		}
		return costfmt.Human(of(s))
	}
	self := func(s *LineSide) uint64 { return s.SelfWasmInstructions }
	total := func(s *LineSide) uint64 { return s.TotalWasmInstructions }
	moved := 0
	for i := range shown {
		l := &shown[i]
		note := OnlyText(l.Only)
		if l.Only == "" {
			note = costfmt.SignedPercent(float64(l.Base.SelfWasmInstructions), float64(l.New.SelfWasmInstructions))
		}
		if l.Moved() {
			moved++
		}
		rows = append(rows, []string{l.Label(), l.Function, cell(l.Base, self), cell(l.New, self), costfmt.HumanSigned(l.DeltaWasmInstructions), note,
			cell(l.Base, total), cell(l.New, total)})
	}
	if cut > 0 {
		var d int64
		for _, l := range df.Lines[len(shown):] {
			d += l.DeltaWasmInstructions
		}
		rows = append(rows, []string{fmt.Sprintf("… %d more lines", cut), "", "", "", costfmt.HumanSigned(d), "", "", ""})
	}
	costfmt.WriteTable(&b, rows)
	if moved > 0 {
		b.WriteString("\nA→B: the line moved from A in the base to B in the new, with its function\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// lineDiffCSVHeader is the header row of jsprof diff --by line --csv.
var lineDiffCSVHeader = []string{
	"function", "file", "base_line", "new_line", "only",
	"base_executions", "new_executions",
	"base_self_wasm_instructions", "new_self_wasm_instructions", "delta_self_wasm_instructions",
	"base_total_wasm_instructions", "new_total_wasm_instructions",
}

// WriteLineCSV writes every line of the line view with exact counts.
func (df *Diff) WriteLineCSV(w io.Writer) error {
	rows := [][]string{lineDiffCSVHeader}
	for _, l := range df.Lines {
		kv := map[string]string{"function": l.Function, "file": l.File, "only": l.Only, "delta_self_wasm_instructions": costfmt.Int(l.DeltaWasmInstructions)}
		sideCells(kv, l.Base, l.New, func(s *LineSide) map[string]string {
			return map[string]string{"line": strconv.Itoa(s.Line), "executions": costfmt.Uint(s.Executions),
				"self_wasm_instructions": costfmt.Uint(s.SelfWasmInstructions), "total_wasm_instructions": costfmt.Uint(s.TotalWasmInstructions)}
		})
		rows = append(rows, costfmt.CSVRow(lineDiffCSVHeader, kv))
	}
	return costfmt.WriteCSV(w, rows)
}

// lineDiffJSON is the document of jsprof diff --by line --json.
type lineDiffJSON struct {
	By                    string   `json:"by"`
	Base                  Side     `json:"base"`
	New                   Side     `json:"new"`
	Changed               string   `json:"changed"`
	DeltaWasmInstructions int64    `json:"delta_wasm_instructions"`
	Lines                 []Line   `json:"lines"`
	Warnings              []string `json:"warnings"`
}

// WriteLineJSON writes the line view as one indented JSON document.
func (df *Diff) WriteLineJSON(w io.Writer) error {
	doc := lineDiffJSON{By: report.ByLine, Base: df.Base, New: df.New, Changed: df.Changed, DeltaWasmInstructions: df.DeltaWasmInstructions,
		Lines: df.Lines, Warnings: df.Warnings}
	if doc.Lines == nil {
		doc.Lines = []Line{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
