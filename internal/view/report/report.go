package report

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/google/pprof/profile"
	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/internal/view/costfmt"
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
	Mode string `json:"mode"` // jsprofile.ModeExact or ModeSample
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
	// Program is the SHA-256 of the program's bytecode
	// (jsprofile.Meta.Program); "" when the profile does not say.
	Program  string `json:"program_sha256,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
	Trap     string `json:"trap,omitempty"`
	// Throw is the uncaught JS error the guest trapped on, with the JS
	// stack at the throw.
	Throw *jsprofile.Throw `json:"throw,omitempty"`
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
	// Phases are the run's phases (the profile's root frames: engine
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

	// SourceLineTotals are the instructions that ran while each source
	// line was on the stack, in any function on it, a sample counted once
	// (the source view's totals: summing the functions' lines would count
	// a callback on its caller's line twice).
	SourceLineTotals map[SourceLine]uint64 `json:"-"`

	// SharedKeyTotals are, for a Key that several of Functions share
	// (anonymous functions on one line, keyed without their addresses),
	// the instructions that ran while any of them was on the stack, a
	// sample counted once: summing their totals would count an inner one's
	// instructions again in the outer one's. A diff compares functions by
	// Key.
	SharedKeyTotals map[string]uint64 `json:"-"`

	// CheckedFunctions is how many JS functions the run's self-check
	// verified against the engine's own data (exact mode; 0: none),
	// CheckFailures those it found contradicted (also marked in
	// Functions).
	CheckedFunctions int                      `json:"checked_functions,omitempty"`
	CheckFailures    []jsprofile.CheckFailure `json:"check_failures,omitempty"`
}

// Counted says whether the profile counts opcode executions and calls:
// exact mode does, sampling mode only weighs where instructions ran, so
// its pages leave those counts out rather than show zeros.
func (d *Tables) Counted() bool {
	return d.Mode != jsprofile.ModeSample || d.Executions > 0 || d.Calls > 0 || d.NativeCalls > 0
}

// Function kinds (FunctionStats.Kind).
const (
	FunctionJS     = "js"
	FunctionNative = "native" // a native (C) builtin: JSON.parse
)

// NativeSuffix ends the name of a JS frame that is a native ("JSON.stringify
// (native)", for profiles that name natives as JS functions), and the
// label of a native function (FunctionStats.Label, WasmCaller.Label).
const NativeSuffix = " (native)"

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
	// EngineWork is the part of WasmInstructions the engine spent on the
	// opcode's behalf in work the program did not write, by kind
	// (jsprofile.EngineFreeing, EngineGC, EngineInterrupts): the samples
	// with such a Wasm function under the opcode's frame, told by name
	// (jsprofile.EngineWork), so only in profiles of an engine with a name
	// section; apportioned as the Wasm frames are.
	EngineWork map[string]uint64 `json:"engine_work,omitempty"`
}

// addEngineWork adds instr of engine work of kind ("" none) to o.
func (o *OpcodeStats) addEngineWork(kind string, instr uint64) {
	if kind == "" || instr == 0 {
		return
	}
	if o.EngineWork == nil {
		o.EngineWork = map[string]uint64{}
	}
	o.EngineWork[kind] += instr
}

// EngineWorkTotal is the sum of o.EngineWork.
func (o *OpcodeStats) EngineWorkTotal() (n uint64) {
	for _, v := range o.EngineWork {
		n += v
	}
	return n
}

// FunctionStats is one JS function's cost, or a native function's (Kind
// native: no file, line, address, executions, opcodes or lines; its self
// instructions are what it ran itself, its total includes the JS it called
// back).
type FunctionStats struct {
	Name string `json:"name"`
	Kind string `json:"kind"` // FunctionJS or FunctionNative
	File string `json:"file"`
	Line int    `json:"line"` // first line
	// GeneratedFile and GeneratedLine are the function's file and first
	// line in the bundle, when a source map named File and Line after
	// the original files.
	GeneratedFile string `json:"generated_file,omitempty"`
	GeneratedLine int    `json:"generated_line,omitempty"`
	Address       uint64 `json:"bytecode_address"`
	Calls         uint64 `json:"calls"`
	// Executions counts the opcodes this function executed.
	Executions uint64 `json:"executions"`
	// SelfWasmInstructions ran while this function was the innermost JS
	// frame; TotalWasmInstructions while it was on the stack at all
	// (recursion counted once): pprof's flat and cum.
	SelfWasmInstructions  uint64        `json:"self_wasm_instructions"`
	TotalWasmInstructions uint64        `json:"total_wasm_instructions"`
	Share                 float64       `json:"share"` // self, of the profile's total
	Opcodes               []OpcodeStats `json:"opcodes"`
	// CheckFailed is why the run's self-check found the engine
	// contradicting this function's measurement ("" when it did not):
	// its opcodes and lines are not to be trusted.
	CheckFailed string `json:"check_failed,omitempty"`
}

// CheckMark starts the label of a function the self-check failed.
const CheckMark = "! "

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
	if f.CheckFailed != "" {
		g := *f
		g.CheckFailed = ""
		return CheckMark + g.Label()
	}
	switch {
	case f.Kind == FunctionNative:
		return f.Name + NativeSuffix
	case f.File != "" && f.Line > 0:
		return fmt.Sprintf("%s (%s:%d)", f.Name, f.File, f.Line)
	case f.File != "":
		return fmt.Sprintf("%s (%s)", f.Name, f.File)
	}
	return f.Name
}

// LineStats is the cost of one source line of one JS function, charged
// as functions are: SelfWasmInstructions ran in the line's own opcodes
// (the function innermost, at this line), TotalWasmInstructions while the
// line was on the stack at all — its opcodes, and the natives and JS
// functions it called — a sample counted once however many frames of the
// line it has (recursion): pprof's flat and cum for a line.
type LineStats struct {
	Function     string `json:"function"`
	FunctionLine int    `json:"function_line"` // the function's first line
	File         string `json:"file"`
	Line         int    `json:"line"` // 0 when unknown
	// GeneratedFile and GeneratedLine are the line's file and line in
	// the bundle (the first, when several bundle lines make it), when a
	// source map named File and Line after the original files.
	GeneratedFile         string  `json:"generated_file,omitempty"`
	GeneratedLine         int     `json:"generated_line,omitempty"`
	Executions            uint64  `json:"executions"`
	SelfWasmInstructions  uint64  `json:"self_wasm_instructions"`
	TotalWasmInstructions uint64  `json:"total_wasm_instructions"`
	Share                 float64 `json:"share"`       // self, of the profile's total
	TotalShare            float64 `json:"total_share"` // total, of the profile's total
}

// LineNote is what a reader of the line views must know of the engine's
// lines, "" when nothing. QuickJS-NG's parser records a source position
// only at some expressions (a call's callee, new, an operator's right
// operand, throw), never at a statement's start, and its bytecode keeps
// nothing finer (the positions are dropped into the pc → line table when
// the function is finished): a statement's first opcodes count on the
// line of the position before them. jsprof looks a pc up as the engine
// does (its stack traces show the same lines).
func (d *Tables) LineNote() string {
	if d.Engine.Family != dispatch.FamilyQuickJSNG {
		return ""
	}
	return "QuickJS-NG marks lines at calls and operators, not at statements: a statement's first opcodes (a loop's test, its i++) count on the line before them in the bytecode"
}

// SourceLine is a line of a JS file, whatever the functions on it.
type SourceLine struct {
	File string
	Line int
}

// Label is how reports print the line: index.js:12, index.js:? when the
// line is unknown.
func (l *LineStats) Label() string {
	file := l.File
	if file == "" {
		file = "?"
	}
	if l.Line == 0 {
		return file + ":?"
	}
	return fmt.Sprintf("%s:%d", file, l.Line)
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
		UncertainOpcodes: m.UncertainOpcodes, Module: m.Module, Program: m.Program, ExitCode: m.ExitCode, Trap: m.Trap, Throw: m.Throw, CostModel: m.CostModel, Run: m.Run}
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

	// Everything summed per sample is found by the index of a function of
	// the profile (stackReader), each function's accumulators resolved
	// once: by system name for JS and native functions, by name for
	// opcodes and phases.
	r := NewStackReader(p)
	type fnAcc struct {
		stats FunctionStats
		// by opcode key: a function runs a few of the engine's hundreds
		// of opcodes, and a program may have 50,000 functions
		opcodes map[int32]*OpcodeStats
		stamp   int // the last sample that counted its total
		key     int // its Key's index in keyStamp and keyTotal
	}
	// A JS function a source map split by original file (a bundle's
	// module code) is one function here, as it is one for the engine:
	// its parts share its first part's accumulator (StackReader.Whole);
	// its lines keep their parts' files.
	functions := map[string]*fnAcc{} // by system_name
	// Functions sharing a Key: the last sample (+1) that counted a key's
	// total, and the total.
	keys := map[string]int{}
	var keyStamp []int
	var keyTotal []uint64
	accOf := make([]*fnAcc, len(r.Funcs))
	function := func(i int32) *fnAcc {
		if a := accOf[i]; a != nil {
			return a
		}
		f := r.Funcs[r.Whole(i)]
		a := functions[f.Function.SystemName]
		if a == nil {
			jn, _ := jsprofile.ParseJSName(f.Function.SystemName)
			a = &fnAcc{stats: FunctionStats{Name: f.Function.Name, Kind: FunctionJS, File: f.Function.Filename, Line: int(f.Function.StartLine),
				Address: jn.Address}, stamp: -1}
			if jn.Generated != nil {
				a.stats.GeneratedFile, a.stats.GeneratedLine = m.GeneratedFile, jn.Generated.Line
			}
			if f.Kind == jsprofile.KindNative {
				a.stats = FunctionStats{Name: f.Function.Name, Kind: FunctionNative}
			}
			k, ok := keys[a.stats.Key()]
			if !ok {
				k = len(keyStamp)
				keys[a.stats.Key()] = k
				keyStamp, keyTotal = append(keyStamp, 0), append(keyTotal, 0)
			}
			a.key = k
			functions[f.Function.SystemName] = a
		}
		accOf[i] = a
		return a
	}
	// Opcodes are keyed by name (an engine may have two functions of one
	// opcode name): opKey[i] is function i's key, names[key] the name.
	opKeys := map[string]int32{}
	opKey := make([]int32, len(r.Funcs))
	type opName struct {
		name string
		op   int
	}
	opNames := []opName{{NoOpcodeName, -1}}
	opKeys[NoOpcodeName] = 0
	phaseOf := make([]string, len(r.Funcs))
	unnamed := make([]bool, len(r.Funcs))
	engineWork := make([]string, len(r.Funcs))
	for i, f := range r.Funcs {
		switch f.Kind {
		case jsprofile.KindOpcode:
			name := strings.TrimPrefix(f.Function.Name, jsprofile.OpcodePrefix)
			k, ok := opKeys[name]
			if !ok {
				k = int32(len(opNames))
				opKeys[name] = k
				opNames = append(opNames, opName{name, f.Opcode})
			}
			opKey[i] = k
		case jsprofile.KindPhase:
			phaseOf[i] = strings.TrimPrefix(f.Function.Name, jsprofile.PhasePrefix)
		case jsprofile.KindWasm:
			unnamed[i] = IsUnnamedWasm(f.Function.Name)
			engineWork[i] = jsprofile.EngineWork(f.Function.Name)
		}
	}
	type lineKey struct {
		function *fnAcc
		file     string // a split function's lines are in several files
		line     int64
	}
	var opcodes []*OpcodeStats
	lines := map[lineKey]*LineStats{}
	buckets := map[string]uint64{}
	phases := map[string]uint64{}
	newOpStats := func(k int32) *OpcodeStats {
		n := opNames[k]
		return &OpcodeStats{Name: n.name, Opcode: n.op, UncertainName: k > 0 && uncertain[n.op]}
	}
	opStats := func(m *[]*OpcodeStats, k int32) *OpcodeStats {
		if *m == nil {
			*m = make([]*OpcodeStats, len(opNames))
		}
		s := (*m)[k]
		if s == nil {
			s = newOpStats(k)
			(*m)[k] = s
		}
		return s
	}
	// lineOf is the line of a JS frame's function, made on first sight;
	// the stamps (sample index + 1) count a sample once per line.
	lineStamp := map[*LineStats]int{}
	srcStamp := map[SourceLine]int{}
	d.SourceLineTotals = map[SourceLine]uint64{}
	lineOf := func(f Frame) *LineStats {
		acc := function(f.Func)
		fn := r.Funcs[f.Func].Function
		lk := lineKey{acc, fn.Filename, f.Line}
		l := lines[lk]
		if l == nil {
			l = &LineStats{Function: fn.Name, FunctionLine: int(fn.StartLine), File: fn.Filename, Line: int(f.Line)}
			if m.GeneratedFile != "" { // a source map's: a part's own lines
				jn, _ := jsprofile.ParseJSName(fn.SystemName)
				if g, ok := jn.Lines[f.Line]; ok {
					l.GeneratedFile, l.GeneratedLine = m.GeneratedFile, int(g)
				}
			}
			lines[lk] = l
		}
		return l
	}
	wv := newWasmView(r, uncertain)
	var stack []Frame
	for si, s := range p.Sample {
		instr, execs, calls := uint64(s.Value[jsprofile.ValueInstructions]), uint64(s.Value[jsprofile.ValueExecutions]), uint64(s.Value[jsprofile.ValueCalls])
		d.SampledWasmInstructions += instr
		d.Executions += execs
		stack = r.Stack(s, stack) // leaf first
		wv.add(stack, instr)
		if n := len(stack); n > 0 && r.Funcs[stack[n-1].Func].Kind == jsprofile.KindPhase {
			phases[phaseOf[stack[n-1].Func]] += instr
		}
		if len(stack) > 0 && unnamed[stack[0].Func] {
			d.UnnamedWasmInstructions += instr
		}
		// The sample's owner: its innermost JS function, native function
		// or bucket — a native's callees and a bucket's are Wasm frames.
		own := -1
		for k := range stack {
			if kind := r.Funcs[stack[k].Func].Kind; kind == jsprofile.KindJS || kind == jsprofile.KindNative || kind == jsprofile.KindBucket {
				own = k
				break
			}
		}
		var owner *jsprofile.StackFrame
		if own >= 0 {
			owner = &r.Funcs[stack[own].Func]
		}
		switch {
		case own < 0:
			// No interpreter activation, and no bucket frame: outside JS.
			buckets[jsprofile.BucketOutside] += instr
			continue
		case owner.Kind == jsprofile.KindBucket:
			// Outside JS (a root bucket), or an activation no frame names:
			// its JS callers' totals hold it.
			buckets[owner.Function.Name] += instr
		case owner.Kind == jsprofile.KindNative:
			acc := function(stack[own].Func)
			acc.stats.Calls += calls
			acc.stats.SelfWasmInstructions += instr
			d.NativeCalls += calls
			d.NativeWasmInstructions += instr
		default:
			op := int32(0) // an opcode frame under the JS frame, or none
			inner := own   // the frames the opcode's handler ran
			for k := 0; k < own; k++ {
				if fn := stack[k].Func; r.Funcs[fn].Kind == jsprofile.KindOpcode {
					op, inner = opKey[fn], k
					break
				}
			}
			// the outermost engine work the handler reached
			work := ""
			for k := inner - 1; k >= 0 && work == ""; k-- {
				work = engineWork[stack[k].Func]
			}
			if instr > 0 || execs > 0 {
				o := opStats(&opcodes, op)
				o.Executions += execs
				o.WasmInstructions += instr
				o.addEngineWork(work, instr)
			}
			d.Calls += calls
			acc := function(stack[own].Func)
			acc.stats.Calls += calls
			acc.stats.Executions += execs
			acc.stats.SelfWasmInstructions += instr
			if instr > 0 || execs > 0 {
				o := acc.opcodes[op]
				if o == nil {
					if acc.opcodes == nil {
						acc.opcodes = map[int32]*OpcodeStats{}
					}
					o = newOpStats(op)
					acc.opcodes[op] = o
				}
				o.Executions += execs
				o.WasmInstructions += instr
				o.addEngineWork(work, instr)

				l := lineOf(stack[own])
				l.Executions += execs
				l.SelfWasmInstructions += instr
			}
		}
		// Total: every JS and native function on the stack, once; every
		// line of a JS frame, once per function and once per source line.
		for k := own; k < len(stack); k++ {
			fn := stack[k].Func
			kind := r.Funcs[fn].Kind
			if kind != jsprofile.KindJS && kind != jsprofile.KindNative {
				continue
			}
			if a := function(fn); a.stamp != si {
				a.stamp = si
				a.stats.TotalWasmInstructions += instr
				if keyStamp[a.key] != si+1 {
					keyStamp[a.key] = si + 1
					keyTotal[a.key] += instr
				}
			}
			if kind != jsprofile.KindJS || instr == 0 {
				continue
			}
			if l := lineOf(stack[k]); lineStamp[l] != si+1 {
				lineStamp[l] = si + 1
				l.TotalWasmInstructions += instr
			}
			src := SourceLine{r.Funcs[fn].Function.Filename, int(stack[k].Line)}
			if src.File != "" && src.Line > 0 && srcStamp[src] != si+1 {
				srcStamp[src] = si + 1
				d.SourceLineTotals[src] += instr
			}
		}
	}

	total := float64(d.TotalWasmInstructions)
	finish := func(m []*OpcodeStats) []OpcodeStats {
		out := make([]OpcodeStats, 0, len(m))
		for _, o := range m {
			if o == nil {
				continue
			}
			if o.Executions > 0 {
				o.PerExecution = float64(o.WasmInstructions) / float64(o.Executions)
			}
			o.Share = costfmt.Share(o.WasmInstructions, total)
			out = append(out, *o)
		}
		sortOpcodeStats(out)
		return out
	}
	d.Opcodes = finish(opcodes)
	d.CheckedFunctions, d.CheckFailures = m.Checked, m.CheckFailures
	// A failure names the function as its profile was written; a source
	// map may have renamed it since, or split it by file: its bytecode
	// address tells.
	failed := map[uint64]string{}
	for _, c := range m.CheckFailures {
		if jn, ok := jsprofile.ParseJSName(c.Function); ok {
			failed[jn.Address] = c.Why
		}
	}
	for _, a := range functions {
		if why, ok := failed[a.stats.Address]; ok && a.stats.Kind == FunctionJS {
			a.stats.CheckFailed = why
		}
	}
	if len(keys) < len(functions) {
		sharing := make([]int, len(keyTotal))
		for _, a := range functions {
			sharing[a.key]++
		}
		for k, i := range keys {
			if sharing[i] > 1 {
				if d.SharedKeyTotals == nil {
					d.SharedKeyTotals = map[string]uint64{}
				}
				d.SharedKeyTotals[k] = keyTotal[i]
			}
		}
	}
	d.Functions = make([]FunctionStats, 0, len(functions))
	for _, a := range functions {
		a.stats.Opcodes = finish(slices.Collect(maps.Values(a.opcodes)))
		a.stats.Share = costfmt.Share(a.stats.SelfWasmInstructions, total)
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
		l.Share = costfmt.Share(l.SelfWasmInstructions, total)
		l.TotalShare = costfmt.Share(l.TotalWasmInstructions, total)
		d.Lines = append(d.Lines, *l)
	}
	sortLineStats(d.Lines)
	d.Buckets = make([]BucketCost, 0, len(buckets))
	for name, n := range buckets {
		d.Buckets = append(d.Buckets, BucketCost{Name: name, WasmInstructions: n})
	}
	sort.Slice(d.Buckets, func(i, j int) bool { return d.Buckets[i].Name < d.Buckets[j].Name })
	d.WasmFunctions, d.WasmBuckets = wv.finish(total)
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

// IsUnnamedWasm tells the name wasmcore.Symbolizer gives a Wasm function
// it has no name for (wasm-function[N]: a stripped build's).
func IsUnnamedWasm(name string) bool {
	return strings.HasPrefix(name, "wasm-function[") && strings.HasSuffix(name, "]")
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
		if a.TotalWasmInstructions != b.TotalWasmInstructions {
			return a.TotalWasmInstructions > b.TotalWasmInstructions
		}
		if a.SelfWasmInstructions != b.SelfWasmInstructions {
			return a.SelfWasmInstructions > b.SelfWasmInstructions
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

// EngineWorkNote says how much of the opcode's cost is engine work
// (EngineWork), most first: "of which 1.90M freeing (engine)"; "" when it
// is under a tenth of the opcode's cost, or unknown (a stripped engine).
func (o *OpcodeStats) EngineWorkNote() string {
	total := o.EngineWorkTotal()
	if total == 0 || total*10 < o.WasmInstructions {
		return ""
	}
	kinds := make([]string, 0, len(o.EngineWork))
	for k := range o.EngineWork {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		a, b := o.EngineWork[kinds[i]], o.EngineWork[kinds[j]]
		return a > b || a == b && kinds[i] < kinds[j]
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = costfmt.Human(o.EngineWork[k]) + " " + k
	}
	return "of which " + strings.Join(parts, ", ") + " (engine)"
}
