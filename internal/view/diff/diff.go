package diff

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/jsprof/jsprof/internal/view/costfmt"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// Diff compares two profiles of the same JS, typically on two engines
// (jsprof diff). Opcodes are aligned by name — their values differ
// between releases — JS functions by name, file and first line — their
// bytecode addresses differ —, native functions by name. Every delta is
// new − base.
type Diff struct {
	Base Side `json:"base"`
	New  Side `json:"new"`
	// DeltaWasmInstructions is New.TotalWasmInstructions −
	// Base.TotalWasmInstructions; in exact mode the opcodes', the native
	// functions' and the buckets' deltas add up to it.
	DeltaWasmInstructions int64 `json:"delta_wasm_instructions"`
	DeltaExecutions       int64 `json:"delta_opcode_executions"`
	// DeltaNativeWasmInstructions is the change in what native functions
	// ran themselves (report.Tables.NativeWasmInstructions).
	DeltaNativeWasmInstructions int64      `json:"delta_native_wasm_instructions,omitempty"`
	Opcodes                     []Opcode   `json:"opcodes"`
	Functions                   []Function `json:"functions"`
	Buckets                     []Bucket   `json:"buckets"`
	// Changed says what differs between the two runs, from the engine's
	// code and the program's bytecode the profiles record (Changed*).
	Changed string `json:"changed"`
	// Summary says in one paragraph what changed and where the cost moved.
	Summary string `json:"summary"`
	// Warnings say where the comparison is shaky: unnamed opcodes, no
	// function in common, different modes.
	Warnings []string `json:"warnings"`

	// Wasm aligns the Wasm functions of both profiles by name (the Wasm
	// view, jsprof diff --by wasm), by the size of their change; WasmBuckets
	// the view's buckets (interpreter loop, no Wasm frame). They have a
	// document of their own (WriteWasmJSON).
	Wasm        []WasmFunction `json:"-"`
	WasmBuckets []WasmFunction `json:"-"`
	// WasmWarnings say where the Wasm view's comparison is shaky.
	WasmWarnings []string `json:"-"`

	// Lines aligns the JS lines of both profiles (jsprof diff --by line),
	// by the size of their change.
	Lines []Line `json:"-"`
}

// Side describes one of the two profiles.
type Side struct {
	Profile string               `json:"profile,omitempty"` // file name
	Module  string               `json:"module,omitempty"`
	Mode    string               `json:"mode"`
	Engine  jsprofile.EngineInfo `json:"engine"`
	// Program is the SHA-256 of the program's bytecode (report.Tables.Program).
	Program               string `json:"program_sha256,omitempty"`
	UncertainOpcodes      []int  `json:"uncertain_opcodes"`
	TotalWasmInstructions uint64 `json:"total_wasm_instructions"`
	Executions            uint64 `json:"opcode_executions"`
	Calls                 uint64 `json:"calls"`
	// WasmFrames says whether the profile has Wasm frames, and
	// WasmApportioned whether their costs are apportioned estimates
	// (report.Tables.WasmApportioned).
	WasmFrames      bool `json:"-"`
	WasmApportioned bool `json:"wasm_apportioned,omitempty"`
	// Incomplete says how the profile's run ended when it did not end
	// normally, with exit code 0, as the profile records it: stopped by a
	// limit, a timeout or a signal, trapped, threw ("the guest reached the
	// instruction limit (2000000 Wasm instructions), exit 124"); "" when
	// it did, or the profile does not say.
	Incomplete string `json:"incomplete,omitempty"`
}

// OpcodeSide is an opcode's cost in one profile.
type OpcodeSide struct {
	Opcode           int     `json:"opcode"` // its value in that engine
	UncertainName    bool    `json:"uncertain_name,omitempty"`
	Executions       uint64  `json:"executions"`
	WasmInstructions uint64  `json:"wasm_instructions"`
	PerExecution     float64 `json:"instructions_per_execution"`
}

// Only values of Opcode.Only, Function.Only and WasmFunction.Only.
const (
	OnlyBase = "base"
	OnlyNew  = "new"
)

// Opcode is one opcode, by name, in both profiles.
type Opcode struct {
	Name string      `json:"name"`
	Base *OpcodeSide `json:"base"` // null when the opcode is only in new
	New  *OpcodeSide `json:"new"`  // null when only in base
	// Only is "base" or "new" when the opcode ran in one profile only.
	Only                  string `json:"only,omitempty"`
	DeltaExecutions       int64  `json:"delta_executions"`
	DeltaWasmInstructions int64  `json:"delta_wasm_instructions"`
	// DeltaPerExecution is the change in instructions per execution, when
	// both executed it.
	DeltaPerExecution float64 `json:"delta_instructions_per_execution"`
}

// Uncertain says whether the name is a guess in either engine, and so the
// alignment too.
func (o *Opcode) Uncertain() bool {
	return (o.Base != nil && o.Base.UncertainName) || (o.New != nil && o.New.UncertainName)
}

// FunctionSide is a JS function's cost in one profile.
type FunctionSide struct {
	Address              uint64 `json:"bytecode_address"`
	Calls                uint64 `json:"calls"`
	Executions           uint64 `json:"executions"`
	SelfWasmInstructions uint64 `json:"self_wasm_instructions"`
	// TotalWasmInstructions ran while it was on the stack (pprof's cum).
	TotalWasmInstructions uint64 `json:"total_wasm_instructions"`
}

// Function is one JS function, by name, file and first line, or one
// native function, by name, in both.
type Function struct {
	Name string `json:"name"`
	Kind string `json:"kind"` // report.FunctionJS or report.FunctionNative
	File string `json:"file"`
	Line int    `json:"line"` // its first line in the base (in the new when only there)
	// NewLine is its first line in the new profile when it moved there
	// (matched by name, file and shape: matchMoved); 0 when it did not.
	NewLine               int           `json:"new_line,omitempty"`
	Base                  *FunctionSide `json:"base"`
	New                   *FunctionSide `json:"new"`
	Only                  string        `json:"only,omitempty"`
	DeltaWasmInstructions int64         `json:"delta_wasm_instructions"`
}

// Label prints the function as reports do, with both first lines when it
// moved: fib (index.js:1), <anonymous> (src/run.ts:49→51).
func (f *Function) Label() string {
	s := report.FunctionStats{Name: f.Name, Kind: f.Kind, File: f.File, Line: f.Line}
	if f.NewLine != 0 && f.File != "" {
		return fmt.Sprintf("%s (%s:%d→%d)", f.Name, f.File, f.Line, f.NewLine)
	}
	return s.Label()
}

// Bucket is a bucket of instructions outside JS opcodes in both.
type Bucket struct {
	Name                  string `json:"name"`
	BaseWasmInstructions  uint64 `json:"base_wasm_instructions"`
	NewWasmInstructions   uint64 `json:"new_wasm_instructions"`
	DeltaWasmInstructions int64  `json:"delta_wasm_instructions"`
}

// deltaOf is new − base, signed.
func deltaOf(base, new uint64) int64 { return int64(new) - int64(base) }

// New compares base with new; baseName and newName name their files.
func New(base, new *report.Tables, baseName, newName string) *Diff {
	side := func(d *report.Tables, name string) Side {
		e := d.Engine
		if e.Releases == nil {
			e.Releases = []string{}
		}
		u := d.UncertainOpcodes
		if u == nil {
			u = []int{}
		}
		return Side{Profile: name, Module: d.Module, Mode: d.Mode, Engine: e, UncertainOpcodes: u,
			TotalWasmInstructions: d.TotalWasmInstructions, Executions: d.Executions, Calls: d.Calls,
			WasmFrames: len(d.WasmFunctions) > 0, WasmApportioned: d.WasmApportioned, Incomplete: incomplete(d), Program: d.Program}
	}
	df := &Diff{Base: side(base, baseName), New: side(new, newName), Warnings: []string{}}
	df.Changed = changed(df.Base, df.New)
	df.DeltaWasmInstructions = deltaOf(base.TotalWasmInstructions, new.TotalWasmInstructions)
	df.DeltaExecutions = deltaOf(base.Executions, new.Executions)
	df.DeltaNativeWasmInstructions = deltaOf(base.NativeWasmInstructions, new.NativeWasmInstructions)

	// Opcodes by name.
	ops := map[string]*Opcode{}
	opSide := func(o report.OpcodeStats) *OpcodeSide {
		return &OpcodeSide{Opcode: o.Opcode, UncertainName: o.UncertainName, Executions: o.Executions, WasmInstructions: o.WasmInstructions, PerExecution: o.PerExecution}
	}
	for _, o := range base.Opcodes {
		ops[o.Name] = &Opcode{Name: o.Name, Base: opSide(o)}
	}
	for _, o := range new.Opcodes {
		od := ops[o.Name]
		if od == nil {
			od = &Opcode{Name: o.Name}
			ops[o.Name] = od
		}
		od.New = opSide(o)
	}
	for _, od := range ops {
		var b, n OpcodeSide
		b, n, od.Only = sides(od.Base, od.New)
		if od.Only == "" && b.Executions > 0 && n.Executions > 0 {
			od.DeltaPerExecution = n.PerExecution - b.PerExecution
		}
		od.DeltaExecutions = deltaOf(b.Executions, n.Executions)
		od.DeltaWasmInstructions = deltaOf(b.WasmInstructions, n.WasmInstructions)
		df.Opcodes = append(df.Opcodes, *od)
	}
	sort.Slice(df.Opcodes, func(i, j int) bool {
		return byChange(df.Opcodes[i].DeltaWasmInstructions, df.Opcodes[j].DeltaWasmInstructions,
			opcodeWeight(&df.Opcodes[i]), opcodeWeight(&df.Opcodes[j]), df.Opcodes[i].Name, df.Opcodes[j].Name)
	})
	if df.Opcodes == nil {
		df.Opcodes = []Opcode{}
	}

	// Functions by name, file and first line.
	fns := map[string]*Function{}
	var order []string
	fnSide := func(f report.FunctionStats) *FunctionSide {
		return &FunctionSide{Address: f.Address, Calls: f.Calls, Executions: f.Executions,
			SelfWasmInstructions: f.SelfWasmInstructions, TotalWasmInstructions: f.TotalWasmInstructions}
	}
	shapes := [2]map[string]map[string]bool{{}, {}} // per side, by key: the opcodes run
	add := func(d *report.Tables, isBase bool) {
		for _, f := range d.Functions {
			k := f.Key()
			shape := shapes[1]
			if isBase {
				shape = shapes[0]
			}
			if movable(&f) { // matched by matchMoved, the same line or not
				k = map[bool]string{true: "base\x00", false: "new\x00"}[isBase] + k
			}
			if shape[k] == nil {
				shape[k] = map[string]bool{}
			}
			for _, o := range f.Opcodes {
				shape[k][o.Name] = true
			}
			fd := fns[k]
			if fd == nil {
				fd = &Function{Name: f.Name, Kind: f.Kind, File: f.File, Line: f.Line}
				fns[k] = fd
				order = append(order, k)
			}
			s := fnSide(f)
			var into **FunctionSide = &fd.New
			if isBase {
				into = &fd.Base
			}
			if *into != nil { // the same name, file and line twice: add up,
				// but for the total, in which one may contain the other
				(*into).Calls += s.Calls
				(*into).Executions += s.Executions
				(*into).SelfWasmInstructions += s.SelfWasmInstructions
				(*into).TotalWasmInstructions = d.SharedKeyTotals[f.Key()]
				continue
			}
			*into = s
		}
	}
	add(base, true)
	add(new, false)
	order = matchMoved(fns, order, shapes)
	common := 0
	for _, k := range order {
		fd := fns[k]
		var b, n FunctionSide
		if b, n, fd.Only = sides(fd.Base, fd.New); fd.Only == "" {
			common++
		}
		fd.DeltaWasmInstructions = deltaOf(b.SelfWasmInstructions, n.SelfWasmInstructions)
		df.Functions = append(df.Functions, *fd)
	}
	sort.SliceStable(df.Functions, func(i, j int) bool {
		return byChange(df.Functions[i].DeltaWasmInstructions, df.Functions[j].DeltaWasmInstructions,
			functionWeight(&df.Functions[i]), functionWeight(&df.Functions[j]), df.Functions[i].Label(), df.Functions[j].Label())
	})
	if df.Functions == nil {
		df.Functions = []Function{}
	}

	// Buckets by name.
	bk := map[string]*Bucket{}
	for _, b := range base.Buckets {
		bk[b.Name] = &Bucket{Name: b.Name, BaseWasmInstructions: b.WasmInstructions}
	}
	for _, b := range new.Buckets {
		if bk[b.Name] == nil {
			bk[b.Name] = &Bucket{Name: b.Name}
		}
		bk[b.Name].NewWasmInstructions = b.WasmInstructions
	}
	df.Buckets = []Bucket{}
	for _, b := range bk {
		b.DeltaWasmInstructions = deltaOf(b.BaseWasmInstructions, b.NewWasmInstructions)
		df.Buckets = append(df.Buckets, *b)
	}
	sort.Slice(df.Buckets, func(i, j int) bool { return df.Buckets[i].Name < df.Buckets[j].Name })

	// What makes the comparison shaky.
	for _, s := range []struct {
		what string
		d    *report.Tables
	}{{"base", base}, {"new", new}} {
		if s.d.Engine.OpcodeNamesSource == "" || s.d.Engine.OpcodeNamesSource == "none" {
			df.Warnings = append(df.Warnings, fmt.Sprintf("the %s engine's opcodes have no names: they are aligned by their op_N placeholders, which differ between releases", s.what))
		}
		if len(s.d.UncertainOpcodes) > 0 {
			df.Warnings = append(df.Warnings, fmt.Sprintf("the %s engine's names of %s are guesses (marked ?)", s.what, costfmt.CountNoun(uint64(len(s.d.UncertainOpcodes)), "opcode", "opcodes")))
		}
	}
	df.Warnings = append(df.Warnings, df.Cautions(false)...)
	if common == 0 && len(base.Functions)+len(new.Functions) > 0 {
		df.Warnings = append(df.Warnings, "no JS function is in both profiles: are they of the same JS?")
	}
	df.Summary = df.summarize()
	df.Lines = alignLines(base.Lines, new.Lines, df.Functions)

	// The Wasm view: functions by name, and what to know of it.
	df.Wasm = alignWasm(base.WasmFunctions, new.WasmFunctions, byWasmChange)
	df.WasmBuckets = alignWasm(base.WasmBuckets, new.WasmBuckets, byWasmKind)
	df.WasmWarnings = []string{}
	for _, s := range []struct {
		what string
		side Side
	}{{"base", df.Base}, {"new", df.New}} {
		if !s.side.WasmFrames {
			df.WasmWarnings = append(df.WasmWarnings, fmt.Sprintf("the %s profile has no Wasm frames (jsprof run --mode sample records them)", s.what))
		}
	}
	df.WasmWarnings = append(df.WasmWarnings, df.Cautions(false)...)
	return df
}

// Cautions are the warnings about the two runs rather than their tables,
// which every view carries and jsprof diff also says on stderr: modes
// that differ (ModesDiffer), a run that did not complete (Side.Incomplete).
// gated leaves the runs out: a gate says those itself (Gate.Failures).
func (df *Diff) Cautions(gated bool) []string {
	var c []string
	if df.Base.Mode != df.New.Mode {
		c = append(c, ModesDiffer(df.Base.Mode, df.New.Mode))
	}
	for _, s := range []struct {
		what string
		side Side
	}{{"base", df.Base}, {"new", df.New}} {
		if s.side.Incomplete != "" && !gated {
			c = append(c, fmt.Sprintf("the %s run did not complete (%s): its profile is of the part that ran", s.what, s.side.Incomplete))
		}
	}
	return c
}

// byChange orders by the size of a change, then by the weight of what
// changed, then by name.
func byChange(a, b int64, wa, wb uint64, na, nb string) bool {
	if abs64(a) != abs64(b) {
		return abs64(a) > abs64(b)
	}
	if wa != wb {
		return wa > wb
	}
	return na < nb
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// sides is a row's two sides, the zero value for the one it lacks, and
// which side alone has it ("" when both do).
func sides[S any](base, nw *S) (b, n S, only string) {
	switch {
	case base == nil:
		return b, *nw, OnlyNew
	case nw == nil:
		return *base, n, OnlyBase
	}
	return *base, *nw, ""
}

// bothSides is what a row ran in the two profiles together, of(side) on
// each side it has.
func bothSides[S any](base, nw *S, of func(*S) uint64) uint64 {
	var w uint64
	if base != nil {
		w += of(base)
	}
	if nw != nil {
		w += of(nw)
	}
	return w
}

func opcodeWeight(o *Opcode) uint64 {
	return bothSides(o.Base, o.New, func(s *OpcodeSide) uint64 { return s.WasmInstructions })
}

func functionWeight(f *Function) uint64 {
	return bothSides(f.Base, f.New, func(s *FunctionSide) uint64 { return s.SelfWasmInstructions })
}

// ModesDiffer is the warning of a diff of profiles measured in different
// modes (exact and sample).
func ModesDiffer(base, new string) string {
	return fmt.Sprintf("the base was measured in %s mode, the new in %s mode: the opcode executions and calls, and where instructions are placed, differ by mode, not only by engine", base, new)
}

// summarize writes the paragraph of where the cost moved.
func (df *Diff) summarize() string {
	var s []string
	b, n := df.Base, df.New
	change := func(base, new uint64) string {
		if base == new {
			return "the same"
		}
		word := "more"
		if new < base {
			word = "fewer"
		}
		if base == 0 {
			return fmt.Sprintf("%s %s", costfmt.HumanSigned(deltaOf(base, new)), word)
		}
		return fmt.Sprintf("%.1f%% %s", math.Abs(100*(float64(new)-float64(base))/float64(base)), word)
	}
	if t := df.changedText(); t != "" {
		s = append(s, t)
	}
	s = append(s, fmt.Sprintf("The new profile (%s) ran %s Wasm instructions, the base (%s) %s: %s (%s).",
		costfmt.EngineLabel(n.Engine), costfmt.Human(n.TotalWasmInstructions), costfmt.EngineLabel(b.Engine), costfmt.Human(b.TotalWasmInstructions),
		change(b.TotalWasmInstructions, n.TotalWasmInstructions), costfmt.HumanSigned(df.DeltaWasmInstructions)))
	switch {
	case b.Mode != n.Mode:
		s = append(s, fmt.Sprintf("The base was measured in %s mode, the new in %s mode: sampling counts no opcode executions or calls, and places instructions by samples, so the changes below are the modes' as much as the engines'.", b.Mode, n.Mode))
	case b.Executions == n.Executions:
		s = append(s, fmt.Sprintf("Both executed the same %s JS opcodes.", costfmt.Human(b.Executions)))
	case costfmt.Human(b.Executions) == costfmt.Human(n.Executions):
		s = append(s, fmt.Sprintf("They executed nearly the same number of JS opcodes (base %d, new %d).", b.Executions, n.Executions))
	default:
		why := map[string]string{ChangedProgram: "the program changed", ChangedEngine: "the engines run the same bytecode differently",
			ChangedEngineBytecode: "the engines compiled the JS to different bytecode", ChangedNothing: "the input or the run differ"}[df.Changed]
		if why == "" {
			why = "the engine, the program or the input differ (the profiles do not record which)"
		}
		s = append(s, fmt.Sprintf("The new %s executed %s JS opcodes, the base %s (%s, %s): %s.", df.runner(),
			costfmt.Human(n.Executions), costfmt.Human(b.Executions), costfmt.HumanSigned(df.DeltaExecutions), costfmt.SignedPercent(float64(b.Executions), float64(n.Executions)), why))
	}
	var inOps, outside int64
	for _, o := range df.Opcodes {
		inOps += o.DeltaWasmInstructions
	}
	var bparts []string
	for _, bk := range df.Buckets {
		outside += bk.DeltaWasmInstructions
		if bk.DeltaWasmInstructions != 0 {
			bparts = append(bparts, fmt.Sprintf("%s %s", bk.Name, costfmt.HumanSigned(bk.DeltaWasmInstructions)))
		}
	}
	moved := func(d int64) string {
		switch {
		case d > 0:
			return "rose by " + costfmt.Human(uint64(d))
		case d < 0:
			return "fell by " + costfmt.Human(uint64(-d))
		}
		return "did not change"
	}
	outsideText := "outside them it " + moved(outside)
	if len(bparts) > 0 {
		outsideText += " (" + strings.Join(bparts, ", ") + ")"
	}
	if df.DeltaNativeWasmInstructions != 0 {
		outsideText = "in native functions it " + moved(df.DeltaNativeWasmInstructions) + "; " + outsideText
	}
	s = append(s, fmt.Sprintf("In JS opcodes the cost %s; %s.", moved(inOps), outsideText))

	var movers []string
	for _, o := range df.Opcodes {
		if len(movers) == 3 || o.DeltaWasmInstructions == 0 {
			break
		}
		movers = append(movers, o.Name+" ("+opcodeChangeText(&o)+")")
	}
	if len(movers) > 0 {
		s = append(s, "The largest changes are in "+joinAnd(movers)+".")
	}
	for _, only := range []string{OnlyBase, OnlyNew} {
		var names []string
		var instr uint64
		for _, o := range df.Opcodes {
			if o.Only != only {
				continue
			}
			names = append(names, o.Name)
			if o.Base != nil {
				instr += o.Base.WasmInstructions
			} else {
				instr += o.New.WasmInstructions
			}
		}
		if len(names) > 0 {
			sort.Strings(names)
			s = append(s, fmt.Sprintf("Only the %s %s ran %s (%s Wasm instructions).", only, df.runner(), joinAnd(names), costfmt.Human(instr)))
		}
	}
	var fns []string
	by := "By JS function: "
	for _, f := range df.Functions {
		if len(fns) == 3 || f.DeltaWasmInstructions == 0 {
			break
		}
		t := fmt.Sprintf("%s %s", f.Name, costfmt.HumanSigned(f.DeltaWasmInstructions))
		if f.Kind == report.FunctionNative {
			t, by = fmt.Sprintf("%s (native) %s", f.Name, costfmt.HumanSigned(f.DeltaWasmInstructions)), "By function: "
		}
		switch f.Only {
		case OnlyBase:
			t += " (only in the base)"
		case OnlyNew:
			t += " (only in the new)"
		default:
			t += fmt.Sprintf(" (%s)", costfmt.SignedPercent(float64(f.Base.SelfWasmInstructions), float64(f.New.SelfWasmInstructions)))
		}
		fns = append(fns, t)
	}
	if len(fns) > 0 {
		s = append(s, by+strings.Join(fns, ", ")+".")
	}
	return strings.Join(s, " ")
}

// opcodeChangeText says what changed in an opcode: its cost per execution,
// how often it ran, or both.
func opcodeChangeText(o *Opcode) string {
	d := costfmt.HumanSigned(o.DeltaWasmInstructions)
	switch o.Only {
	case OnlyBase:
		return d + ", only in the base"
	case OnlyNew:
		return d + ", only in the new"
	}
	b, n := o.Base, o.New
	var parts []string
	if b.Executions > 0 && n.Executions > 0 && math.Abs(n.PerExecution-b.PerExecution) >= 0.05 {
		parts = append(parts, fmt.Sprintf("%.1f → %.1f instructions per execution", b.PerExecution, n.PerExecution))
	}
	if b.Executions != n.Executions {
		parts = append(parts, fmt.Sprintf("%s → %s executions", costfmt.Human(b.Executions), costfmt.Human(n.Executions)))
	}
	if len(parts) == 0 {
		return d
	}
	return d + ": " + strings.Join(parts, ", ")
}

// joinAnd reads "a", "a and b", "a, b and c".
func joinAnd(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
