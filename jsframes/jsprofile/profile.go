package jsprofile

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/pprof/profile"
)

// Sample value indices: every sample carries the three values, in this
// order.
const (
	ValueInstructions = iota // Wasm instructions executed
	ValueExecutions          // JS opcode executions (exact mode)
	ValueCalls               // JS function calls (exact mode)
	NumValues
)

// SampleTypes are the profile's sample types, indexed by the Value*
// constants.
func SampleTypes() []*profile.ValueType {
	return []*profile.ValueType{
		{Type: "wasm_instructions", Unit: "count"},
		{Type: "opcode_executions", Unit: "count"},
		{Type: "calls", Unit: "count"},
	}
}

// FrameKind tells JS, native, opcode, Wasm and bucket frames apart. A
// pprof Function's system_name starts with the kind and a colon.
type FrameKind string

// The frame kinds.
const (
	KindJS     FrameKind = "js"
	KindNative FrameKind = "native"
	KindOpcode FrameKind = "op"
	KindWasm   FrameKind = "wasm"
	KindBucket FrameKind = "bucket"
	KindPhase  FrameKind = "phase"
)

// prefix is the kind's system_name prefix.
func (k FrameKind) prefix() string { return string(k) + ":" }

// OpcodePrefix starts every opcode frame's display name (op:get_field), so
// that opcodes read apart from JS functions in pprof's views.
const OpcodePrefix = "op:"

// CallSetup is the opcode value of the call-setup pseudo-opcode: what the
// interpreter runs between being entered and its first dispatch. Real
// opcodes are bytes, 0-255.
const CallSetup = 256

// Frame is one frame of a stack.
type Frame struct {
	Kind       FrameKind
	Name       string // display name (pprof Function.name)
	SystemName string // pprof Function.system_name, kind prefix included
	File       string
	StartLine  int64
	Line       int64  // the line of this frame's pc
	Column     int64  // JS: the column of this frame's pc, 0 when unknown
	Address    uint64 // JS: bytecode address of the pc; Wasm: code offset
}

// JSFrame is a JS function at a line; addr is its bytecode buffer's address
// and pc the frame's offset in it. The system name keeps the address so
// that two functions of one name stay apart.
func JSFrame(name, file string, startLine, line int, addr, pc uint32) Frame {
	return JSFrameAt(name, file, startLine, 0, line, 0, addr, pc)
}

// JSFrameAt is JSFrame with the function's first column (kept in its
// system name, JSName) and the pc's column (the location's), 1-based, 0
// when unknown: what a source map needs to tell the positions of a
// minified line apart.
func JSFrameAt(name, file string, startLine, startColumn, line, column int, addr, pc uint32) Frame {
	return Frame{Kind: KindJS, Name: name, SystemName: JSName{Name: name, Address: uint64(addr), Column: startColumn}.String(), File: file,
		StartLine: int64(startLine), Line: int64(line), Column: int64(column), Address: uint64(addr) + uint64(pc)}
}

// NativeFrame is a native (C) function called from JS or from another
// native, named as JavaScript names it ("JSON.parse", "get
// Map.prototype.size"; "native@table[N]" when the engine's function lists
// do not declare it). tableIndex and magic are what its function object
// holds (the C function's index in table 0, and the magic that tells apart
// builtins sharing one C function): the system name keeps them, so that
// natives of one name stay apart within a profile, while reports align
// natives across engines by name.
func NativeFrame(name string, tableIndex uint32, magic int16) Frame {
	sys := fmt.Sprintf("%s%s@table[%d]", KindNative.prefix(), name, tableIndex)
	if magic != 0 {
		sys += fmt.Sprintf("/magic=%d", magic)
	}
	return Frame{Kind: KindNative, Name: name, SystemName: sys}
}

// CalledNativeFrame is a native function no function list declares (a
// host function a Javy plugin or Shopify provider registers:
// Javy.IO.readSync), named after what its call site called
// (naming.Namer.CallName). Calls written alike share it.
func CalledNativeFrame(name string) Frame {
	return Frame{Kind: KindNative, Name: name, SystemName: KindNative.prefix() + name + "@call"}
}

// OpcodeFrame is an opcode; value is the opcode byte, or CallSetup.
func OpcodeFrame(name string, value int) Frame {
	return Frame{Kind: KindOpcode, Name: OpcodePrefix + name, SystemName: KindOpcode.prefix() + strconv.Itoa(value)}
}

// WasmFrame is a Wasm function (index in the original module, imports
// first) at a code offset, with DWARF file and line when known.
func WasmFrame(index uint32, name, file string, line int, offset uint64) Frame {
	return Frame{Kind: KindWasm, Name: name, SystemName: fmt.Sprintf("%s%d", KindWasm.prefix(), index), File: file, Line: int64(line), Address: offset}
}

// ForeignWasmFrame is a frame of another module than the one profiled (a
// dynamic module's code calling its plugin), named as wazero names it.
func ForeignWasmFrame(name string) Frame {
	return Frame{Kind: KindWasm, Name: name, SystemName: KindWasm.prefix() + "other:" + name}
}

// The buckets: instructions that ran outside any JS function's opcodes,
// each the root of its own stacks.
const (
	// BucketOutside: no interpreter activation was running (engine
	// start-up, parsing, GC and host glue between JS calls).
	BucketOutside = "(outside JS)"
	// BucketNative: an interpreter activation that never dispatched an
	// opcode and that no native frame names (a host function a plugin
	// registered, a bound function; every native where the engine's
	// js_call_c_function is not found). It roots its stacks when called
	// from outside JS, and sits in its caller's stack otherwise.
	BucketNative = "(native functions)"
	// BucketTruncated: a sampled Wasm stack deeper than jsprof walks.
	BucketTruncated = "(truncated Wasm stack)"
	// BucketTampered: what the run counted (the instruction counter, a
	// global the guest cannot name, is always trusted) that the counters
	// in guest memory, written over by the guest, cannot place. It keeps
	// a tampered run's profile adding up to its total, as every exact
	// profile must, without charging a function for what it may not have
	// run.
	BucketTampered = "(counters overwritten by the guest)"
	// BucketModuleCode: the code of a dynamic module itself, run in the
	// measured call around the plugin's (its export, before and after it
	// calls into the plugin). function-runner counts it with the
	// provider's; jsprof counts it with wasmcore's counter and adds it
	// here.
	BucketModuleCode = "(module code outside the plugin)"
	// BucketWasm roots the one stack of a count-only profile (a run with
	// no JS interpreter): every instruction of the export call, charged
	// to no function, since nothing of the run is JS and the count is not
	// split by Wasm function.
	BucketWasm = "(Wasm code, no JS interpreter)"
)

// The phases of a run (docs/profile-format.md): each exact profile's
// stack is rooted at the phase it ran in.
const (
	// PhaseStartup: outside JS, before the first JS (or native)
	// activation of the call: loading the program's bytecode, creating the
	// context; exact.
	PhaseStartup = "engine start-up"
	// PhaseInput: natives that read the input (Javy.IO.readSync,
	// Javy.JSON.fromStdin, ShopifyFunction.readInput), the JS they call
	// back, and natives that decode (JSON.parse, TextDecoder's decode)
	// what a JS function read so: by what the code did, not by name.
	PhaseInput = "input decoding"
	// PhaseJS: the JS program: its opcodes and the natives it calls.
	PhaseJS = "JS program"
	// PhaseOutput: natives that write the output (Javy.IO.writeSync,
	// Javy.JSON.toStdout, ShopifyFunction.writeOutput), and natives that
	// encode (JSON.stringify, TextEncoder's encode) what is then written.
	PhaseOutput = "output encoding"
	// PhaseGC: the cycle collector (JS_RunGC on the Wasm stack), where the
	// engine's functions are named; apportioned, as Wasm frames are.
	PhaseGC = "garbage collection"
	// PhaseEngine: outside JS after the first activation began: the
	// engine's work between and after JS calls (pending jobs, flushing).
	PhaseEngine = "engine, between and after JS"
)

// PhasePrefix starts a phase frame's display name ("phase: JS program").
const PhasePrefix = "phase: "

// PhaseFrame roots the stacks of a phase; its system name is phase: and
// the phase's name.
func PhaseFrame(name string) Frame {
	return Frame{Kind: KindPhase, Name: PhasePrefix + name, SystemName: KindPhase.prefix() + name}
}

// BucketFrame roots the stacks of a bucket; its system name is bucket: and
// the bucket's first word ("(outside JS)" is bucket:outside).
func BucketFrame(name string) Frame {
	sys := KindBucket.prefix()
	if f := strings.Fields(name); len(f) > 0 {
		sys += strings.Trim(f[0], "()")
	}
	return Frame{Kind: KindBucket, Name: name, SystemName: sys}
}

// Modes of a profile, and ModeOff, jsprof run's mode that writes none.
const (
	ModeExact  = "exact"
	ModeSample = "sample"
	ModeOff    = "off"
)

// EngineInfo says which engine ran, as the dispatch analysis identified it.
type EngineInfo struct {
	Family   string   `json:"family"`
	Releases []string `json:"releases"`
	// OpcodeNamesSource says where opcode names came from (dispatch.Names*);
	// "" when opcodes are named by number.
	OpcodeNamesSource string `json:"opcode_names_source"`
	// Code is the SHA-256, in hex, of the engine's code (the function
	// bodies of the module that holds the interpreter: the plugin or
	// provider of a dynamic module, the module itself when static), the
	// same whatever JS a build carries; "" in profiles of earlier jsprof.
	Code string `json:"code_sha256,omitempty"`
}

// Meta is what a profile says about its run, in its jsprof.* comments.
type Meta struct {
	Mode string // ModeExact or ModeSample
	// TotalInstructions is every Wasm instruction the run executed: the
	// whole that shares are of. Exact profiles' samples add up to it.
	TotalInstructions uint64
	Engine            EngineInfo
	UncertainOpcodes  []int // opcode values whose names are guesses
	Module            string
	// ExitCode is jsprof's exit code for the run (the guest's own, 134 for
	// a trap, 124 for a limit, 128+n for signal n); nil when the profile
	// does not say.
	ExitCode *int
	Trap     string // how the guest trapped; "" when it did not
	// Throw is the uncaught JS error the run ended with; nil when none
	// was seen.
	Throw *Throw
	// SampleEvery is the sampling period (sample mode only), written as
	// the profile's Period.
	SampleEvery uint64
	// Start and Duration time the run (TimeNanos, DurationNanos).
	Start    time.Time
	Duration time.Duration
	// CostModel is what one Wasm instruction cost: CostAll or CostFuel
	// (docs/instruction-counting.md); "" in profiles of earlier jsprof,
	// which counted every instruction.
	CostModel string
	// Run is what the run measured beside its stacks.
	Run RunInfo
	// WasmStacks, in an exact profile, is how many Wasm stacks were
	// sampled to apportion each exact slot's instructions to the Wasm
	// frames around its JS frames (0: the profile has no Wasm frames).
	// Values at JS, opcode, native and bucket frames are exact; a Wasm
	// frame's value is an estimate (docs/profile-format.md).
	WasmStacks uint64
	// SourceMap says where the source map that named the JS positions
	// after the original files came from ("dist/function.js.map",
	// "inline (function.js)"); "" when none did. GeneratedFile is the
	// file it mapped from (the bundle): JS functions of other files kept
	// their positions.
	SourceMap, GeneratedFile string
	// Checked is how many JS functions the run's self-check verified
	// against the engine's own data (exact mode; 0: not checked), and
	// CheckFailures those the engine contradicted: their costs by opcode
	// and line are not to be trusted (docs/profile-format.md).
	Checked       int
	CheckFailures []CheckFailure
	// Program is the SHA-256, in hex, of the program's serialized
	// bytecode (the data segment a Javy module carries it in): two builds
	// of one JS by one engine have the same; "" when the module carries
	// none, or in profiles of earlier jsprof.
	Program string
}

// CheckFailure is a function whose measurement the engine's data
// contradicts: its system name, and the contradiction.
type CheckFailure struct {
	Function string `json:"function"`
	Why      string `json:"why"`
}

// IsSHA256 says whether s is a SHA-256 in lower-case hex, as Meta's
// identities are written; a profile's other values of them are dropped
// when it is read.
func IsSHA256(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// WasmApportioned says whether the Wasm frames' values are apportioned
// estimates beside exact JS values (an exact profile with Wasm frames).
func (m Meta) WasmApportioned() bool { return m.Mode == ModeExact && m.WasmStacks > 0 }

// Cost models (wasmcore.CostModel's names).
const (
	CostAll  = "all"
	CostFuel = "fuel"
	// CostFuelOps is wasmcore.CostFuelOps, which no user asks for: the
	// wasmtime reference test's negative control.
	CostFuelOps = "fuel-ops"
)

// RunInfo is what a run measured beside its stacks: the phases outside the
// call the profile covers, and a Shopify Function's sizes. Zero values are
// not written.
type RunInfo struct {
	// Export is the export the profile's stacks and total cover.
	Export string `json:"export,omitempty"`
	// StartupInstructions ran before the export call (instantiating and
	// initializing the engine, writing the input), FinishInstructions after
	// it (reading the output); neither is in the profile's total.
	StartupInstructions uint64 `json:"startup_wasm_instructions,omitempty"`
	FinishInstructions  uint64 `json:"finish_wasm_instructions,omitempty"`
	// MemoryBytes is the guest's linear memory when it ended.
	MemoryBytes uint64 `json:"linear_memory_bytes,omitempty"`
	// Provider is the Shopify Functions provider the function imports.
	Provider string `json:"provider,omitempty"`
	Codec    string `json:"codec,omitempty"`
	// InputBytes and OutputBytes are the sizes of the encoded input and
	// output, as function-runner measures them.
	InputBytes  uint64 `json:"input_bytes,omitempty"`
	OutputBytes uint64 `json:"output_bytes,omitempty"`
	// Limits are what a Shopify Function is held to, and whether the run
	// went over them; nil for other runs.
	Limits *Limits `json:"limits,omitempty"`
}

// Limits are a Shopify Function's limits, as function-runner applies them
// (scaled by @scaleLimits: ScaleFactor), and which of them the run
// exceeded. Every field but ScaleFactor is written, so that a false flag
// is said, not left out.
type Limits struct {
	// Instructions limits the export call's count (in the profile's cost
	// model, the limit being on wasmtime's fuel).
	Instructions     uint64 `json:"instructions"`
	InputBytes       uint64 `json:"input_bytes"`
	OutputBytes      uint64 `json:"output_bytes"`
	InstructionsOver bool   `json:"instructions_over"`
	InputOver        bool   `json:"input_over"`
	OutputOver       bool   `json:"output_over"`
	// ScaleFactor is what the limits above are Shopify's multiplied by
	// (function-runner's scale factor, 1 to 10); 0 or 1: not scaled.
	ScaleFactor float64 `json:"scale_factor,omitempty"`
}

// Scaled reports whether l's limits are scaled, by a factor other than 1.
func (l *Limits) Scaled() bool {
	return l != nil && l.ScaleFactor != 0 && l.ScaleFactor != 1
}

// The comments of Limits: the limits as name:value pairs, the names of
// those the run went over, and the scale factor when not 1.
const (
	commentLimits      = commentRun + "limits"
	commentOverLimit   = commentRun + "over_limit"
	commentScaleFactor = commentRun + "scale_factor"
)

// limitField is one limit of Limits and its flag, by its comment name.
type limitField struct {
	name  string
	limit *uint64
	over  *bool
}

// fields are l's limits and flags, in the order they are written.
func (l *Limits) fields() []limitField {
	return []limitField{{"instructions", &l.Instructions, &l.InstructionsOver}, {"input_bytes", &l.InputBytes, &l.InputOver}, {"output_bytes", &l.OutputBytes, &l.OutputOver}}
}

// comments writes l as jsprof.run.limits=instructions:N,input_bytes:N,…,
// when the run went over any, jsprof.run.over_limit=NAME,…, and when
// scaled, jsprof.run.scale_factor=F.
func (l *Limits) comments() []string {
	var limits, over []string
	for _, f := range l.fields() {
		limits = append(limits, fmt.Sprintf("%s:%d", f.name, *f.limit))
		if *f.over {
			over = append(over, f.name)
		}
	}
	c := []string{commentLimits + "=" + strings.Join(limits, ",")}
	if len(over) > 0 {
		c = append(c, commentOverLimit+"="+strings.Join(over, ","))
	}
	if l.Scaled() {
		c = append(c, commentScaleFactor+"="+strconv.FormatFloat(l.ScaleFactor, 'g', -1, 64))
	}
	return c
}

// The comment keys. A comment is "key=value".
const (
	commentMode             = "jsprof.mode"
	commentTotal            = "jsprof.total_wasm_instructions"
	commentEngineFamily     = "jsprof.engine.family"
	commentEngineReleases   = "jsprof.engine.releases"
	commentOpcodeNames      = "jsprof.engine.opcode_names_source"
	commentEngineCode       = "jsprof.engine.code_sha256"
	commentProgram          = "jsprof.program.bytecode_sha256"
	commentUncertainOpcodes = "jsprof.engine.uncertain_opcodes"
	commentModule           = "jsprof.module"
	commentExitCode         = "jsprof.exit_code"
	commentTrap             = "jsprof.trap"
	commentCostModel        = "jsprof.cost_model"
	commentRun              = "jsprof.run."
	commentWasmStacks       = "jsprof.wasm_frames.apportioned_from_stacks"
	commentSourceMap        = "jsprof.source_map"
	commentGeneratedFile    = "jsprof.source_map.generated_file"
	commentChecked          = "jsprof.check.functions"
	commentCheckFailed      = "jsprof.check.failed" // one per function, a CheckFailure in JSON
)

// runComments are RunInfo's comments, by key after jsprof.run.: text
// values, then counts.
func (r *RunInfo) runComments() (texts map[string]*string, counts map[string]*uint64) {
	return map[string]*string{"export": &r.Export, "provider": &r.Provider, "codec": &r.Codec},
		map[string]*uint64{"startup_wasm_instructions": &r.StartupInstructions, "finish_wasm_instructions": &r.FinishInstructions,
			"linear_memory_bytes": &r.MemoryBytes, "input_bytes": &r.InputBytes, "output_bytes": &r.OutputBytes}
}

func (m Meta) comments() []string {
	c := []string{
		commentMode + "=" + m.Mode,
		fmt.Sprintf("%s=%d", commentTotal, m.TotalInstructions),
		commentEngineFamily + "=" + m.Engine.Family,
		commentEngineReleases + "=" + strings.Join(m.Engine.Releases, ","),
		commentOpcodeNames + "=" + m.Engine.OpcodeNamesSource,
	}
	if len(m.UncertainOpcodes) > 0 {
		vals := make([]string, len(m.UncertainOpcodes))
		for i, v := range m.UncertainOpcodes {
			vals[i] = strconv.Itoa(v)
		}
		c = append(c, commentUncertainOpcodes+"="+strings.Join(vals, ","))
	}
	if m.Module != "" {
		c = append(c, commentModule+"="+oneLine(m.Module))
	}
	if IsSHA256(m.Engine.Code) {
		c = append(c, commentEngineCode+"="+m.Engine.Code)
	}
	if IsSHA256(m.Program) {
		c = append(c, commentProgram+"="+m.Program)
	}
	if m.ExitCode != nil {
		c = append(c, fmt.Sprintf("%s=%d", commentExitCode, *m.ExitCode))
	}
	if m.Trap != "" {
		c = append(c, commentTrap+"="+oneLine(m.Trap))
	}
	c = append(c, m.Throw.comments()...)
	if m.CostModel != "" {
		c = append(c, commentCostModel+"="+m.CostModel)
	}
	if m.WasmStacks > 0 {
		c = append(c, fmt.Sprintf("%s=%d", commentWasmStacks, m.WasmStacks))
	}
	if m.Checked > 0 {
		c = append(c, fmt.Sprintf("%s=%d", commentChecked, m.Checked))
	}
	for _, f := range m.CheckFailures {
		b, _ := json.Marshal(f) // strings only: cannot fail; escapes newlines
		c = append(c, commentCheckFailed+"="+string(b))
	}
	texts, counts := m.Run.runComments()
	for _, k := range sortedKeys(texts) {
		if v := *texts[k]; v != "" {
			c = append(c, commentRun+k+"="+oneLine(v))
		}
	}
	for _, k := range sortedKeys(counts) {
		if v := *counts[k]; v != 0 {
			c = append(c, fmt.Sprintf("%s%s=%d", commentRun, k, v))
		}
	}
	if m.Run.Limits != nil {
		c = append(c, m.Run.Limits.comments()...)
	}
	if m.SourceMap != "" {
		c = append(c, m.sourceMapComments()...)
	}
	return c
}

func (m Meta) sourceMapComments() []string {
	return []string{commentSourceMap + "=" + oneLine(m.SourceMap), commentGeneratedFile + "=" + oneLine(m.GeneratedFile)}
}

// MarkSourceMapped records in p's comments that a source map named its JS
// positions (Meta.SourceMap, Meta.GeneratedFile). It is for the one
// rewriting the profile (package sourcemap).
func MarkSourceMapped(p *profile.Profile, from, generatedFile string) {
	p.Comments = append(p.Comments, Meta{SourceMap: from, GeneratedFile: generatedFile}.sourceMapComments()...)
}

// SourceMapped says whether p's JS positions were named after a source
// map already (its jsprof.source_map comment).
func SourceMapped(p *profile.Profile) bool {
	for _, c := range p.Comments {
		if strings.HasPrefix(c, commentSourceMap+"=") {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	if len(m) == 0 {
		return nil // every sample's labels are looked at when writing
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// oneLine keeps a comment's value on its line.
func oneLine(s string) string { return strings.NewReplacer("\n", " ", "\r", " ").Replace(s) }

// Builder accumulates stacks into one pprof profile, with functions,
// locations and identical stacks merged.
type Builder struct {
	p     *profile.Profile
	funcs map[string]*profile.Function
	// locs finds a frame's location; buf holds the stack being added.
	locs map[frameKey]*profile.Location
	buf  []*profile.Location
	// New samples and their values are cut from these slabs: a large
	// program's profile has a million samples. A slab starts small and
	// doubles, up to a cap: most profiles are small. (Locations are not:
	// copying pointers into an old slab takes write barriers while the
	// collector runs, and cost sampled profiles more than it saved.)
	// A sample still referenced keeps its whole slab alive, as the
	// profile keeps all of them.
	sampleSlab []profile.Sample
	valueSlab  []int64
	slabSize   int // the number of samples the last slab held
	// samples by a hash of their locations; collided: the stacks whose
	// hash an earlier one had, by their locations' ids
	samples  map[uint64]*profile.Sample
	collided map[string]*profile.Sample
	seed     maphash.Seed
	key      []byte
	// What Read would find wrong with the profile is checked as it is
	// built rather than by reading a large profile again (Profile):
	// isJS tells the JS functions by id (executions must be under one),
	// sums are the values' sums, wrong the first thing found wrong.
	isJS  []bool
	sums  [NumValues]uint64
	wrong error
}

// frameKey is what tells a Frame's location: its function (by system
// name, as funcs keys functions), line and address.
type frameKey struct {
	systemName string
	line, col  int64
	addr       uint64
}

// NewBuilder starts a profile described by meta.
func NewBuilder(meta Meta) *Builder {
	p := &profile.Profile{
		SampleType:        SampleTypes(),
		DefaultSampleType: SampleTypes()[ValueInstructions].Type,
		TimeNanos:         meta.Start.UnixNano(),
		DurationNanos:     meta.Duration.Nanoseconds(),
		Comments:          meta.comments(),
		// One mapping says the profile is symbolized already: pprof then
		// neither looks for a binary nor warns that it has none.
		Mapping: []*profile.Mapping{{ID: 1, File: meta.Module, HasFunctions: true, HasFilenames: true, HasLineNumbers: true}},
	}
	if meta.SampleEvery > 0 {
		p.PeriodType = SampleTypes()[ValueInstructions]
		p.Period = int64(meta.SampleEvery)
	}
	return &Builder{p: p, funcs: map[string]*profile.Function{}, locs: map[frameKey]*profile.Location{},
		samples: map[uint64]*profile.Sample{}, seed: maphash.MakeSeed(), isJS: []bool{false}}
}

// Grow makes room for about stacks distinct stacks and locations
// distinct locations in all, so that a caller that knows how many it will
// add spares the builder growing its tables step by step.
func (b *Builder) Grow(stacks, locations int) {
	if stacks > len(b.samples) {
		b.samples = withRoom(b.samples, stacks)
		b.p.Sample = slices.Grow(b.p.Sample, max(0, stacks-len(b.p.Sample)))
	}
	if locations > len(b.locs) {
		b.locs = withRoom(b.locs, locations)
		b.p.Location = slices.Grow(b.p.Location, max(0, locations-len(b.p.Location)))
	}
}

// withRoom returns a map of m's entries made with room for n.
func withRoom[K comparable, V any](m map[K]V, n int) map[K]V {
	out := make(map[K]V, n)
	maps.Copy(out, m)
	return out
}

// Add records values on a stack given root first.
func (b *Builder) Add(stack []Frame, instructions, executions, calls int64) {
	if len(stack) == 0 || (instructions == 0 && executions == 0 && calls == 0) {
		return
	}
	b.addLocations(b.leafFirst(stack, 0), instructions, executions, calls)
}

// AddUnder is Add of root followed by stack, without a copy of stack.
func (b *Builder) AddUnder(root Frame, stack []Frame, instructions, executions, calls int64) {
	if instructions == 0 && executions == 0 && calls == 0 {
		return
	}
	locs := b.leafFirst(stack, 1)
	locs[len(stack)] = b.Location(root)
	b.addLocations(locs, instructions, executions, calls)
}

// leafFirst returns stack's locations leaf first, as pprof has them, with
// room for extra more at the root, in b.buf.
func (b *Builder) leafFirst(stack []Frame, extra int) []*profile.Location {
	b.buf = slices.Grow(b.buf[:0], len(stack)+extra)[:len(stack)+extra]
	for i, f := range stack {
		b.buf[len(stack)-1-i] = b.Location(f)
	}
	return b.buf
}

// AddLocations is Add for a stack of locations the builder returned
// (Location), leaf first as pprof has them: a caller that meets the same
// frames in many stacks makes each frame's location once. locs is
// copied when the stack is new.
func (b *Builder) AddLocations(locs []*profile.Location, instructions, executions, calls int64) {
	if len(locs) == 0 || (instructions == 0 && executions == 0 && calls == 0) {
		return
	}
	b.addLocations(locs, instructions, executions, calls)
}

// newSample returns a new sample with locs, cut from the slabs.
func (b *Builder) newSample(locs []*profile.Location) *profile.Sample {
	if len(b.sampleSlab) == 0 {
		b.slabSize = min(max(2*b.slabSize, 64), 1<<14)
		b.sampleSlab = make([]profile.Sample, b.slabSize)
		b.valueSlab = make([]int64, b.slabSize*NumValues)
	}
	s := &b.sampleSlab[0]
	b.sampleSlab = b.sampleSlab[1:]
	s.Location = slices.Clone(locs)
	s.Value = b.valueSlab[:NumValues:NumValues]
	b.valueSlab = b.valueSlab[NumValues:]
	return s
}

func (b *Builder) addLocations(locs []*profile.Location, instructions, executions, calls int64) {
	b.key = b.key[:0]
	for _, loc := range locs {
		b.key = binary.AppendUvarint(b.key, loc.ID)
	}
	// Stacks are found by a hash of their locations, checked: a profile of
	// a large program has hundreds of thousands, and keeping each one's
	// key as a string cost more than the stacks.
	h := maphash.Bytes(b.seed, b.key)
	s := b.samples[h]
	if s != nil && !slices.Equal(s.Location, locs) {
		s = b.collided[string(b.key)] // no allocation for the lookup
	}
	if s == nil {
		s = b.newSample(locs)
		if executions != 0 && b.wrong == nil && !b.underJS(locs) {
			b.wrong = fmt.Errorf("%d opcode executions on a stack outside any JS function", executions)
		}
		if b.samples[h] == nil {
			b.samples[h] = s
		} else {
			if b.collided == nil {
				b.collided = map[string]*profile.Sample{}
			}
			b.collided[string(b.key)] = s
		}
		b.p.Sample = append(b.p.Sample, s)
	}
	for i, v := range [NumValues]int64{ValueInstructions: instructions, ValueExecutions: executions, ValueCalls: calls} {
		switch {
		case b.wrong != nil:
		case v < 0:
			b.wrong = fmt.Errorf("a stack's %s %d is negative", b.p.SampleType[i].Type, v)
		case uint64(v) > math.MaxInt64-b.sums[i]:
			b.wrong = fmt.Errorf("the samples' %s overflow a 64-bit count", b.p.SampleType[i].Type)
		}
		b.sums[i] += uint64(v)
		s.Value[i] += v
	}
}

// underJS says whether a stack has a JS function's frame.
func (b *Builder) underJS(locs []*profile.Location) bool {
	for _, loc := range locs {
		for _, ln := range loc.Line {
			if ln.Function != nil && b.isJS[ln.Function.ID] {
				return true
			}
		}
	}
	return false
}

// Location returns f's location in the profile, added with its function
// when new.
func (b *Builder) Location(f Frame) *profile.Location {
	k := frameKey{systemName: f.SystemName, line: f.Line, col: f.Column, addr: f.Address}
	if loc := b.locs[k]; loc != nil {
		return loc
	}
	fn := b.funcs[f.SystemName]
	if fn == nil {
		fn = &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: f.Name, SystemName: f.SystemName, Filename: f.File, StartLine: f.StartLine}
		b.funcs[f.SystemName] = fn
		b.p.Function = append(b.p.Function, fn)
		kind, err := classify(fn)
		if err != nil && b.wrong == nil {
			b.wrong = err
		}
		b.isJS = append(b.isJS, kind.Kind == KindJS)
	}
	loc := &profile.Location{ID: uint64(len(b.p.Location) + 1), Mapping: b.p.Mapping[0], Address: f.Address, Line: []profile.Line{{Function: fn, Line: f.Line, Column: f.Column}}}
	b.locs[k] = loc
	b.p.Location = append(b.p.Location, loc)
	return loc
}

// Profile returns the profile, with what Read checks checked: pprof's
// own rules hold by construction (ids in order, one mapping, a function
// for every line), and the rest was checked as it was built — each
// function's kind, values neither negative nor overflowing, executions
// only under JS frames — or is here: the comments, and an exact
// profile's samples adding up to its total. Reading a large profile again
// took as long as building it (TestBuiltProfilesReadBack reads every kind
// back, and the stacks package's tests read theirs).
func (b *Builder) Profile() (*profile.Profile, error) {
	if b.wrong != nil {
		return nil, fmt.Errorf("jsprofile: invalid profile: %w", b.wrong)
	}
	var meta Meta
	if err := meta.readComments(b.p.Comments); err != nil {
		return nil, fmt.Errorf("jsprofile: invalid profile: %w", err)
	}
	if meta.Mode == ModeExact && b.sums[ValueInstructions] != meta.TotalInstructions {
		return nil, fmt.Errorf("jsprofile: invalid profile: the exact profile's samples sum to %d wasm_instructions, but its total is %d",
			b.sums[ValueInstructions], meta.TotalInstructions)
	}
	return b.p, nil
}

// Write writes p gzipped, as pprof's own Write does, at gzip's fastest
// level: a profile of a large program holds millions of location
// references, and the default level took seconds to compress them where
// the fastest takes a fraction, for a file about a third larger.
func Write(w io.Writer, p *profile.Profile) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if err != nil {
		return err
	}
	if err := encodeProfile(zw, p); err != nil {
		zw.Close()
		return err
	}
	return zw.Close()
}

// CallSetupName names the call-setup pseudo-opcode (opcode value
// CallSetup).
const CallSetupName = "(call setup)"
