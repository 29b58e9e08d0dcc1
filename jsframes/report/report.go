package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/google/pprof/profile"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// Names used when a sample lacks the frame a view is keyed by.
const (
	// NoOpcodeName is the pseudo-opcode of instructions charged to a JS
	// function without an opcode frame under it (sampling mode only).
	NoOpcodeName = "(no opcode)"
)

// Tables are the cost tables of a profile, computed from the profile alone
// (New): per opcode, per JS function × opcode, per line, with the engine
// and the totals. Every report of jsprof (jsprof report, run --report and
// --report-json, diff, compare, HTML) shows these tables. Opcodes,
// Functions (and their Opcodes) and Lines are sorted by Wasm instructions,
// most first.
type Tables struct {
	Mode string `json:"mode"` // "exact" or "sample"
	// TotalWasmInstructions is the jsprof.total_wasm_instructions comment:
	// every instruction the run executed, the whole that shares are of.
	TotalWasmInstructions uint64 `json:"total_wasm_instructions"`
	// SampledWasmInstructions is the sum of the samples: equal to the total
	// in exact mode, within the sampling in sampling mode.
	SampledWasmInstructions uint64 `json:"sampled_wasm_instructions"`
	// Executions sums every sample's opcode executions, Calls the calls of
	// JS functions, NativeCalls those of native functions.
	Executions  uint64               `json:"opcode_executions"`
	Calls       uint64               `json:"calls"`
	NativeCalls uint64               `json:"native_calls,omitempty"`
	Engine      jsprofile.EngineInfo `json:"engine"`
	// UncertainOpcodes are the opcode values whose names are guesses.
	UncertainOpcodes []int  `json:"uncertain_opcodes"`
	Module           string `json:"module,omitempty"`
	ExitCode         *int   `json:"exit_code,omitempty"`
	Trap             string `json:"trap,omitempty"`
	// CostModel is what one instruction cost (jsprofile.CostAll or
	// CostFuel); "" for profiles that do not say (they count all).
	CostModel string            `json:"cost_model,omitempty"`
	Run       jsprofile.RunInfo `json:"run"`

	// NativeWasmInstructions ran in named native functions themselves
	// (the functions of kind native): with the opcodes' and the buckets',
	// it adds up to the samples' instructions.
	NativeWasmInstructions uint64 `json:"native_wasm_instructions,omitempty"`
	// UnnamedWasmInstructions is the sampled (in exact mode, apportioned)
	// weight whose innermost frame
	// is a Wasm function without a name (wasm-function[N]): what a
	// stripped build leaves unnamed. Sample mode only.
	UnnamedWasmInstructions uint64 `json:"unnamed_wasm_instructions,omitempty"`

	Opcodes []OpcodeStats `json:"opcodes"`
	// Functions are the JS functions and the native functions (Kind).
	Functions []FunctionStats `json:"functions"`
	Lines     []LineStats     `json:"lines"`
	Buckets   []BucketCost    `json:"buckets"`
	// Phases are the run's phases (exact profiles' root frames: engine
	// start-up, input decoding, the JS program, output encoding, garbage
	// collection, the engine between and after JS), in that order, those
	// with instructions; they add up to the sampled total. None for a
	// profile without phase frames.
	Phases []BucketCost `json:"phases,omitempty"`

	// WasmFunctions are the Wasm functions of the profile's stacks (the
	// Wasm view, jsprof report --by wasm), by self instructions, most
	// first; WasmBuckets the view's rows for what ran in no Wasm frame of
	// the profile (WasmInterpreterName, WasmNoFrameName). Both are empty
	// when the profile has no Wasm frame.
	WasmFunctions []WasmFunctionStats `json:"wasm_functions"`
	WasmBuckets   []WasmFunctionStats `json:"wasm_buckets"`
	// WasmApportioned says that the profile's Wasm frames are apportioned
	// rather than measured: in exact mode, each opcode's exact cost split
	// among the Wasm functions its handler ran in the proportions sampled,
	// so that the Wasm functions' costs are estimates while the opcodes'
	// and the JS functions' stay exact.
	WasmApportioned bool `json:"wasm_apportioned,omitempty"`
}

// Function kinds (FunctionStats.Kind).
const (
	FunctionJS     = "js"
	FunctionNative = "native" // a native (C) builtin: JSON.parse
)

// OpcodeStats is one opcode's cost, in the whole profile or in one function.
type OpcodeStats struct {
	Name string `json:"name"` // without the op: prefix
	// Opcode is the byte value in this engine (256: call setup; -1: no
	// opcode frame). Values differ between releases; names do not.
	Opcode           int     `json:"opcode"`
	UncertainName    bool    `json:"uncertain_name,omitempty"`
	Executions       uint64  `json:"executions"`
	WasmInstructions uint64  `json:"wasm_instructions"`
	PerExecution     float64 `json:"instructions_per_execution"` // 0 when never executed
	Share            float64 `json:"share"`                      // of the profile's total, 0..1
}

// FunctionStats is one JS function's cost, or a native function's (Kind
// native: no file, line, address, executions, opcodes or lines; its self
// instructions are what it ran itself, its total includes the JS it called
// back).
type FunctionStats struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"` // FunctionJS or FunctionNative
	File    string `json:"file"`
	Line    int    `json:"line"` // first line
	Address uint64 `json:"bytecode_address"`
	Calls   uint64 `json:"calls"`
	// Executions counts the opcodes this function executed.
	Executions uint64 `json:"executions"`
	// SelfWasmInstructions ran while this function was the innermost JS
	// frame; TotalWasmInstructions while it was on the stack at all
	// (recursion counted once): pprof's flat and cum.
	SelfWasmInstructions  uint64        `json:"self_wasm_instructions"`
	TotalWasmInstructions uint64        `json:"total_wasm_instructions"`
	Share                 float64       `json:"share"` // self, of the profile's total
	Opcodes               []OpcodeStats `json:"opcodes"`
}

// Key identifies the function across profiles of the same JS: its name,
// file and first line (bytecode addresses differ between engines). A name
// that carries an address (anonymous@0x148ac4) is keyed without it where
// the file and line say which function it is.
func (f *FunctionStats) Key() string {
	if f.Kind == FunctionNative {
		return "native\x00" + f.Name // the same builtin on every engine
	}
	name := f.Name
	if i := strings.LastIndex(name, "@0x"); i > 0 && f.File != "" && f.Line > 0 {
		name = name[:i]
	}
	return fmt.Sprintf("%s\x00%s\x00%d", name, f.File, f.Line)
}

// Label is how reports print the function: fib (index.js:1), JSON.parse
// (native).
func (f *FunctionStats) Label() string {
	switch {
	case f.Kind == FunctionNative:
		return f.Name + " (native)"
	case f.File != "" && f.Line > 0:
		return fmt.Sprintf("%s (%s:%d)", f.Name, f.File, f.Line)
	case f.File != "":
		return fmt.Sprintf("%s (%s)", f.Name, f.File)
	}
	return f.Name
}

// LineStats is the cost of one source line of one JS function.
type LineStats struct {
	Function         string  `json:"function"`
	FunctionLine     int     `json:"function_line"` // the function's first line
	File             string  `json:"file"`
	Line             int     `json:"line"` // 0 when unknown
	Executions       uint64  `json:"executions"`
	WasmInstructions uint64  `json:"wasm_instructions"`
	Share            float64 `json:"share"`
}

// BucketCost is a bucket of instructions outside JS opcodes (jsprofile's
// Bucket* names).
type BucketCost struct {
	Name             string `json:"name"`
	WasmInstructions uint64 `json:"wasm_instructions"`
}

// ReadFile reads a jsprof profile from a file and computes its tables;
// errors name the file.
func ReadFile(path string) (*Tables, error) {
	p, err := jsprofile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return New(p), nil
}

// FromProfile reads p (jsprofile.Read) and computes its tables.
func FromProfile(p *profile.Profile) (*Tables, error) {
	jp, err := jsprofile.Read(p)
	if err != nil {
		return nil, err
	}
	return New(jp), nil
}

// New computes p's tables. p has been checked by jsprofile.Read, so every
// sample's values and frames are known good.
func New(p *jsprofile.Profile) *Tables {
	m := p.Meta
	d := &Tables{Mode: m.Mode, TotalWasmInstructions: m.TotalInstructions, Engine: m.Engine,
		UncertainOpcodes: m.UncertainOpcodes, Module: m.Module, ExitCode: m.ExitCode, Trap: m.Trap, CostModel: m.CostModel, Run: m.Run}
	if d.Engine.Releases == nil {
		d.Engine.Releases = []string{}
	}
	if d.UncertainOpcodes == nil {
		d.UncertainOpcodes = []int{}
	}
	uncertain := map[int]bool{}
	for _, op := range d.UncertainOpcodes {
		uncertain[op] = true
	}

	type fnAcc struct {
		stats   FunctionStats
		opcodes map[string]*OpcodeStats
	}
	opcodes := map[string]*OpcodeStats{}
	functions := map[string]*fnAcc{} // by system_name
	function := func(f jsprofile.StackFrame) *fnAcc {
		a := functions[f.Function.SystemName]
		if a == nil {
			a = &fnAcc{stats: FunctionStats{Name: f.Function.Name, Kind: FunctionJS, File: f.Function.Filename, Line: int(f.Function.StartLine),
				Address: jsprofile.JSAddress(f.Function.SystemName)}, opcodes: map[string]*OpcodeStats{}}
			if f.Kind == jsprofile.KindNative {
				a.stats = FunctionStats{Name: f.Function.Name, Kind: FunctionNative}
			}
			functions[f.Function.SystemName] = a
		}
		return a
	}
	type lineKey struct {
		function string // system name
		line     int64
	}
	lines := map[lineKey]*LineStats{}
	buckets := map[string]uint64{}
	phases := map[string]uint64{}
	opStats := func(m map[string]*OpcodeStats, f *jsprofile.StackFrame) *OpcodeStats {
		name := NoOpcodeName
		op := -1
		if f != nil {
			name, op = strings.TrimPrefix(f.Function.Name, jsprofile.OpcodePrefix), f.Opcode
		}
		s := m[name]
		if s == nil {
			s = &OpcodeStats{Name: name, Opcode: op, UncertainName: f != nil && uncertain[op]}
			m[name] = s
		}
		return s
	}
	var stack []jsprofile.StackFrame
	onStack := map[string]bool{}
	for _, s := range p.Sample {
		instr, execs, calls := uint64(s.Value[jsprofile.ValueInstructions]), uint64(s.Value[jsprofile.ValueExecutions]), uint64(s.Value[jsprofile.ValueCalls])
		d.SampledWasmInstructions += instr
		d.Executions += execs
		stack = p.Stack(s, stack) // leaf first
		if n := len(stack); n > 0 && stack[n-1].Kind == jsprofile.KindPhase {
			phases[strings.TrimPrefix(stack[n-1].Function.Name, jsprofile.PhasePrefix)] += instr
		}
		if len(stack) > 0 && stack[0].Kind == jsprofile.KindWasm && isUnnamedWasm(stack[0].Function.Name) {
			d.UnnamedWasmInstructions += instr
		}
		// The sample's owner: its innermost JS function, native function
		// or bucket — a native's callees and a bucket's are Wasm frames.
		own := -1
		for k := range stack {
			if kind := stack[k].Kind; kind == jsprofile.KindJS || kind == jsprofile.KindNative || kind == jsprofile.KindBucket {
				own = k
				break
			}
		}
		switch {
		case own < 0:
			// No interpreter activation, and no bucket frame: outside JS.
			buckets[jsprofile.BucketOutside] += instr
			continue
		case stack[own].Kind == jsprofile.KindBucket:
			// Outside JS (a root bucket), or an activation no frame names:
			// its JS callers' totals hold it.
			buckets[stack[own].Function.Name] += instr
		case stack[own].Kind == jsprofile.KindNative:
			acc := function(stack[own])
			acc.stats.Calls += calls
			acc.stats.SelfWasmInstructions += instr
			d.NativeCalls += calls
			d.NativeWasmInstructions += instr
		default:
			js, op := own, -1 // an opcode frame under the JS frame
			for k := 0; k < js; k++ {
				if stack[k].Kind == jsprofile.KindOpcode {
					op = k
					break
				}
			}
			var opFrame *jsprofile.StackFrame
			if op >= 0 {
				opFrame = &stack[op]
			}
			if instr > 0 || execs > 0 {
				o := opStats(opcodes, opFrame)
				o.Executions += execs
				o.WasmInstructions += instr
			}
			d.Calls += calls
			jf := stack[js]
			acc := function(jf)
			acc.stats.Calls += calls
			acc.stats.Executions += execs
			acc.stats.SelfWasmInstructions += instr
			if instr > 0 || execs > 0 {
				o := opStats(acc.opcodes, opFrame)
				o.Executions += execs
				o.WasmInstructions += instr

				lk := lineKey{jf.Function.SystemName, jf.Line}
				l := lines[lk]
				if l == nil {
					l = &LineStats{Function: jf.Function.Name, FunctionLine: int(jf.Function.StartLine), File: jf.Function.Filename, Line: int(jf.Line)}
					lines[lk] = l
				}
				l.Executions += execs
				l.WasmInstructions += instr
			}
		}
		// Total: every JS and native function on the stack, once.
		clear(onStack)
		for k := own; k < len(stack); k++ {
			f := stack[k]
			if (f.Kind != jsprofile.KindJS && f.Kind != jsprofile.KindNative) || onStack[f.Function.SystemName] {
				continue
			}
			onStack[f.Function.SystemName] = true
			function(f).stats.TotalWasmInstructions += instr
		}
	}

	total := float64(d.TotalWasmInstructions)
	finish := func(m map[string]*OpcodeStats) []OpcodeStats {
		out := make([]OpcodeStats, 0, len(m))
		for _, o := range m {
			if o.Executions > 0 {
				o.PerExecution = float64(o.WasmInstructions) / float64(o.Executions)
			}
			o.Share = shareOf(o.WasmInstructions, total)
			out = append(out, *o)
		}
		sortOpcodeStats(out)
		return out
	}
	d.Opcodes = finish(opcodes)
	d.Functions = make([]FunctionStats, 0, len(functions))
	for _, a := range functions {
		a.stats.Opcodes = finish(a.opcodes)
		a.stats.Share = shareOf(a.stats.SelfWasmInstructions, total)
		d.Functions = append(d.Functions, a.stats)
	}
	sort.Slice(d.Functions, func(i, j int) bool {
		a, b := &d.Functions[i], &d.Functions[j]
		if a.SelfWasmInstructions != b.SelfWasmInstructions {
			return a.SelfWasmInstructions > b.SelfWasmInstructions
		}
		if a.TotalWasmInstructions != b.TotalWasmInstructions {
			return a.TotalWasmInstructions > b.TotalWasmInstructions
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Address < b.Address
	})
	d.Lines = make([]LineStats, 0, len(lines))
	for _, l := range lines {
		l.Share = shareOf(l.WasmInstructions, total)
		d.Lines = append(d.Lines, *l)
	}
	sortLineStats(d.Lines)
	d.Buckets = make([]BucketCost, 0, len(buckets))
	for name, n := range buckets {
		d.Buckets = append(d.Buckets, BucketCost{Name: name, WasmInstructions: n})
	}
	sort.Slice(d.Buckets, func(i, j int) bool { return d.Buckets[i].Name < d.Buckets[j].Name })
	d.WasmFunctions, d.WasmBuckets = wasmView(p, uncertain, total)
	d.WasmApportioned = m.WasmApportioned()
	for _, name := range phaseOrder {
		if n := phases[name]; n > 0 {
			d.Phases = append(d.Phases, BucketCost{Name: name, WasmInstructions: n})
		}
	}
	return d
}

// phaseOrder is the order phases are shown in: the run's.
var phaseOrder = [...]string{jsprofile.PhaseStartup, jsprofile.PhaseInput, jsprofile.PhaseJS, jsprofile.PhaseOutput, jsprofile.PhaseGC, jsprofile.PhaseEngine}

// isUnnamedWasm tells the name wasmcore.Symbolizer gives a Wasm function
// it has no name for.
func isUnnamedWasm(name string) bool {
	return strings.HasPrefix(name, "wasm-function[") && strings.HasSuffix(name, "]")
}

// shareOf is n's fraction of total, 0 when total is.
func shareOf(n uint64, total float64) float64 {
	if total == 0 {
		return 0
	}
	return float64(n) / total
}

func sortOpcodeStats(ops []OpcodeStats) {
	sort.Slice(ops, func(i, j int) bool {
		if ops[i].WasmInstructions != ops[j].WasmInstructions {
			return ops[i].WasmInstructions > ops[j].WasmInstructions
		}
		if ops[i].Executions != ops[j].Executions {
			return ops[i].Executions > ops[j].Executions
		}
		return ops[i].Name < ops[j].Name
	})
}

func sortLineStats(ls []LineStats) {
	sort.Slice(ls, func(i, j int) bool {
		a, b := &ls[i], &ls[j]
		if a.WasmInstructions != b.WasmInstructions {
			return a.WasmInstructions > b.WasmInstructions
		}
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Function != b.Function {
			return a.Function < b.Function
		}
		return a.FunctionLine < b.FunctionLine
	})
}
