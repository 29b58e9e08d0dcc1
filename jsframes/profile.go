package jsframes

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/pprof/profile"
)

// Sample value indices of the profile (docs/profile-format.md).
const (
	ValueInstructions = iota
	ValueExecutions
	ValueCalls
	numValues
)

// FrameKind tells JS, opcode, Wasm and bucket frames apart; it is written
// as the prefix of a pprof Function's system_name.
type FrameKind string

const (
	KindJS     FrameKind = "js"
	KindOpcode FrameKind = "op"
	KindWasm   FrameKind = "wasm"
	KindBucket FrameKind = "bucket"
)

// Frame is one frame of a stack, in the terms of docs/profile-format.md.
type Frame struct {
	Kind       FrameKind
	Name       string // display name (pprof Function.name)
	SystemName string // pprof Function.system_name, kind prefix included
	File       string
	StartLine  int64
	Line       int64  // the line of this frame's pc
	Address    uint64 // JS: bytecode address of the pc; Wasm: code offset
}

// JSFrame is a JS function at a line; addr is its bytecode buffer's address
// and pc the frame's offset in it.
func JSFrame(name, file string, startLine, line int, addr, pc uint32) Frame {
	return Frame{Kind: KindJS, Name: name, SystemName: fmt.Sprintf("js:%s@%#x", name, addr), File: file,
		StartLine: int64(startLine), Line: int64(line), Address: uint64(addr) + uint64(pc)}
}

// OpcodeFrame is an opcode; value is the opcode byte, or 256 for the call
// setup.
func OpcodeFrame(name string, value int) Frame {
	return Frame{Kind: KindOpcode, Name: "op:" + name, SystemName: "op:" + strconv.Itoa(value)}
}

// WasmFrame is a Wasm function (index in the original module, imports
// first) at a code offset, with DWARF file and line when known.
func WasmFrame(index uint32, name, file string, line int, offset uint64) Frame {
	return Frame{Kind: KindWasm, Name: name, SystemName: fmt.Sprintf("wasm:%d", index), File: file, Line: int64(line), Address: offset}
}

// ForeignWasmFrame is a frame of another module than the one profiled (a
// dynamic module's code calling its plugin), named as wazero names it.
func ForeignWasmFrame(name string) Frame {
	return Frame{Kind: KindWasm, Name: name, SystemName: "wasm:other:" + name}
}

// BucketFrame roots the stacks of a bucket: "(outside JS)" (system name
// bucket:outside), "(native functions)" (bucket:native), "(truncated Wasm
// stack)" (bucket:truncated).
func BucketFrame(name string) Frame {
	sys := "bucket:" + strings.Trim(strings.Fields(name)[0], "()")
	return Frame{Kind: KindBucket, Name: name, SystemName: sys}
}

// ProfileMeta is what the profile's comments carry.
type ProfileMeta struct {
	Mode              string // "exact" or "sample"
	TotalInstructions uint64
	Engine            EngineInfo
	UncertainOpcodes  []int
	Module            string
	ExitCode          uint32
	Trap              string // "" when the guest did not trap
	SampleEvery       uint64 // sampling period, sample mode only
	Start             time.Time
	Duration          time.Duration
}

// ProfileBuilder accumulates stacks into one pprof profile, with functions,
// locations and identical stacks merged.
type ProfileBuilder struct {
	p       *profile.Profile
	funcs   map[string]*profile.Function
	locs    map[locKey]*profile.Location
	samples map[string]*profile.Sample
	key     strings.Builder
}

type locKey struct {
	fn   uint64
	line int64
	addr uint64
}

// NewProfileBuilder starts a profile.
func NewProfileBuilder(meta ProfileMeta) *ProfileBuilder {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: "wasm_instructions", Unit: "count"},
			{Type: "opcode_executions", Unit: "count"},
			{Type: "calls", Unit: "count"},
		},
		DefaultSampleType: "wasm_instructions",
		TimeNanos:         meta.Start.UnixNano(),
		DurationNanos:     meta.Duration.Nanoseconds(),
		Comments:          meta.comments(),
		// One mapping says the profile is symbolized already: pprof then
		// neither looks for a binary nor warns that it has none.
		Mapping: []*profile.Mapping{{ID: 1, File: meta.Module, HasFunctions: true, HasFilenames: true, HasLineNumbers: true}},
	}
	if meta.SampleEvery > 0 {
		p.PeriodType = &profile.ValueType{Type: "wasm_instructions", Unit: "count"}
		p.Period = int64(meta.SampleEvery)
	}
	return &ProfileBuilder{p: p, funcs: map[string]*profile.Function{}, locs: map[locKey]*profile.Location{}, samples: map[string]*profile.Sample{}}
}

func (m ProfileMeta) comments() []string {
	c := []string{
		"jsprof.mode=" + m.Mode,
		fmt.Sprintf("jsprof.total_wasm_instructions=%d", m.TotalInstructions),
		"jsprof.engine.family=" + m.Engine.Family,
		"jsprof.engine.releases=" + strings.Join(m.Engine.Releases, ","),
		"jsprof.engine.opcode_names_source=" + m.Engine.OpcodeNamesSource,
	}
	if len(m.UncertainOpcodes) > 0 {
		vals := make([]string, len(m.UncertainOpcodes))
		for i, v := range m.UncertainOpcodes {
			vals[i] = strconv.Itoa(v)
		}
		c = append(c, "jsprof.engine.uncertain_opcodes="+strings.Join(vals, ","))
	}
	if m.Module != "" {
		c = append(c, "jsprof.module="+m.Module)
	}
	c = append(c, fmt.Sprintf("jsprof.exit_code=%d", m.ExitCode))
	if m.Trap != "" {
		c = append(c, "jsprof.trap="+m.Trap)
	}
	return c
}

// Add records values on a stack given root first.
func (b *ProfileBuilder) Add(stack []Frame, instructions, executions, calls int64) {
	if len(stack) == 0 || (instructions == 0 && executions == 0 && calls == 0) {
		return
	}
	locs := make([]*profile.Location, len(stack))
	b.key.Reset()
	for i, f := range stack {
		loc := b.location(f)
		locs[len(stack)-1-i] = loc // pprof: leaf first
		fmt.Fprintf(&b.key, "%d,", loc.ID)
	}
	k := b.key.String()
	s := b.samples[k]
	if s == nil {
		s = &profile.Sample{Location: locs, Value: make([]int64, numValues)}
		b.samples[k] = s
		b.p.Sample = append(b.p.Sample, s)
	}
	s.Value[ValueInstructions] += instructions
	s.Value[ValueExecutions] += executions
	s.Value[ValueCalls] += calls
}

func (b *ProfileBuilder) location(f Frame) *profile.Location {
	fn := b.funcs[f.SystemName]
	if fn == nil {
		fn = &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: f.Name, SystemName: f.SystemName, Filename: f.File, StartLine: f.StartLine}
		b.funcs[f.SystemName] = fn
		b.p.Function = append(b.p.Function, fn)
	}
	k := locKey{fn: fn.ID, line: f.Line, addr: f.Address}
	loc := b.locs[k]
	if loc == nil {
		loc = &profile.Location{ID: uint64(len(b.p.Location) + 1), Mapping: b.p.Mapping[0], Address: f.Address, Line: []profile.Line{{Function: fn, Line: f.Line}}}
		b.locs[k] = loc
		b.p.Location = append(b.p.Location, loc)
	}
	return loc
}

// Profile returns the profile, checked with pprof's own validation.
func (b *ProfileBuilder) Profile() (*profile.Profile, error) {
	if err := b.p.CheckValid(); err != nil {
		return nil, fmt.Errorf("jsframes: invalid profile: %w", err)
	}
	return b.p, nil
}

// WriteCollapsed writes p's stacks in the collapsed-stack format of
// flamegraph.pl and speedscope: "root;...;leaf count" per line, counting
// sample value index; stacks that read the same are merged, and sorted for
// stable output.
func WriteCollapsed(w io.Writer, p *profile.Profile, index int) error {
	counts := map[string]int64{}
	for _, s := range p.Sample {
		if s.Value[index] == 0 {
			continue
		}
		names := make([]string, 0, len(s.Location))
		for i := len(s.Location) - 1; i >= 0; i-- {
			loc := s.Location[i]
			for j := len(loc.Line) - 1; j >= 0; j-- {
				ln := loc.Line[j]
				name := ln.Function.Name
				if ln.Function.Filename != "" && ln.Line > 0 {
					name = fmt.Sprintf("%s (%s:%d)", name, ln.Function.Filename, ln.Line)
				}
				names = append(names, strings.ReplaceAll(name, ";", ":"))
			}
		}
		counts[strings.Join(names, ";")] += s.Value[index]
	}
	stacks := make([]string, 0, len(counts))
	for k := range counts {
		stacks = append(stacks, k)
	}
	sort.Strings(stacks)
	for _, k := range stacks {
		if _, err := fmt.Fprintf(w, "%s %d\n", k, counts[k]); err != nil {
			return err
		}
	}
	return nil
}
