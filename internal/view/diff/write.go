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

// WriteView writes the view by (report.ByOpcode or report.ByWasm) in
// format f, with top rows of each text table (0: all).
func (df *Diff) WriteView(w io.Writer, f report.Format, by string, top int) error {
	switch by {
	case report.ByWasm:
		return f.Write(w, func(w io.Writer) error { return df.WriteWasmText(w, top) }, df.WriteWasmCSV, df.WriteWasmJSON)
	case report.ByFunction:
		return f.Write(w, func(w io.Writer) error { return df.WriteFunctionText(w, top) }, df.WriteCSV, df.WriteJSON)
	case report.ByLine:
		return f.Write(w, func(w io.Writer) error { return df.WriteLineText(w, top) }, df.WriteLineCSV, df.WriteLineJSON)
	}
	return f.Write(w, func(w io.Writer) error { return df.WriteText(w, top) }, df.WriteCSV, df.WriteJSON)
}

// Views are jsprof diff's --by values.
var Views = []string{report.ByOpcode, report.ByFunction, report.ByLine, report.ByWasm}

// CheckView checks a --by value against Views.
func CheckView(by string) error {
	if !slices.Contains(Views, by) {
		return fmt.Errorf("--by %s: want %s", by, joinOr(Views))
	}
	return nil
}

// joinOr reads "a, b or c".
func joinOr(items []string) string {
	return strings.Replace(joinAnd(items), " and ", " or ", 1)
}

// WriteText writes the diff for a terminal: both profiles, the totals, the
// summary, then the opcodes and the functions by the size of their change
// (top rows of each; 0: all) and the buckets.
func (df *Diff) WriteText(w io.Writer, top int) error {
	var b strings.Builder
	df.writeHead(&b)

	side := func(o *OpcodeSide) (execs, perExec, instr string) {
		if o == nil {
			return "-", "-", "-"
		}
		return costfmt.Human(o.Executions), costfmt.PerExecution(o.Executions, o.PerExecution), costfmt.Human(o.WasmInstructions)
	}
	uncertain := false
	rows := [][]string{{"opcode", "base exec", "new exec", "base i/e", "new i/e", "base instr", "new instr", "change", ""}}
	shown, cut := costfmt.FirstN(df.Opcodes, top)
	for _, o := range shown {
		name := o.Name
		if o.Uncertain() {
			name += costfmt.UncertainMark
			uncertain = true
		}
		be, bpe, bi := side(o.Base)
		ne, npe, ni := side(o.New)
		rows = append(rows, []string{name, be, ne, bpe, npe, bi, ni, costfmt.HumanSigned(o.DeltaWasmInstructions), OnlyText(o.Only)})
	}
	if cut > 0 {
		var d int64
		for _, o := range df.Opcodes[len(shown):] {
			d += o.DeltaWasmInstructions
		}
		rows = append(rows, []string{fmt.Sprintf("… %d more", cut), "", "", "", "", "", "", costfmt.HumanSigned(d), ""})
	}
	costfmt.WriteTable(&b, rows)
	b.WriteString("\n")

	rows = [][]string{{"function", "base calls", "new calls", "base instr", "new instr", "change", ""}}
	fshown, fcut := costfmt.FirstN(df.Functions, top)
	for _, f := range fshown {
		bc, bi, nc, ni := "-", "-", "-", "-"
		if f.Base != nil {
			bc, bi = costfmt.Human(f.Base.Calls), costfmt.Human(f.Base.SelfWasmInstructions)
		}
		if f.New != nil {
			nc, ni = costfmt.Human(f.New.Calls), costfmt.Human(f.New.SelfWasmInstructions)
		}
		note := OnlyText(f.Only)
		if f.Only == "" {
			note = costfmt.SignedPercent(float64(f.Base.SelfWasmInstructions), float64(f.New.SelfWasmInstructions))
		}
		rows = append(rows, []string{f.Label(), bc, nc, bi, ni, costfmt.HumanSigned(f.DeltaWasmInstructions), note})
	}
	if fcut > 0 {
		var d int64
		for _, f := range df.Functions[len(fshown):] {
			d += f.DeltaWasmInstructions
		}
		rows = append(rows, []string{fmt.Sprintf("… %d more functions", fcut), "", "", "", "", costfmt.HumanSigned(d), ""})
	}
	for _, bk := range df.Buckets {
		rows = append(rows, []string{bk.Name, "", "", costfmt.Human(bk.BaseWasmInstructions), costfmt.Human(bk.NewWasmInstructions), costfmt.HumanSigned(bk.DeltaWasmInstructions),
			costfmt.SignedPercent(float64(bk.BaseWasmInstructions), float64(bk.NewWasmInstructions))})
	}
	costfmt.WriteTable(&b, rows)
	if uncertain {
		fmt.Fprintf(&b, "\n%s: name uncertain in one engine, and so its alignment\n", costfmt.UncertainMark)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeHead writes what every text view but the Wasm one starts with:
// both profiles, the totals, the summary and the warnings.
func (df *Diff) writeHead(b *strings.Builder) {
	df.writeSides(b, false)
	costfmt.WriteTable(b, [][]string{
		{"", "base", "new", "change", ""},
		{"Wasm instructions", costfmt.Human(df.Base.TotalWasmInstructions), costfmt.Human(df.New.TotalWasmInstructions), costfmt.HumanSigned(df.DeltaWasmInstructions),
			costfmt.SignedPercent(float64(df.Base.TotalWasmInstructions), float64(df.New.TotalWasmInstructions))},
		{"JS opcode executions", costfmt.Human(df.Base.Executions), costfmt.Human(df.New.Executions), costfmt.HumanSigned(df.DeltaExecutions),
			costfmt.SignedPercent(float64(df.Base.Executions), float64(df.New.Executions))},
		{"JS calls", costfmt.Human(df.Base.Calls), costfmt.Human(df.New.Calls), costfmt.HumanSigned(deltaOf(df.Base.Calls, df.New.Calls)),
			costfmt.SignedPercent(float64(df.Base.Calls), float64(df.New.Calls))},
	})
	b.WriteString("\n")
	b.WriteString(wrapText(df.Summary, 79))
	b.WriteString("\n")
	for _, warn := range df.Warnings {
		fmt.Fprintf(b, "warning: %s\n", warn)
	}
	b.WriteString("\n")
}

// OnlyText says that a row (an opcode, a function, a Wasm function) ran in
// one profile only: "only in base", "only in new"; "" when in both.
func OnlyText(only string) string {
	switch only {
	case OnlyBase:
		return "only in base"
	case OnlyNew:
		return "only in new"
	}
	return ""
}

// wrapText breaks text into lines of at most width columns at spaces.
func wrapText(text string, width int) string {
	var b strings.Builder
	col := 0
	for _, word := range strings.Fields(text) {
		n := len([]rune(word))
		if col > 0 && col+1+n > width {
			b.WriteString("\n")
			col = 0
		}
		if col > 0 {
			b.WriteString(" ")
			col++
		}
		b.WriteString(word)
		col += n
	}
	return b.String()
}

// diffCSVHeader is the header row of jsprof diff --csv: one table whose
// kind column says what a row is (total, opcode, function or bucket).
var diffCSVHeader = []string{
	"kind", "name", "file", "line", "only",
	"base_opcode", "new_opcode",
	"base_calls", "new_calls",
	"base_executions", "new_executions",
	"base_wasm_instructions", "new_wasm_instructions", "delta_wasm_instructions",
	"base_instructions_per_execution", "new_instructions_per_execution",
	"base_total_wasm_instructions", "new_total_wasm_instructions", "new_line",
}

// WriteCSV writes every row of the diff with exact counts: a total row,
// then opcodes, functions and buckets, each by the size of their change.
// Cells that do not apply are empty.
func (df *Diff) WriteCSV(w io.Writer) error {
	rows := [][]string{diffCSVHeader}
	row := func(kv map[string]string) []string { return costfmt.CSVRow(diffCSVHeader, kv) }
	rows = append(rows, row(map[string]string{
		"kind": "total", "name": "total",
		"base_calls": costfmt.Uint(df.Base.Calls), "new_calls": costfmt.Uint(df.New.Calls),
		"base_executions": costfmt.Uint(df.Base.Executions), "new_executions": costfmt.Uint(df.New.Executions),
		"base_wasm_instructions": costfmt.Uint(df.Base.TotalWasmInstructions), "new_wasm_instructions": costfmt.Uint(df.New.TotalWasmInstructions),
		"delta_wasm_instructions": costfmt.Int(df.DeltaWasmInstructions),
	}))
	for _, o := range df.Opcodes {
		kv := map[string]string{"kind": "opcode", "name": o.Name, "only": o.Only, "delta_wasm_instructions": costfmt.Int(o.DeltaWasmInstructions)}
		sideCells(kv, o.Base, o.New, func(s *OpcodeSide) map[string]string {
			return map[string]string{"opcode": strconv.Itoa(s.Opcode), "executions": costfmt.Uint(s.Executions),
				"wasm_instructions": costfmt.Uint(s.WasmInstructions), "instructions_per_execution": costfmt.ExactFloat(s.PerExecution)}
		})
		rows = append(rows, row(kv))
	}
	for _, f := range df.Functions {
		kind := "function"
		if f.Kind == report.FunctionNative {
			kind = "native"
		}
		kv := map[string]string{"kind": kind, "name": f.Name, "file": f.File, "line": strconv.Itoa(f.Line), "only": f.Only,
			"delta_wasm_instructions": costfmt.Int(f.DeltaWasmInstructions)}
		sideCells(kv, f.Base, f.New, func(s *FunctionSide) map[string]string {
			return map[string]string{"calls": costfmt.Uint(s.Calls), "executions": costfmt.Uint(s.Executions), "wasm_instructions": costfmt.Uint(s.SelfWasmInstructions),
				"total_wasm_instructions": costfmt.Uint(s.TotalWasmInstructions)}
		})
		if f.NewLine != 0 {
			kv["new_line"] = strconv.Itoa(f.NewLine)
		}
		rows = append(rows, row(kv))
	}
	for _, bk := range df.Buckets {
		rows = append(rows, row(map[string]string{"kind": "bucket", "name": bk.Name,
			"base_wasm_instructions": costfmt.Uint(bk.BaseWasmInstructions), "new_wasm_instructions": costfmt.Uint(bk.NewWasmInstructions),
			"delta_wasm_instructions": costfmt.Int(bk.DeltaWasmInstructions)}))
	}
	return costfmt.WriteCSV(w, rows)
}

// sideCells adds to a CSV row's cells those of each side the row has,
// under the side's prefix: base_ for base, new_ for new.
func sideCells[S any](kv map[string]string, base, new *S, cells func(*S) map[string]string) {
	for _, s := range []struct {
		prefix string
		side   *S
	}{{"base_", base}, {"new_", new}} {
		if s.side == nil {
			continue
		}
		for k, v := range cells(s.side) {
			kv[s.prefix+k] = v
		}
	}
}

// WriteJSON writes the diff as one indented JSON document (docs/compare.md).
func (df *Diff) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(df)
}

// writeSides writes the diff's first lines: each profile, its engine and
// mode (and, with wasm, whether its Wasm frames are apportioned).
func (df *Diff) writeSides(b *strings.Builder, wasm bool) {
	for _, s := range []struct {
		label string
		side  Side
	}{{"base", df.Base}, {"new ", df.New}} {
		name := s.side.Profile
		if name == "" {
			name = s.side.Module
		}
		fmt.Fprintf(b, "%s: %s: %s (%s mode", s.label, name, costfmt.EngineLabel(s.side.Engine), s.side.Mode)
		if wasm && s.side.WasmApportioned {
			b.WriteString("; Wasm functions' instructions apportioned")
		}
		if s.side.Engine.OpcodeNamesSource != "" {
			fmt.Fprintf(b, "; opcode names: %s", s.side.Engine.OpcodeNamesSource)
		}
		b.WriteString(")\n")
	}
	b.WriteString("\n")
}

// ratioText reads ×1.25, or what a ratio cannot say.
func ratioText(w *WasmFunction) string {
	switch {
	case w.Only != "":
		return OnlyText(w.Only)
	case w.Ratio == nil:
		return "new"
	}
	return fmt.Sprintf("×%.2f", *w.Ratio)
}

// WriteWasmText writes the Wasm view of the diff for a terminal (jsprof
// diff --by wasm): both profiles, their totals, then the Wasm functions
// aligned by name, by the size of the change in their self instructions
// (top rows; 0: all), and the view's buckets.
func (df *Diff) WriteWasmText(w io.Writer, top int) error {
	var b strings.Builder
	df.writeSides(&b, true)
	costfmt.WriteTable(&b, [][]string{
		{"", "base", "new", "change", ""},
		{"Wasm instructions", costfmt.Human(df.Base.TotalWasmInstructions), costfmt.Human(df.New.TotalWasmInstructions), costfmt.HumanSigned(df.DeltaWasmInstructions),
			costfmt.SignedPercent(float64(df.Base.TotalWasmInstructions), float64(df.New.TotalWasmInstructions))},
	})
	for _, warn := range df.WasmWarnings {
		fmt.Fprintf(&b, "warning: %s\n", warn)
	}
	b.WriteString("\n")
	if len(df.Wasm) == 0 {
		_, err := io.WriteString(w, b.String())
		return err
	}
	side := func(s *WasmSide) (self, total string) {
		if s == nil {
			return "-", "-"
		}
		return costfmt.Human(s.SelfWasmInstructions), costfmt.Human(s.TotalWasmInstructions)
	}
	row := func(wd *WasmFunction) []string {
		bs, bt := side(wd.Base)
		ns, nt := side(wd.New)
		return []string{wd.Name, bs, ns, costfmt.HumanSigned(wd.DeltaSelfWasmInstructions), ratioText(wd), bt, nt}
	}
	rows := [][]string{{"wasm function", "base self", "new self", "change", "ratio", "base total", "new total"}}
	shown, cut := costfmt.FirstN(df.Wasm, top)
	for i := range shown {
		rows = append(rows, row(&shown[i]))
	}
	if cut > 0 {
		var d int64
		for _, wd := range df.Wasm[len(shown):] {
			d += wd.DeltaSelfWasmInstructions
		}
		rows = append(rows, []string{fmt.Sprintf("… %d more Wasm functions", cut), "", "", costfmt.HumanSigned(d), "", "", ""})
	}
	for i := range df.WasmBuckets {
		rows = append(rows, row(&df.WasmBuckets[i]))
	}
	costfmt.WriteTable(&b, rows)
	_, err := io.WriteString(w, b.String())
	return err
}

// wasmDiffCSVHeader is the header row of jsprof diff --by wasm --csv: one
// table whose kind column says what a row is (total, wasm, interpreter or
// none).
var wasmDiffCSVHeader = []string{
	"kind", "name", "only", "base_index", "new_index",
	"base_self_wasm_instructions", "new_self_wasm_instructions", "delta_self_wasm_instructions", "ratio",
	"base_total_wasm_instructions", "new_total_wasm_instructions",
}

// WriteWasmCSV writes every row of the diff's Wasm view with exact counts:
// a total row, the Wasm functions by the size of their change, the view's
// buckets. Cells that do not apply are empty.
func (df *Diff) WriteWasmCSV(w io.Writer) error {
	rows := [][]string{wasmDiffCSVHeader}
	row := func(kv map[string]string) []string { return costfmt.CSVRow(wasmDiffCSVHeader, kv) }
	rows = append(rows, row(map[string]string{"kind": "total", "name": "total",
		"base_total_wasm_instructions": costfmt.Uint(df.Base.TotalWasmInstructions), "new_total_wasm_instructions": costfmt.Uint(df.New.TotalWasmInstructions)}))
	for _, list := range [][]WasmFunction{df.Wasm, df.WasmBuckets} {
		for _, wd := range list {
			kv := map[string]string{"kind": wd.Kind, "name": wd.Name, "only": wd.Only, "delta_self_wasm_instructions": costfmt.Int(wd.DeltaSelfWasmInstructions)}
			if wd.Ratio != nil {
				kv["ratio"] = costfmt.ExactFloat(*wd.Ratio)
			}
			sideCells(kv, wd.Base, wd.New, func(s *WasmSide) map[string]string {
				return map[string]string{"index": strconv.Itoa(s.Index), "self_wasm_instructions": costfmt.Uint(s.SelfWasmInstructions),
					"total_wasm_instructions": costfmt.Uint(s.TotalWasmInstructions)}
			})
			rows = append(rows, row(kv))
		}
	}
	return costfmt.WriteCSV(w, rows)
}

// wasmDiffJSON is the document of jsprof diff --by wasm --json.
type wasmDiffJSON struct {
	By                    string         `json:"by"`
	Base                  Side           `json:"base"`
	New                   Side           `json:"new"`
	DeltaWasmInstructions int64          `json:"delta_wasm_instructions"`
	WasmFunctions         []WasmFunction `json:"wasm_functions"`
	WasmBuckets           []WasmFunction `json:"wasm_buckets"`
	Warnings              []string       `json:"warnings"`
}

// WriteWasmJSON writes the diff's Wasm view as one indented JSON document.
func (df *Diff) WriteWasmJSON(w io.Writer) error {
	doc := wasmDiffJSON{By: report.ByWasm, Base: df.Base, New: df.New, DeltaWasmInstructions: df.DeltaWasmInstructions,
		WasmFunctions: df.Wasm, WasmBuckets: df.WasmBuckets, Warnings: df.WasmWarnings}
	if doc.WasmFunctions == nil {
		doc.WasmFunctions = []WasmFunction{}
	}
	if doc.WasmBuckets == nil {
		doc.WasmBuckets = []WasmFunction{}
	}
	if doc.Warnings == nil {
		doc.Warnings = []string{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
