package report

import (
	"fmt"
	"strings"

	"github.com/jsprof/jsprof/internal/view/costfmt"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// Views of a report (jsprof report --by).
const (
	ByOpcode   = "opcode"
	ByFunction = "function"
	ByLine     = "line"
	// BySummary is the view jsprof run --report prints: the opcode table,
	// then the functions with their self and total cost.
	BySummary = "summary"
	// ByWasm is the Wasm functions of the profile's stacks, each with the
	// JS opcodes and natives that reached it.
	ByWasm = "wasm"
)

// WasmCallersTop is how many callers the Wasm view shows under each Wasm
// function (fewer with a smaller --top, all with --top 0).
const WasmCallersTop = 5

// ReportOptions choose what a report shows.
type ReportOptions struct {
	By       string // ByOpcode (the default), ByFunction, ByLine, BySummary or ByWasm
	Top      int    // rows of each table (and opcodes under each function); 0: all
	Function string // only the JS functions of this name
	Source   string // the profile's file name, for headings
	// Inputs, for a profile merged over the runs of one module on several
	// inputs, are each run's facts; the JSON document lists them.
	Inputs []InputRun
	// InputCost is what each field path of each input costs to decode
	// (jsprof run --input-cost); the JSON document lists it, and the
	// table of inputs each one's costliest path.
	InputCost []InputCost
}

// InputRun is one input's run, of a module run on several inputs (jsprof
// run --input DIR): what the merged profile's tables cannot say of it.
type InputRun struct {
	Input                 string `json:"input"` // the path as given
	TotalWasmInstructions uint64 `json:"total_wasm_instructions"`
	ExitCode              int    `json:"exit_code"`
	MemoryBytes           uint64 `json:"linear_memory_bytes,omitempty"`
	InputBytes            uint64 `json:"input_bytes,omitempty"`
	OutputBytes           uint64 `json:"output_bytes,omitempty"`
	// Limits are a Shopify Function's, with those the run went over.
	Limits *jsprofile.Limits `json:"limits,omitempty"`
	// Throw is the uncaught JS error the run ended with.
	Throw *jsprofile.Throw `json:"throw,omitempty"`
	// Error is what kept jsprof from running it ("" when it ran).
	Error string `json:"error,omitempty"`
	// Kind is what the input file is: "run log" (Shopify CLI's log of a
	// production run), "fixture" (Shopify CLI's test fixture) or ""
	// (the input itself) (package inputfile).
	Kind string `json:"kind,omitempty"`
	// Production is the instructions production charged for this input
	// (a run log's fuelConsumed); 0: none said.
	Production uint64 `json:"production_instructions,omitempty"`
	// OutputMismatch is where a fixture's output and the function's
	// differ (inputfile.Mismatch); empty when they agree.
	OutputMismatch []string `json:"output_mismatch,omitempty"`
	// OutputProblem is what is wrong with an output function-runner still
	// counts as a success's (shopify.Shown.Problem).
	OutputProblem string `json:"output_problem,omitempty"`
	// CostliestPath is, of the input's field paths whose removal left
	// the output unchanged, the one that saved the most input decoding,
	// and CostliestSaved what it saved (jsprof run --input-cost:
	// InputCost). Paths whose removal changed the output (the input's
	// root objects always do) are not it.
	CostliestPath  string `json:"costliest_unchanged_path,omitempty"`
	CostliestSaved int64  `json:"costliest_unchanged_path_saved,omitempty"`
}

// Report is one view of a profile, ready to write as text, CSV or JSON
// (report_write.go), or as an HTML page (package htmlview).
type Report struct {
	opts ReportOptions
	// data is the profile, restricted to opts.Function: Opcodes, Lines and
	// Functions then cover those functions only, while the totals and the
	// shares stay those of the whole profile.
	data *Tables
	// matched counts the functions opts.Function matched.
	matched int
}

// NewReport makes the report opts ask for. It fails on an unknown view
// and on a function name no function has, listing the heaviest ones.
func NewReport(d *Tables, opts ReportOptions) (*Report, error) {
	switch opts.By {
	case "":
		opts.By = ByOpcode
	case ByOpcode, ByFunction, ByLine, BySummary, ByWasm:
	default:
		return nil, fmt.Errorf("--by %s: want %s, %s, %s, %s or %s", opts.By, ByOpcode, ByFunction, ByLine, BySummary, ByWasm)
	}
	if opts.Top < 0 {
		return nil, fmt.Errorf("--top %d: want 0 (all) or more", opts.Top)
	}
	if opts.By == ByWasm && opts.Function != "" {
		return nil, fmt.Errorf("--by %s covers the whole profile: --function %s does not apply to it", ByWasm, opts.Function)
	}
	r := &Report{opts: opts, data: d}
	if opts.Function != "" {
		f, n := d.onlyFunction(opts.Function)
		if n == 0 {
			return nil, fmt.Errorf("no JS function named %q in the profile (%s)", opts.Function, functionNames(d, 8))
		}
		r.data, r.matched = f, n
	}
	return r, nil
}

// Data is the profile the report shows (restricted to --function).
func (r *Report) Data() *Tables { return r.data }

// Options are what the report shows, its view set (ByOpcode when none
// was given).
func (r *Report) Options() ReportOptions { return r.opts }

// functionNames lists up to n function names, heaviest first.
func functionNames(d *Tables, n int) string {
	var names []string
	seen := map[string]bool{}
	for _, f := range d.Functions {
		if !seen[f.Name] {
			seen[f.Name] = true
			names = append(names, f.Name)
		}
	}
	if len(names) == 0 {
		return "it has none"
	}
	more := ""
	if len(names) > n {
		more = fmt.Sprintf(", and %d more", len(names)-n)
		names = names[:n]
	}
	return "it has " + strings.Join(names, ", ") + more
}

// onlyFunction keeps the functions named name: their opcodes summed, their
// lines. Totals stay those of the whole profile; buckets go.
func (d *Tables) onlyFunction(name string) (*Tables, int) {
	out := *d
	out.Functions, out.Lines, out.Buckets = nil, nil, []BucketCost{}
	out.WasmFunctions, out.WasmBuckets = []WasmFunctionStats{}, []WasmFunctionStats{} // of the whole profile only
	out.Executions, out.Calls, out.NativeCalls, out.NativeWasmInstructions = 0, 0, 0, 0
	ops := map[string]*OpcodeStats{}
	var order []string
	for _, f := range d.Functions {
		if f.Name != name {
			continue
		}
		out.Functions = append(out.Functions, f)
		out.Executions += f.Executions
		if f.Kind == FunctionNative {
			out.NativeCalls += f.Calls
			out.NativeWasmInstructions += f.SelfWasmInstructions
		} else {
			out.Calls += f.Calls
		}
		for _, o := range f.Opcodes {
			s := ops[o.Name]
			if s == nil {
				c := o
				c.Executions, c.WasmInstructions, c.EngineWork = 0, 0, nil
				s = &c
				ops[o.Name] = s
				order = append(order, o.Name)
			}
			s.Executions += o.Executions
			s.WasmInstructions += o.WasmInstructions
			for kind, n := range o.EngineWork {
				s.addEngineWork(kind, n)
			}
		}
	}
	total := float64(d.TotalWasmInstructions)
	out.Opcodes = make([]OpcodeStats, 0, len(order))
	for _, n := range order {
		o := ops[n]
		o.PerExecution = 0
		if o.Executions > 0 {
			o.PerExecution = float64(o.WasmInstructions) / float64(o.Executions)
		}
		o.Share = costfmt.Share(o.WasmInstructions, total)
		out.Opcodes = append(out.Opcodes, *o)
	}
	sortOpcodeStats(out.Opcodes)
	for _, l := range d.Lines {
		if l.Function == name {
			out.Lines = append(out.Lines, l)
		}
	}
	if out.Lines == nil {
		out.Lines = []LineStats{}
	}
	return &out, len(out.Functions)
}

// functionsByKind counts the JS and the native functions.
func (d *Tables) functionsByKind() (js, natives int) {
	for _, f := range d.Functions {
		if f.Kind == FunctionNative {
			natives++
		} else {
			js++
		}
	}
	return js, natives
}

// selfInstructions sums the functions' self instructions.
func (d *Tables) selfInstructions() uint64 {
	var n uint64
	for _, f := range d.Functions {
		n += f.SelfWasmInstructions
	}
	return n
}

// callersTop is how many callers the Wasm view shows under each function.
func (r *Report) callersTop() int {
	if r.opts.Top == 0 {
		return 0
	}
	return min(r.opts.Top, WasmCallersTop)
}

// CutCallers copies Wasm functions with their callers cut to the first n
// (0: all), OmittedCallers counting those cut.
func CutCallers(fs []WasmFunctionStats, n int) []WasmFunctionStats {
	out := make([]WasmFunctionStats, len(fs))
	for i, f := range fs {
		out[i] = f
		out[i].Callers, out[i].OmittedCallers = costfmt.FirstN(f.Callers, n)
	}
	return out
}

// opcodeSum adds up the opcodes cut from a table, for its "… N more" row.
func opcodeSum(ops []OpcodeStats) (execs, instr uint64) {
	for _, o := range ops {
		execs += o.Executions
		instr += o.WasmInstructions
	}
	return execs, instr
}
