package jsprofile

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/google/pprof/profile"

	"github.com/jsprof/jsprof/internal/fileio"
	"github.com/jsprof/jsprof/internal/printable"
	"github.com/jsprof/jsprof/wasmcore"
)

// Profile is a jsprof profile read back: the pprof profile, what its
// comments say, and the kind of each of its functions.
type Profile struct {
	*profile.Profile
	Meta   Meta
	frames map[uint64]StackFrame // by Function ID, Line unset
}

// StackFrame is one frame of a sample's stack, classified.
type StackFrame struct {
	Kind     FrameKind
	Function *profile.Function
	Line     int64
	Opcode   int // the opcode value of a KindOpcode frame
}

// MaxFileBytes bounds a profile file's size, uncompressed, as ReadFile
// reads it: far above what jsprof writes, far below what a gzip bomb
// inflates to (1 MB of zeros compressed inflates to 1 GiB, which pprof's
// parser read whole: 34 s and 2.7 GB).
const MaxFileBytes = 128 << 20

// ReadFile reads a jsprof profile from a file, of at most MaxFileBytes
// uncompressed; errors name it.
func ReadFile(path string) (*Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := fileio.ReadMaybeGzip(f, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p, err := profile.ParseData(data)
	switch {
	case err != nil && wasmcore.HasMagic(data):
		return nil, fmt.Errorf("%s is a Wasm module, not a profile: profile it with jsprof run --report %s", path, path)
	case err != nil:
		return nil, fmt.Errorf("%s: not a pprof profile: %w", path, err)
	}
	jp, err := Read(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return jp, nil
}

// Read checks that p follows jsprof's conventions (the sample types, the
// jsprof.* comments, the kind of every function, non-negative values, and
// in exact mode samples that add up to the total) and returns it with
// them read. It says what is wrong with a profile jsprof did not write.
// Every string of p is made printable first, in place (printable.String):
// the names and comments of a profile come from whoever wrote it, or
// from the guest's module, and the reports print them.
func Read(p *profile.Profile) (*Profile, error) {
	if p == nil {
		return nil, errors.New("no profile")
	}
	makePrintable(p)
	if err := checkSampleTypes(p); err != nil {
		return nil, err
	}
	jp := &Profile{Profile: p, frames: make(map[uint64]StackFrame, len(p.Function))}
	if err := jp.Meta.readComments(p.Comments); err != nil {
		return nil, err
	}
	if p.TimeNanos != 0 {
		jp.Meta.Start = time.Unix(0, p.TimeNanos)
	}
	jp.Meta.Duration = time.Duration(p.DurationNanos)
	if p.Period > 0 {
		jp.Meta.SampleEvery = uint64(p.Period)
	}
	for _, fn := range p.Function {
		f, err := classify(fn)
		if err != nil {
			return nil, err
		}
		jp.frames[fn.ID] = f
	}
	var sums [NumValues]uint64
	for i, s := range p.Sample {
		if len(s.Value) != NumValues {
			return nil, fmt.Errorf("sample %d has %d values, want %d", i, len(s.Value), NumValues)
		}
		for j, v := range s.Value {
			if v < 0 {
				return nil, fmt.Errorf("sample %d: negative %s %d", i, p.SampleType[j].Type, v)
			}
		}
		inJS := false
		for _, loc := range s.Location {
			for _, ln := range loc.Line {
				if ln.Function == nil {
					continue
				}
				f, ok := jp.frames[ln.Function.ID]
				if !ok {
					return nil, fmt.Errorf("sample %d: function %d is not in the profile's function table", i, ln.Function.ID)
				}
				inJS = inJS || f.Kind == KindJS
			}
		}
		if !inJS && s.Value[ValueExecutions] > 0 {
			return nil, fmt.Errorf("sample %d: %d opcode executions outside any JS function", i, s.Value[ValueExecutions])
		}
		// Sums of the values must fit, so that no table built from them
		// wraps: every total a report shows is at most one of these.
		for j, v := range s.Value {
			next := sums[j] + uint64(v)
			if next < sums[j] || next > math.MaxInt64 {
				return nil, fmt.Errorf("sample %d: the samples' %s overflow a 64-bit count", i, p.SampleType[j].Type)
			}
			sums[j] = next
		}
	}
	if jp.Meta.Mode == ModeExact && sums[ValueInstructions] != jp.Meta.TotalInstructions {
		return nil, fmt.Errorf("exact profile's samples sum to %d wasm_instructions, but its %s comment says %d",
			sums[ValueInstructions], commentTotal, jp.Meta.TotalInstructions)
	}
	return jp, nil
}

// Stack returns sample s's frames, leaf first (pprof's order), appended to
// buf[:0]: locations leaf first, and within a location its lines innermost
// (inlined) first.
func (p *Profile) Stack(s *profile.Sample, buf []StackFrame) []StackFrame {
	buf = buf[:0]
	for _, loc := range s.Location {
		for _, ln := range loc.Line {
			if ln.Function == nil {
				continue
			}
			f := p.frames[ln.Function.ID]
			f.Line = ln.Line
			buf = append(buf, f)
		}
	}
	return buf
}

func checkSampleTypes(p *profile.Profile) error {
	want := SampleTypes()
	have := make([]string, len(p.SampleType))
	ok := len(p.SampleType) == len(want)
	for i, st := range p.SampleType {
		have[i] = st.Type + "/" + st.Unit
		if ok && (st.Type != want[i].Type || st.Unit != want[i].Unit) {
			ok = false
		}
	}
	if ok {
		return nil
	}
	ws := make([]string, len(want))
	for i, st := range want {
		ws[i] = st.Type + "/" + st.Unit
	}
	return fmt.Errorf("not a jsprof profile: its sample types are [%s], a jsprof profile's are [%s]",
		strings.Join(have, " "), strings.Join(ws, " "))
}

func (m *Meta) readComments(comments []string) error {
	kv := map[string]string{}
	for _, c := range comments {
		k, v, ok := strings.Cut(c, "=")
		if ok && k == commentCheckFailed {
			var f CheckFailure
			if err := json.Unmarshal([]byte(v), &f); err != nil {
				return fmt.Errorf("%s=%s: %w", commentCheckFailed, v, err)
			}
			m.CheckFailures = append(m.CheckFailures, f)
		} else if ok && strings.HasPrefix(k, "jsprof.") {
			kv[k] = v
		}
	}
	mode, ok := kv[commentMode]
	if !ok {
		return fmt.Errorf("not a jsprof profile: no %s comment", commentMode)
	}
	if mode != ModeExact && mode != ModeSample {
		return fmt.Errorf("%s=%s: want %s or %s", commentMode, mode, ModeExact, ModeSample)
	}
	m.Mode = mode
	total, ok := kv[commentTotal]
	if !ok {
		return fmt.Errorf("no %s comment", commentTotal)
	}
	n, err := strconv.ParseUint(total, 10, 64)
	if err != nil {
		return fmt.Errorf("%s=%s: not a count", commentTotal, total)
	}
	m.TotalInstructions = n
	m.Engine.Family = kv[commentEngineFamily]
	m.Engine.Releases = []string{}
	if r := kv[commentEngineReleases]; r != "" {
		m.Engine.Releases = strings.Split(r, ",")
	}
	m.Engine.OpcodeNamesSource = kv[commentOpcodeNames]
	m.UncertainOpcodes = []int{}
	if u := kv[commentUncertainOpcodes]; u != "" {
		for _, s := range strings.Split(u, ",") {
			op, err := strconv.Atoi(s)
			if err != nil {
				return fmt.Errorf("%s=%s: %q is not an opcode value", commentUncertainOpcodes, u, s)
			}
			m.UncertainOpcodes = append(m.UncertainOpcodes, op)
		}
	}
	m.Module = kv[commentModule]
	if IsSHA256(kv[commentEngineCode]) {
		m.Engine.Code = kv[commentEngineCode]
	}
	if IsSHA256(kv[commentProgram]) {
		m.Program = kv[commentProgram]
	}
	if c, ok := kv[commentExitCode]; ok {
		code, err := strconv.Atoi(c)
		if err != nil {
			return fmt.Errorf("%s=%s: not a number", commentExitCode, c)
		}
		m.ExitCode = &code
	}
	m.Trap = kv[commentTrap]
	throw, err := readThrow(kv)
	if err != nil {
		return err
	}
	m.Throw = throw
	m.CostModel = kv[commentCostModel]
	switch m.CostModel {
	case "", CostAll, CostFuel, CostFuelOps:
	default:
		return fmt.Errorf("%s=%s: want %s or %s", commentCostModel, m.CostModel, CostAll, CostFuel)
	}
	if w, ok := kv[commentWasmStacks]; ok {
		n, err := strconv.ParseUint(w, 10, 64)
		if err != nil {
			return fmt.Errorf("%s=%s: not a count", commentWasmStacks, w)
		}
		m.WasmStacks = n
	}
	if c, ok := kv[commentChecked]; ok {
		n, err := strconv.Atoi(c)
		if err != nil || n < 0 {
			return fmt.Errorf("%s=%s: not a count", commentChecked, c)
		}
		m.Checked = n
	}
	texts, counts := m.Run.runComments()
	for k, v := range texts {
		*v = kv[commentRun+k]
	}
	for k, v := range counts {
		if s, ok := kv[commentRun+k]; ok {
			n, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				return fmt.Errorf("%s%s=%s: not a count", commentRun, k, s)
			}
			*v = n
		}
	}
	if s, ok := kv[commentLimits]; ok {
		l, err := readLimits(s, kv[commentOverLimit], kv[commentScaleFactor])
		if err != nil {
			return err
		}
		m.Run.Limits = l
	}
	m.SourceMap = kv[commentSourceMap]
	m.GeneratedFile = kv[commentGeneratedFile]
	return nil
}

// readLimits reads the comments Limits.comments writes.
func readLimits(limits, over, factor string) (*Limits, error) {
	l := &Limits{}
	if factor != "" {
		f, err := strconv.ParseFloat(factor, 64)
		if err != nil || !(f >= 1 && f <= 10) {
			return nil, fmt.Errorf("%s=%s: want a scale factor from 1 to 10", commentScaleFactor, factor)
		}
		l.ScaleFactor = f
	}
	fields := l.fields()
	find := func(name string) int {
		for i, f := range fields {
			if f.name == name {
				return i
			}
		}
		return -1
	}
	for _, pair := range strings.Split(limits, ",") {
		name, value, _ := strings.Cut(pair, ":")
		i := find(name)
		n, err := strconv.ParseUint(value, 10, 64)
		if i < 0 || err != nil {
			return nil, fmt.Errorf("%s=%s: %q is not NAME:COUNT of a known limit", commentLimits, limits, pair)
		}
		*fields[i].limit = n
	}
	if over != "" {
		for _, name := range strings.Split(over, ",") {
			i := find(name)
			if i < 0 {
				return nil, fmt.Errorf("%s=%s: %q is not a known limit", commentOverLimit, over, name)
			}
			*fields[i].over = true
		}
	}
	return l, nil
}

// classify reads a function's kind from its system_name.
func classify(fn *profile.Function) (StackFrame, error) {
	kind, rest, _ := strings.Cut(fn.SystemName, ":")
	switch FrameKind(kind) {
	case KindJS, KindNative, KindWasm, KindBucket, KindPhase:
		return StackFrame{Kind: FrameKind(kind), Function: fn}, nil
	case KindOpcode:
		op, err := strconv.Atoi(rest)
		if err != nil || op < 0 || op > CallSetup {
			return StackFrame{}, fmt.Errorf("function %q: system_name %q: want op: and an opcode value 0-%d", fn.Name, fn.SystemName, CallSetup)
		}
		if !strings.HasPrefix(fn.Name, OpcodePrefix) {
			return StackFrame{}, fmt.Errorf("function %q: an opcode frame's name starts with %s", fn.Name, OpcodePrefix)
		}
		return StackFrame{Kind: KindOpcode, Function: fn, Opcode: op}, nil
	}
	return StackFrame{}, fmt.Errorf("not a jsprof profile: function %q has system_name %q, want js:, native:, op:, wasm: or bucket:", fn.Name, fn.SystemName)
}

// makePrintable makes every string of p that a report can show printable,
// in place.
func makePrintable(p *profile.Profile) {
	for _, fn := range p.Function {
		fn.Name, fn.SystemName, fn.Filename = printable.String(fn.Name), printable.String(fn.SystemName), printable.String(fn.Filename)
	}
	for i, c := range p.Comments {
		p.Comments[i] = printable.String(c)
	}
	for _, m := range p.Mapping {
		m.File, m.BuildID = printable.String(m.File), printable.String(m.BuildID)
	}
	for _, t := range p.SampleType {
		t.Type, t.Unit = printable.String(t.Type), printable.String(t.Unit)
	}
	for _, s := range p.Sample {
		for _, vs := range s.Label {
			for i, v := range vs {
				vs[i] = printable.String(v)
			}
		}
	}
}
