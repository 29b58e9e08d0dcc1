package jsframes

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/jsprof/jsprof/jsframes/meter"
)

// The sample types of a jsprof profile, in order (docs/profile-format.md).
var profileSampleTypes = [...][2]string{
	{"wasm_instructions", "count"},
	{"opcode_executions", "count"},
	{"calls", "count"},
}

// Kinds of frames, the prefix of a pprof Function's system_name.
const (
	kindJS     = "js:"
	kindOpcode = "op:"
	kindWasm   = "wasm:"
	kindBucket = "bucket:"
)

// Names used when a sample lacks the frame a view is keyed by.
const (
	// NoOpcodeName is the pseudo-opcode of instructions charged to a JS
	// function without an opcode frame under it (sampling mode only).
	NoOpcodeName = "(no opcode)"
)

// ProfileData is what a jsprof profile says, read back from the pprof
// profile alone (ReadProfile): per opcode, per JS function × opcode, per
// line, with the engine and the totals. Opcodes, Functions (and their
// Opcodes) and Lines are sorted by Wasm instructions, most first.
type ProfileData struct {
	Mode string `json:"mode"` // "exact" or "sample"
	// TotalWasmInstructions is the jsprof.total_wasm_instructions comment:
	// every instruction the run executed, the whole that shares are of.
	TotalWasmInstructions uint64 `json:"total_wasm_instructions"`
	// SampledWasmInstructions is the sum of the samples: equal to the total
	// in exact mode, within the sampling in sampling mode.
	SampledWasmInstructions uint64 `json:"sampled_wasm_instructions"`
	// Executions and Calls sum every sample's opcode executions and calls.
	Executions uint64     `json:"opcode_executions"`
	Calls      uint64     `json:"calls"`
	Engine     EngineInfo `json:"engine"`
	// UncertainOpcodes are the opcode values whose names are guesses.
	UncertainOpcodes []int  `json:"uncertain_opcodes"`
	Module           string `json:"module,omitempty"`
	ExitCode         *int   `json:"exit_code,omitempty"`
	Trap             string `json:"trap,omitempty"`

	Opcodes   []OpcodeStats   `json:"opcodes"`
	Functions []FunctionStats `json:"functions"`
	Lines     []LineStats     `json:"lines"`
	Buckets   []BucketCost    `json:"buckets"`
}

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

// FunctionStats is one JS function's cost.
type FunctionStats struct {
	Name    string `json:"name"`
	File    string `json:"file"`
	Line    int    `json:"line"` // first line
	Address uint64 `json:"bytecode_address"`
	Calls   uint64 `json:"calls"`
	// Executions counts the opcodes this function executed.
	Executions uint64 `json:"executions"`
	// SelfWasmInstructions ran while this function was the innermost JS
	// frame; CumWasmInstructions while it was on the stack at all
	// (recursion counted once). They are equal in exact mode, whose stacks
	// hold one JS frame.
	SelfWasmInstructions uint64        `json:"self_wasm_instructions"`
	CumWasmInstructions  uint64        `json:"cum_wasm_instructions"`
	Share                float64       `json:"share"` // self, of the profile's total
	Opcodes              []OpcodeStats `json:"opcodes"`
}

// Key identifies the function across profiles of the same JS: its name,
// file and first line (bytecode addresses differ between engines). A name
// that carries an address (anonymous@0x148ac4) is keyed without it where
// the file and line say which function it is.
func (f *FunctionStats) Key() string {
	name := f.Name
	if i := strings.LastIndex(name, "@0x"); i > 0 && f.File != "" && f.Line > 0 {
		name = name[:i]
	}
	return fmt.Sprintf("%s\x00%s\x00%d", name, f.File, f.Line)
}

// Label is how reports print the function: fib (index.js:1).
func (f *FunctionStats) Label() string {
	switch {
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

// ReadProfileFile reads a jsprof profile from a file; errors name it.
func ReadProfileFile(path string) (*ProfileData, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: not a pprof profile: %w", path, err)
	}
	d, err := ReadProfile(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// profFrame is one pprof Line of a sample's stack, classified.
type profFrame struct {
	kind string // kindJS, ...
	fn   *profile.Function
	line int64
	op   int // opcode value, for kindOpcode
}

// ReadProfile reads what jsprof wrote into p (docs/profile-format.md). It
// checks the conventions — the sample types, the jsprof.* comments, the
// kind of every function — and says what is wrong with a profile jsprof
// did not write.
func ReadProfile(p *profile.Profile) (*ProfileData, error) {
	if p == nil {
		return nil, errors.New("no profile")
	}
	if err := checkSampleTypes(p); err != nil {
		return nil, err
	}
	d := &ProfileData{UncertainOpcodes: []int{}, Engine: EngineInfo{Releases: []string{}}}
	if err := d.readComments(p.Comments); err != nil {
		return nil, err
	}
	uncertain := map[int]bool{}
	for _, op := range d.UncertainOpcodes {
		uncertain[op] = true
	}
	frames := map[uint64]profFrame{} // by Function ID
	for _, fn := range p.Function {
		f, err := classifyFunction(fn)
		if err != nil {
			return nil, err
		}
		frames[fn.ID] = f
	}

	type fnAcc struct {
		stats   FunctionStats
		opcodes map[string]*OpcodeStats
	}
	opcodes := map[string]*OpcodeStats{}
	functions := map[string]*fnAcc{} // by system_name
	lines := map[string]*LineStats{}
	buckets := map[string]uint64{}
	var bucketOrder []string
	opStats := func(m map[string]*OpcodeStats, f *profFrame) *OpcodeStats {
		name := NoOpcodeName
		op := -1
		if f != nil {
			name, op = strings.TrimPrefix(f.fn.Name, kindOpcode), f.op
		}
		s := m[name]
		if s == nil {
			s = &OpcodeStats{Name: name, Opcode: op, UncertainName: f != nil && uncertain[op]}
			m[name] = s
		}
		return s
	}
	var stack []profFrame
	for i, s := range p.Sample {
		if len(s.Value) != len(profileSampleTypes) {
			return nil, fmt.Errorf("sample %d has %d values, want %d", i, len(s.Value), len(profileSampleTypes))
		}
		for j, v := range s.Value {
			if v < 0 {
				return nil, fmt.Errorf("sample %d: negative %s %d", i, profileSampleTypes[j][0], v)
			}
		}
		instr, execs, calls := uint64(s.Value[0]), uint64(s.Value[1]), uint64(s.Value[2])
		d.SampledWasmInstructions += instr
		d.Executions += execs
		d.Calls += calls
		// The stack, leaf first: locations leaf first, and within a
		// location its lines innermost (inlined) first.
		stack = stack[:0]
		for _, loc := range s.Location {
			for _, ln := range loc.Line {
				if ln.Function == nil {
					continue
				}
				f, ok := frames[ln.Function.ID]
				if !ok {
					return nil, fmt.Errorf("sample %d: function %d is not in the profile's function table", i, ln.Function.ID)
				}
				f.line = ln.Line
				stack = append(stack, f)
			}
		}
		js, op := -1, -1 // innermost JS frame, and an opcode frame under it
		for k := range stack {
			if stack[k].kind == kindJS {
				js = k
				break
			}
		}
		for k := 0; k < len(stack) && (js < 0 || k < js); k++ {
			if stack[k].kind == kindOpcode {
				op = k
				break
			}
		}
		if js < 0 {
			// No interpreter activation: outside JS, whether or not the
			// stack is rooted at a bucket frame.
			name := meter.BucketOutside
			for k := len(stack) - 1; k >= 0; k-- {
				if stack[k].kind == kindBucket {
					name = stack[k].fn.Name
					break
				}
			}
			if _, seen := buckets[name]; !seen {
				bucketOrder = append(bucketOrder, name)
			}
			buckets[name] += instr
			if execs > 0 {
				return nil, fmt.Errorf("sample %d: %d opcode executions outside any JS function", i, execs)
			}
			continue
		}
		var opFrame *profFrame
		if op >= 0 {
			opFrame = &stack[op]
		}
		if instr > 0 || execs > 0 {
			o := opStats(opcodes, opFrame)
			o.Executions += execs
			o.WasmInstructions += instr
		}

		jf := stack[js]
		acc := functions[jf.fn.SystemName]
		if acc == nil {
			acc = &fnAcc{stats: FunctionStats{Name: jf.fn.Name, File: jf.fn.Filename, Line: int(jf.fn.StartLine)}, opcodes: map[string]*OpcodeStats{}}
			acc.stats.Address = jsAddress(jf.fn.SystemName)
			functions[jf.fn.SystemName] = acc
		}
		acc.stats.Calls += calls
		acc.stats.Executions += execs
		acc.stats.SelfWasmInstructions += instr
		if instr > 0 || execs > 0 {
			o := opStats(acc.opcodes, opFrame)
			o.Executions += execs
			o.WasmInstructions += instr

			lk := fmt.Sprintf("%s\x00%d", jf.fn.SystemName, jf.line)
			l := lines[lk]
			if l == nil {
				l = &LineStats{Function: jf.fn.Name, FunctionLine: int(jf.fn.StartLine), File: jf.fn.Filename, Line: int(jf.line)}
				lines[lk] = l
			}
			l.Executions += execs
			l.WasmInstructions += instr
		}
		// Cumulative: every JS function on the stack, once.
		seen := map[string]bool{}
		for k := js; k < len(stack); k++ {
			f := stack[k]
			if f.kind != kindJS || seen[f.fn.SystemName] {
				continue
			}
			seen[f.fn.SystemName] = true
			a := functions[f.fn.SystemName]
			if a == nil {
				a = &fnAcc{stats: FunctionStats{Name: f.fn.Name, File: f.fn.Filename, Line: int(f.fn.StartLine), Address: jsAddress(f.fn.SystemName)}, opcodes: map[string]*OpcodeStats{}}
				functions[f.fn.SystemName] = a
			}
			a.stats.CumWasmInstructions += instr
		}
	}
	if d.Mode == "exact" && d.SampledWasmInstructions != d.TotalWasmInstructions {
		return nil, fmt.Errorf("exact profile's samples sum to %d wasm_instructions, but its jsprof.total_wasm_instructions comment says %d",
			d.SampledWasmInstructions, d.TotalWasmInstructions)
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
		if a.CumWasmInstructions != b.CumWasmInstructions {
			return a.CumWasmInstructions > b.CumWasmInstructions
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
	d.Buckets = []BucketCost{}
	for _, name := range bucketOrder {
		d.Buckets = append(d.Buckets, BucketCost{Name: name, WasmInstructions: buckets[name]})
	}
	sort.SliceStable(d.Buckets, func(i, j int) bool { return d.Buckets[i].Name < d.Buckets[j].Name })
	return d, nil
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

func checkSampleTypes(p *profile.Profile) error {
	have := make([]string, len(p.SampleType))
	ok := len(p.SampleType) == len(profileSampleTypes)
	for i, st := range p.SampleType {
		have[i] = st.Type + "/" + st.Unit
		if ok && (st.Type != profileSampleTypes[i][0] || st.Unit != profileSampleTypes[i][1]) {
			ok = false
		}
	}
	if ok {
		return nil
	}
	want := make([]string, len(profileSampleTypes))
	for i, st := range profileSampleTypes {
		want[i] = st[0] + "/" + st[1]
	}
	return fmt.Errorf("not a jsprof profile: its sample types are [%s], a jsprof profile's are [%s]",
		strings.Join(have, " "), strings.Join(want, " "))
}

func (d *ProfileData) readComments(comments []string) error {
	kv := map[string]string{}
	for _, c := range comments {
		k, v, ok := strings.Cut(c, "=")
		if ok && strings.HasPrefix(k, "jsprof.") {
			kv[k] = v
		}
	}
	mode, ok := kv["jsprof.mode"]
	if !ok {
		return errors.New("not a jsprof profile: no jsprof.mode comment")
	}
	if mode != "exact" && mode != "sample" {
		return fmt.Errorf("jsprof.mode=%s: want exact or sample", mode)
	}
	d.Mode = mode
	total, ok := kv["jsprof.total_wasm_instructions"]
	if !ok {
		return errors.New("no jsprof.total_wasm_instructions comment")
	}
	n, err := strconv.ParseUint(total, 10, 64)
	if err != nil {
		return fmt.Errorf("jsprof.total_wasm_instructions=%s: not a count", total)
	}
	d.TotalWasmInstructions = n
	d.Engine.Family = kv["jsprof.engine.family"]
	if r := kv["jsprof.engine.releases"]; r != "" {
		d.Engine.Releases = strings.Split(r, ",")
	}
	d.Engine.OpcodeNamesSource = kv["jsprof.engine.opcode_names_source"]
	if u := kv["jsprof.engine.uncertain_opcodes"]; u != "" {
		for _, s := range strings.Split(u, ",") {
			op, err := strconv.Atoi(s)
			if err != nil {
				return fmt.Errorf("jsprof.engine.uncertain_opcodes=%s: %q is not an opcode value", u, s)
			}
			d.UncertainOpcodes = append(d.UncertainOpcodes, op)
		}
	}
	d.Module = kv["jsprof.module"]
	if c, ok := kv["jsprof.exit_code"]; ok {
		code, err := strconv.Atoi(c)
		if err != nil {
			return fmt.Errorf("jsprof.exit_code=%s: not a number", c)
		}
		d.ExitCode = &code
	}
	d.Trap = kv["jsprof.trap"]
	return nil
}

// classifyFunction reads a function's kind from its system_name.
func classifyFunction(fn *profile.Function) (profFrame, error) {
	sys := fn.SystemName
	switch {
	case strings.HasPrefix(sys, kindJS):
		return profFrame{kind: kindJS, fn: fn}, nil
	case strings.HasPrefix(sys, kindOpcode):
		op, err := strconv.Atoi(strings.TrimPrefix(sys, kindOpcode))
		if err != nil || op < 0 || op > 256 {
			return profFrame{}, fmt.Errorf("function %q: system_name %q: want op: and an opcode value 0-256", fn.Name, sys)
		}
		if !strings.HasPrefix(fn.Name, kindOpcode) {
			return profFrame{}, fmt.Errorf("function %q: an opcode frame's name starts with op:", fn.Name)
		}
		return profFrame{kind: kindOpcode, fn: fn, op: op}, nil
	case strings.HasPrefix(sys, kindWasm):
		return profFrame{kind: kindWasm, fn: fn}, nil
	case strings.HasPrefix(sys, kindBucket):
		return profFrame{kind: kindBucket, fn: fn}, nil
	}
	return profFrame{}, fmt.Errorf("not a jsprof profile: function %q has system_name %q, want js:, op:, wasm: or bucket:", fn.Name, sys)
}

// jsAddress reads the bytecode address of a JS function's system_name
// (js:NAME@0xADDR), 0 when it has none.
func jsAddress(sys string) uint64 {
	i := strings.LastIndex(sys, "@0x")
	if i < 0 {
		return 0
	}
	a, err := strconv.ParseUint(sys[i+3:], 16, 64)
	if err != nil {
		return 0
	}
	return a
}
