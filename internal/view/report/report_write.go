package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/jsprof/jsprof/internal/view/costfmt"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// WriteText writes the report for a terminal: a heading, then the table of
// the view, aligned, with human-scaled counts.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	d := r.data
	r.writeHeading(&b)
	total := float64(d.TotalWasmInstructions)
	uncertain := false
	opName := func(o OpcodeStats) string {
		if o.UncertainName {
			uncertain = true
			return o.Name + costfmt.UncertainMark
		}
		return o.Name
	}
	opcodeRows := func() [][]string {
		rows := [][]string{{"opcode", "executions", "wasm instr", "instr/exec", "share"}}
		shown, cut := costfmt.FirstN(d.Opcodes, r.opts.Top)
		for _, o := range shown {
			rows = append(rows, []string{opName(o), costfmt.Human(o.Executions), costfmt.Human(o.WasmInstructions), costfmt.PerExecution(o.Executions, o.PerExecution), costfmt.Percent(float64(o.WasmInstructions), total)})
		}
		if cut > 0 {
			e, n := opcodeSum(d.Opcodes[len(shown):])
			rows = append(rows, []string{fmt.Sprintf("… %d more", cut), costfmt.Human(e), costfmt.Human(n), "", costfmt.Percent(float64(n), total)})
		}
		return rows
	}
	// Under the opcode table: the engine work in the opcodes shown.
	engineNotes := func() {
		shown, _ := costfmt.FirstN(d.Opcodes, r.opts.Top)
		var rows [][]string
		for i := range shown {
			if note := shown[i].EngineWorkNote(); note != "" && shown[i].WasmInstructions*100 >= d.TotalWasmInstructions {
				rows = append(rows, []string{"  " + opName(shown[i]), costfmt.Human(shown[i].WasmInstructions) + ",", note})
			}
		}
		if len(rows) > 0 {
			b.WriteString("\nengine work inside opcodes (told by the engine's Wasm function names, in the sampled Wasm stacks):\n")
			costfmt.WriteAligned(&b, rows, func(col int) bool { return col != 1 }, true)
		}
	}
	// The native functions' own instructions, between the opcodes and the
	// buckets: with them the rows add up to the total.
	nativeRow := func() []string {
		return []string{"native functions (--by function)", "", costfmt.Human(d.NativeWasmInstructions), "", costfmt.Percent(float64(d.NativeWasmInstructions), total)}
	}
	switch r.opts.By {
	case ByOpcode:
		rows := opcodeRows()
		if d.NativeWasmInstructions > 0 {
			rows = append(rows, nativeRow())
		}
		for _, bk := range d.Buckets {
			rows = append(rows, []string{bk.Name, "", costfmt.Human(bk.WasmInstructions), "", costfmt.Percent(float64(bk.WasmInstructions), total)})
		}
		costfmt.WriteTable(&b, rows)
		engineNotes()
	case BySummary:
		if len(d.Phases) > 0 {
			rows := [][]string{{"phase", "wasm instr", "share"}}
			for _, ph := range d.Phases {
				rows = append(rows, []string{ph.Name, costfmt.Human(ph.WasmInstructions), costfmt.Percent(float64(ph.WasmInstructions), total)})
			}
			costfmt.WriteTable(&b, rows)
			b.WriteString("\n")
		}
		ops := opcodeRows()
		if d.NativeWasmInstructions > 0 {
			ops = append(ops, nativeRow())
		}
		costfmt.WriteTable(&b, ops)
		engineNotes()
		b.WriteString("\n")
		rows := [][]string{{"function", "calls", "self instr", "total instr", "self share"}}
		shown, cut := costfmt.FirstN(d.Functions, r.opts.Top)
		for _, f := range shown {
			rows = append(rows, []string{f.Label(), costfmt.Human(f.Calls), costfmt.Human(f.SelfWasmInstructions), costfmt.Human(f.TotalWasmInstructions), costfmt.Percent(float64(f.SelfWasmInstructions), total)})
		}
		if cut > 0 {
			var calls, n uint64
			for _, f := range d.Functions[len(shown):] {
				calls, n = calls+f.Calls, n+f.SelfWasmInstructions
			}
			rows = append(rows, []string{fmt.Sprintf("… %d more functions", cut), costfmt.Human(calls), costfmt.Human(n), "", costfmt.Percent(float64(n), total)})
		}
		for _, bk := range d.Buckets {
			rows = append(rows, []string{bk.Name, "", costfmt.Human(bk.WasmInstructions), "", costfmt.Percent(float64(bk.WasmInstructions), total)})
		}
		costfmt.WriteTable(&b, rows)
	case ByFunction:
		cum := d.Mode == jsprofile.ModeSample
		head := []string{"function / opcode", "calls", "executions", "wasm instr", "instr/exec", "share"}
		if cum {
			head = append(head, "cum instr", "cum share")
		}
		rows := [][]string{head}
		shown, cut := costfmt.FirstN(d.Functions, r.opts.Top)
		for _, f := range shown {
			row := []string{f.Label(), costfmt.Human(f.Calls), costfmt.Human(f.Executions), costfmt.Human(f.SelfWasmInstructions), "", costfmt.Percent(float64(f.SelfWasmInstructions), total)}
			if cum {
				row = append(row, costfmt.Human(f.TotalWasmInstructions), costfmt.Percent(float64(f.TotalWasmInstructions), total))
			}
			rows = append(rows, row)
			ops, opsCut := costfmt.FirstN(f.Opcodes, r.opts.Top)
			for _, o := range ops {
				row := []string{"  " + opName(o), "", costfmt.Human(o.Executions), costfmt.Human(o.WasmInstructions), costfmt.PerExecution(o.Executions, o.PerExecution), costfmt.Percent(float64(o.WasmInstructions), total)}
				if cum {
					row = append(row, "", "")
				}
				rows = append(rows, row)
			}
			if opsCut > 0 {
				e, n := opcodeSum(f.Opcodes[len(ops):])
				row := []string{fmt.Sprintf("  … %d more", opsCut), "", costfmt.Human(e), costfmt.Human(n), "", costfmt.Percent(float64(n), total)}
				if cum {
					row = append(row, "", "")
				}
				rows = append(rows, row)
			}
		}
		if cut > 0 {
			var calls, e, n uint64
			for _, f := range d.Functions[len(shown):] {
				calls, e, n = calls+f.Calls, e+f.Executions, n+f.SelfWasmInstructions
			}
			row := []string{fmt.Sprintf("… %d more functions", cut), costfmt.Human(calls), costfmt.Human(e), costfmt.Human(n), "", costfmt.Percent(float64(n), total)}
			if cum {
				row = append(row, "", "")
			}
			rows = append(rows, row)
		}
		for _, bk := range d.Buckets {
			row := []string{bk.Name, "", "", costfmt.Human(bk.WasmInstructions), "", costfmt.Percent(float64(bk.WasmInstructions), total)}
			if cum {
				row = append(row, "", "")
			}
			rows = append(rows, row)
		}
		costfmt.WriteTable(&b, rows)
	case ByLine:
		rows := [][]string{{"line", "function", "executions", "self instr", "total instr", "self share", "total share"}}
		shown, cut := costfmt.FirstN(d.Lines, r.opts.Top)
		for _, l := range shown {
			rows = append(rows, []string{l.Label(), l.Function, costfmt.Human(l.Executions), costfmt.Human(l.SelfWasmInstructions), costfmt.Human(l.TotalWasmInstructions),
				costfmt.Percent(float64(l.SelfWasmInstructions), total), costfmt.Percent(float64(l.TotalWasmInstructions), total)})
		}
		if cut > 0 {
			var e, n uint64
			for _, l := range d.Lines[len(shown):] {
				e, n = e+l.Executions, n+l.SelfWasmInstructions
			}
			rows = append(rows, []string{fmt.Sprintf("… %d more", cut), "", costfmt.Human(e), costfmt.Human(n), "", costfmt.Percent(float64(n), total), ""})
		}
		// The natives' own instructions are in no line: with them and the
		// buckets, the self column adds up to the total.
		if d.NativeWasmInstructions > 0 {
			rows = append(rows, []string{"native functions (--by function)", "", "", costfmt.Human(d.NativeWasmInstructions), "", costfmt.Percent(float64(d.NativeWasmInstructions), total), ""})
		}
		for _, bk := range d.Buckets {
			rows = append(rows, []string{bk.Name, "", "", costfmt.Human(bk.WasmInstructions), "", costfmt.Percent(float64(bk.WasmInstructions), total), ""})
		}
		costfmt.WriteAligned(&b, rows, func(col int) bool { return col < 2 }, true)
		if n := d.LineNote(); n != "" {
			fmt.Fprintf(&b, "note: %s\n", n)
		}
	case ByWasm:
		if len(d.WasmFunctions) == 0 {
			break
		}
		rows := [][]string{{"wasm function / reached from", "self instr", "self share", "total instr", "total share"}}
		fnRows := func(f WasmFunctionStats) {
			rows = append(rows, []string{f.Name, costfmt.Human(f.SelfWasmInstructions), costfmt.Percent(float64(f.SelfWasmInstructions), total),
				costfmt.Human(f.TotalWasmInstructions), costfmt.Percent(float64(f.TotalWasmInstructions), total)})
			cs, csCut := costfmt.FirstN(f.Callers, r.callersTop())
			for _, c := range cs {
				label := c.Label()
				if c.UncertainName {
					label += costfmt.UncertainMark
					uncertain = true
				}
				rows = append(rows, []string{"  " + label, costfmt.Human(c.SelfWasmInstructions), costfmt.Percent(float64(c.SelfWasmInstructions), total),
					costfmt.Human(c.TotalWasmInstructions), costfmt.Percent(float64(c.TotalWasmInstructions), total)})
			}
			if csCut > 0 {
				self, tot := wasmCallerSum(f.Callers[len(cs):])
				rows = append(rows, []string{fmt.Sprintf("  … %d more", csCut), costfmt.Human(self), costfmt.Percent(float64(self), total),
					costfmt.Human(tot), costfmt.Percent(float64(tot), total)})
			}
		}
		shown, cut := costfmt.FirstN(d.WasmFunctions, r.opts.Top)
		for _, f := range shown {
			fnRows(f)
		}
		if cut > 0 {
			var n uint64
			for _, f := range d.WasmFunctions[len(shown):] {
				n += f.SelfWasmInstructions
			}
			rows = append(rows, []string{fmt.Sprintf("… %d more Wasm functions", cut), costfmt.Human(n), costfmt.Percent(float64(n), total), "", ""})
		}
		for _, f := range d.WasmBuckets {
			fnRows(f)
		}
		costfmt.WriteTable(&b, rows)
	}
	if uncertain {
		fmt.Fprintf(&b, "\n%s: name uncertain (%s)\n", costfmt.UncertainMark, costfmt.UncertainWhy(d.Engine))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *Report) writeHeading(b *strings.Builder) {
	d := r.data
	what := r.opts.Source
	if what == "" {
		what = d.Module
	}
	if what != "" {
		what += ": "
	}
	counted := "Wasm instructions"
	if d.CostModel == jsprofile.CostFuel {
		counted = "Wasm instructions (fuel)"
	}
	if d.Run.Export != "" {
		counted += " in " + d.Run.Export
	}
	fmt.Fprintf(b, "%s%s %s, %s mode (engine: %s", what, costfmt.Human(d.TotalWasmInstructions), counted, d.Mode, costfmt.EngineLabel(d.Engine))
	if d.Engine.OpcodeNamesSource != "" {
		fmt.Fprintf(b, "; opcode names: %s", d.Engine.OpcodeNamesSource)
	}
	b.WriteString(")\n")
	if r.opts.Function != "" {
		noun := "function"
		if r.matched > 1 {
			noun = fmt.Sprintf("%d functions", r.matched)
		}
		self := d.selfInstructions()
		fmt.Fprintf(b, "%s %s: %s, %s opcode executions, %s Wasm instructions (%s)\n", noun, r.opts.Function,
			costfmt.CountNoun(d.Calls+d.NativeCalls, "call", "calls"), costfmt.Human(d.Executions), costfmt.Human(self), costfmt.Percent(float64(self), float64(d.TotalWasmInstructions)))
	} else {
		js, natives := d.functionsByKind()
		fmt.Fprintf(b, "%s JS opcode executions, %s, %s", costfmt.Human(d.Executions),
			costfmt.CountNoun(d.Calls, "JS call", "JS calls"), costfmt.CountNoun(uint64(js), "JS function", "JS functions"))
		if natives > 0 {
			fmt.Fprintf(b, "; %s of %s", costfmt.CountNoun(d.NativeCalls, "native call", "native calls"), costfmt.CountNoun(uint64(natives), "native function", "native functions"))
		}
		b.WriteString("\n")
	}
	if d.Mode == jsprofile.ModeSample && d.Executions == 0 {
		b.WriteString("sample mode counts no opcode executions or calls (--mode exact does)\n")
	}
	if d.Mode == jsprofile.ModeSample && d.SampledWasmInstructions != d.TotalWasmInstructions {
		fmt.Fprintf(b, "samples: %s Wasm instructions\n", costfmt.Human(d.SampledWasmInstructions))
	}
	if d.UnnamedWasmInstructions > 0 {
		of := "of the samples"
		if d.WasmApportioned {
			of = "of the instructions (apportioned)"
		}
		fmt.Fprintf(b, "in Wasm functions without a name (wasm-function[N]): %s %s\n",
			costfmt.Percent(float64(d.UnnamedWasmInstructions), float64(d.SampledWasmInstructions)), of)
	}
	if r.opts.By == ByWasm {
		switch {
		case len(d.WasmFunctions) == 0:
			b.WriteString("the profile has no Wasm frames (jsprof run --mode sample records them)\n")
		case d.WasmApportioned:
			b.WriteString("Wasm functions' instructions (apportioned): each opcode's exact cost split among the Wasm functions its handler ran, in the proportions sampled\n")
		}
	}
	if n := len(d.CheckFailures); n > 0 {
		fmt.Fprintf(b, "%sself-check: the engine contradicts the measurement of %d of %d JS functions; their opcodes and lines are not to be trusted:\n", CheckMark, n, d.CheckedFunctions)
		for _, c := range d.CheckFailures {
			fmt.Fprintf(b, "%s  %s: %s\n", CheckMark, c.Function, c.Why)
		}
	}
	if d.Trap != "" {
		fmt.Fprintf(b, "the guest trapped: %s\n", d.Trap)
		if d.Throw != nil {
			fmt.Fprintf(b, "uncaught: %s\n", d.Throw.Message)
			for _, f := range d.Throw.Stack {
				fmt.Fprintf(b, "    at %s\n", f)
			}
		}
	} else if d.ExitCode != nil && *d.ExitCode != 0 {
		fmt.Fprintf(b, "the guest exited with code %d\n", *d.ExitCode)
	}
	b.WriteString("\n")
}

// WriteCSV writes the view's rows with exact integers, one header row:
//
//	opcode:   opcode,opcode_value,uncertain_name,executions,wasm_instructions,instructions_per_execution,share
//	function: function,file,line,bytecode_address,calls,self_wasm_instructions,total_wasm_instructions,opcode,opcode_value,uncertain_name,executions,wasm_instructions,instructions_per_execution,share
//	line:     file,line,function,function_line,executions,self_wasm_instructions,total_wasm_instructions,share,total_share
//	wasm:     wasm_function,kind,index,self_wasm_instructions,total_wasm_instructions,share,total_share,caller,caller_kind,caller_uncertain_name,caller_self_wasm_instructions,caller_total_wasm_instructions
//
// The function view has a row per function × opcode, the Wasm view a row
// per Wasm function × caller (its top 5 with --top; all without), then its
// buckets' rows (kind interpreter, none). --top cuts rows; shares are
// fractions of the whole profile's total.
func (r *Report) WriteCSV(w io.Writer) error {
	d := r.data
	opCols := func(o OpcodeStats) []string {
		return []string{o.Name, strconv.Itoa(o.Opcode), strconv.FormatBool(o.UncertainName), costfmt.Uint(o.Executions), costfmt.Uint(o.WasmInstructions), costfmt.ExactFloat(o.PerExecution), costfmt.ExactFloat(o.Share)}
	}
	var rows [][]string
	switch r.opts.By {
	case BySummary:
		return fmt.Errorf("--by %s has no CSV: CSV has one table, choose --by %s, %s, %s or %s", BySummary, ByOpcode, ByFunction, ByLine, ByWasm)
	case ByOpcode:
		rows = append(rows, []string{"opcode", "opcode_value", "uncertain_name", "executions", "wasm_instructions", "instructions_per_execution", "share"})
		shown, _ := costfmt.FirstN(d.Opcodes, r.opts.Top)
		for _, o := range shown {
			rows = append(rows, opCols(o))
		}
	case ByFunction:
		rows = append(rows, []string{"function", "file", "line", "bytecode_address", "calls", "self_wasm_instructions", "total_wasm_instructions",
			"opcode", "opcode_value", "uncertain_name", "executions", "wasm_instructions", "instructions_per_execution", "share"})
		shown, _ := costfmt.FirstN(d.Functions, r.opts.Top)
		for _, f := range shown {
			fn := []string{f.Name, f.File, strconv.Itoa(f.Line), fmt.Sprintf("%#x", f.Address), costfmt.Uint(f.Calls), costfmt.Uint(f.SelfWasmInstructions), costfmt.Uint(f.TotalWasmInstructions)}
			ops, _ := costfmt.FirstN(f.Opcodes, r.opts.Top)
			if len(ops) == 0 { // called, never dispatched an opcode
				rows = append(rows, append(fn, "", "", "", "0", "0", "0", "0"))
			}
			for _, o := range ops {
				rows = append(rows, append(append([]string(nil), fn...), opCols(o)...))
			}
		}
	case ByLine:
		rows = append(rows, []string{"file", "line", "function", "function_line", "executions", "self_wasm_instructions", "total_wasm_instructions", "share", "total_share"})
		shown, _ := costfmt.FirstN(d.Lines, r.opts.Top)
		for _, l := range shown {
			rows = append(rows, []string{l.File, strconv.Itoa(l.Line), l.Function, strconv.Itoa(l.FunctionLine), costfmt.Uint(l.Executions),
				costfmt.Uint(l.SelfWasmInstructions), costfmt.Uint(l.TotalWasmInstructions), costfmt.ExactFloat(l.Share), costfmt.ExactFloat(l.TotalShare)})
		}
	case ByWasm:
		rows = append(rows, []string{"wasm_function", "kind", "index", "self_wasm_instructions", "total_wasm_instructions", "share", "total_share",
			"caller", "caller_kind", "caller_uncertain_name", "caller_self_wasm_instructions", "caller_total_wasm_instructions"})
		fnRows := func(f WasmFunctionStats) {
			fn := []string{f.Name, f.Kind, strconv.Itoa(f.Index), costfmt.Uint(f.SelfWasmInstructions), costfmt.Uint(f.TotalWasmInstructions), costfmt.ExactFloat(f.Share), costfmt.ExactFloat(f.TotalShare)}
			cs, _ := costfmt.FirstN(f.Callers, r.callersTop())
			if len(cs) == 0 {
				rows = append(rows, append(fn, "", "", "", "0", "0"))
			}
			for _, c := range cs {
				rows = append(rows, append(append([]string(nil), fn...), c.Name, c.Kind, strconv.FormatBool(c.UncertainName),
					costfmt.Uint(c.SelfWasmInstructions), costfmt.Uint(c.TotalWasmInstructions)))
			}
		}
		shown, _ := costfmt.FirstN(d.WasmFunctions, r.opts.Top)
		for _, f := range shown {
			fnRows(f)
		}
		for _, f := range d.WasmBuckets {
			fnRows(f)
		}
	}
	return costfmt.WriteCSV(w, rows)
}

// reportJSON is the document of jsprof report --json (docs/reports.md).
type reportJSON struct {
	Profile                  string                   `json:"profile,omitempty"`
	By                       string                   `json:"by"`
	Function                 string                   `json:"function,omitempty"`
	Mode                     string                   `json:"mode"`
	Module                   string                   `json:"module,omitempty"`
	ExitCode                 *int                     `json:"exit_code,omitempty"`
	Trap                     string                   `json:"trap,omitempty"`
	Throw                    *jsprofile.Throw         `json:"throw,omitempty"`
	CostModel                string                   `json:"cost_model,omitempty"`
	Run                      *jsprofile.RunInfo       `json:"run,omitempty"`
	Engine                   jsprofile.EngineInfo     `json:"engine"`
	UncertainOpcodes         []int                    `json:"uncertain_opcodes"`
	TotalWasmInstructions    uint64                   `json:"total_wasm_instructions"`
	SampledWasmInstructions  uint64                   `json:"sampled_wasm_instructions"`
	SelectedWasmInstructions uint64                   `json:"selected_wasm_instructions"`
	Executions               uint64                   `json:"opcode_executions"`
	Calls                    uint64                   `json:"calls"`
	NativeCalls              uint64                   `json:"native_calls,omitempty"`
	NativeWasmInstructions   uint64                   `json:"native_wasm_instructions,omitempty"`
	UnnamedWasmInstructions  uint64                   `json:"unnamed_wasm_instructions,omitempty"`
	Opcodes                  *[]OpcodeStats           `json:"opcodes,omitempty"`
	Functions                *[]FunctionStats         `json:"functions,omitempty"`
	Lines                    *[]LineStats             `json:"lines,omitempty"`
	Buckets                  []BucketCost             `json:"buckets"`
	Phases                   []BucketCost             `json:"phases,omitempty"`
	WasmApportioned          bool                     `json:"wasm_apportioned,omitempty"`
	WasmFunctions            *[]WasmFunctionStats     `json:"wasm_functions,omitempty"`
	WasmBuckets              []WasmFunctionStats      `json:"wasm_buckets,omitempty"`
	CheckedFunctions         int                      `json:"checked_functions,omitempty"`
	CheckFailures            []jsprofile.CheckFailure `json:"check_failures,omitempty"`
	OmittedRows              int                      `json:"omitted_rows"`
	Inputs                   []InputRun               `json:"inputs,omitempty"`
	InputCost                []InputCost              `json:"input_cost,omitempty"`
}

// WriteJSON writes the view as one indented JSON document
// (docs/reports.md).
func (r *Report) WriteJSON(w io.Writer) error {
	d := r.data
	doc := reportJSON{
		Profile: r.opts.Source, By: r.opts.By, Function: r.opts.Function, Mode: d.Mode, Module: d.Module, ExitCode: d.ExitCode, Trap: d.Trap, Throw: d.Throw,
		Engine: d.Engine, UncertainOpcodes: d.UncertainOpcodes,
		TotalWasmInstructions: d.TotalWasmInstructions, SampledWasmInstructions: d.SampledWasmInstructions,
		SelectedWasmInstructions: d.SampledWasmInstructions, Executions: d.Executions, Calls: d.Calls,
		NativeCalls: d.NativeCalls, NativeWasmInstructions: d.NativeWasmInstructions, UnnamedWasmInstructions: d.UnnamedWasmInstructions,
		Buckets: d.Buckets, CostModel: d.CostModel, CheckedFunctions: d.CheckedFunctions, CheckFailures: d.CheckFailures,
	}
	if d.Run != (jsprofile.RunInfo{}) {
		doc.Run = &d.Run
	}
	doc.Inputs, doc.InputCost = WithCostliest(r.opts.Inputs, r.opts.InputCost), r.opts.InputCost
	if r.opts.Function != "" {
		doc.SelectedWasmInstructions = d.selfInstructions()
	}
	if doc.Engine.Releases == nil {
		doc.Engine.Releases = []string{}
	}
	switch r.opts.By {
	case ByOpcode:
		ops, cut := costfmt.FirstN(d.Opcodes, r.opts.Top)
		doc.Opcodes, doc.OmittedRows = &ops, cut
	case BySummary:
		ops, _ := costfmt.FirstN(d.Opcodes, r.opts.Top)
		doc.Opcodes, doc.Phases = &ops, d.Phases
		fallthrough
	case ByFunction:
		fns, cut := costfmt.FirstN(d.Functions, r.opts.Top)
		out := make([]FunctionStats, len(fns))
		for i, f := range fns {
			out[i] = f
			out[i].Opcodes, _ = costfmt.FirstN(f.Opcodes, r.opts.Top)
		}
		doc.Functions, doc.OmittedRows = &out, cut
	case ByLine:
		lines, cut := costfmt.FirstN(d.Lines, r.opts.Top)
		doc.Lines, doc.OmittedRows = &lines, cut
	case ByWasm:
		fns, cut := costfmt.FirstN(d.WasmFunctions, r.opts.Top)
		out := CutCallers(fns, r.callersTop())
		doc.WasmFunctions, doc.OmittedRows = &out, cut
		doc.WasmBuckets = CutCallers(d.WasmBuckets, r.callersTop())
		doc.WasmApportioned = d.WasmApportioned
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
