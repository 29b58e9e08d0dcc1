package jsprofile

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/google/pprof/profile"
)

// InputLabel is the sample label a merged profile names each sample's
// input by (Merge): pprof -tagfocus=input=cart.json keeps one input's.
const InputLabel = "input"

// Merge merges profiles of one module run on several inputs, the
// profile of inputs[i] being ps[i], into one: each sample labelled with
// its input (InputLabel), identical stacks of one input merged. Its
// Meta is the first profile's, with the total (the merged samples' sum
// in exact mode), the duration and the self-check summed, the exit code
// the first that is not 0, and what only one run has — a trap, a throw,
// the sizes and limits of a function's input and output — left out: the
// per-input profiles and their report have those.
func Merge(ps []*profile.Profile, inputs []string) (*profile.Profile, error) {
	if len(ps) == 0 || len(ps) != len(inputs) {
		return nil, fmt.Errorf("merging %d profiles of %d inputs", len(ps), len(inputs))
	}
	var m Merger
	for i, p := range ps {
		if err := m.Add(p, inputs[i]); err != nil {
			return nil, err
		}
	}
	return m.Profile()
}

// A Merger merges profiles of one module run on several inputs, given in
// the inputs' order, as Merge does, one at a time as each run ends: it
// holds what it has merged, never the profiles given. What it has merged
// is the one table of the functions, mappings and locations every input
// shares (bounded by the program, not the inputs), each distinct stack
// once, and of each input's samples their values, their stack and one
// label map the input's samples share: a sample costs about a seventh of
// what it did in pprof's merge, which gave each its own label map and
// stack (docs/reliability.md, N6). Its zero value is ready to use.
type Merger struct {
	meta Meta
	n    int
	p    *profile.Profile // the header, and the samples merged so far

	functions map[functionKey]*profile.Function
	mappings  map[mappingKey]*profile.Mapping
	locations map[locationKey]*profile.Location
	stacks    map[string][]*profile.Location // by their locations' IDs

	// Ended's: the first input not merged yet, the profiles, as written,
	// of the inputs that ended before one before them, the inputs merged,
	// and the first error.
	next    int
	waiting map[int][]byte
	inputs  []string
	err     error
}

// Ended says that the run of inputs[i] has ended with the profile raw
// (as Write writes it; nil: none), in any order: each profile is merged
// (Add) once the runs of the inputs before it have ended, kept as raw
// until then. The first error is Profile's.
func (m *Merger) Ended(i int, raw []byte, inputs []string) {
	if m.waiting == nil {
		m.waiting = map[int][]byte{}
	}
	m.waiting[i] = raw
	for ; m.next < len(inputs); m.next++ {
		b, ok := m.waiting[m.next]
		if !ok {
			return
		}
		delete(m.waiting, m.next)
		if b == nil || m.err != nil {
			continue
		}
		p, err := profile.ParseData(b)
		if err != nil {
			err = fmt.Errorf("the profile of %s: %w", inputs[m.next], err)
		} else {
			err = m.Add(p, inputs[m.next])
		}
		if err != nil {
			m.err = err
			continue
		}
		m.inputs = append(m.inputs, inputs[m.next])
	}
}

// Inputs are the inputs whose profiles Ended merged, in order.
func (m *Merger) Inputs() []string { return m.inputs }

// functionKey, mappingKey and locationKey say when two profiles' entries
// are one, as pprof's merge says it.
type functionKey struct {
	startLine                  int64
	name, systemName, filename string
}

type mappingKey struct {
	size, offset  uint64
	buildIDOrFile string
}

type locationKey struct {
	mapping  *profile.Mapping
	addr     uint64
	isFolded bool
	lines    string // each line's function (merged), line and column
}

// Add merges p, the profile of input (the next in the inputs' order).
func (m *Merger) Add(p *profile.Profile, input string) error {
	jp, err := Read(p)
	if err != nil {
		return fmt.Errorf("the profile of %s: %w", input, err)
	}
	meta := jp.Meta
	if m.n == 0 {
		m.meta = meta
		m.meta.TotalInstructions, m.meta.Duration, m.meta.Checked, m.meta.CheckFailures = 0, 0, 0, nil
		code := 0
		m.meta.ExitCode = &code
		m.p = &profile.Profile{SampleType: p.SampleType, DefaultSampleType: p.DefaultSampleType, PeriodType: p.PeriodType,
			DropFrames: p.DropFrames, KeepFrames: p.KeepFrames, DocURL: p.DocURL, TimeNanos: p.TimeNanos}
		m.functions, m.mappings = map[functionKey]*profile.Function{}, map[mappingKey]*profile.Mapping{}
		m.locations, m.stacks = map[locationKey]*profile.Location{}, map[string][]*profile.Location{}
	} else if meta.Mode != m.meta.Mode || meta.CostModel != m.meta.CostModel {
		return fmt.Errorf("the profile of %s: %s mode, %s cost, the first's %s, %s", input, meta.Mode, meta.CostModel, m.meta.Mode, m.meta.CostModel)
	} else if !sameValues(m.p.SampleType, p.SampleType) {
		return fmt.Errorf("the profile of %s: its values are not the first's", input)
	}
	m.n++
	if exports := strings.Split(m.meta.Run.Export, ", "); !slices.Contains(exports, meta.Run.Export) {
		m.meta.Run.Export += ", " + meta.Run.Export // inputs run through their own exports: each named
	}
	m.meta.TotalInstructions += meta.TotalInstructions
	m.meta.Duration += meta.Duration
	m.meta.Checked += meta.Checked
	m.meta.CheckFailures = append(m.meta.CheckFailures, meta.CheckFailures...)
	if meta.ExitCode != nil && *meta.ExitCode != 0 && *m.meta.ExitCode == 0 {
		*m.meta.ExitCode = *meta.ExitCode
	}
	if p.TimeNanos != 0 && (m.p.TimeNanos == 0 || p.TimeNanos < m.p.TimeNanos) {
		m.p.TimeNanos = p.TimeNanos
	}
	m.p.Period = max(m.p.Period, p.Period)
	label := map[string][]string{InputLabel: {input}} // shared by the input's samples
	// The input's samples of one stack and labels are one sample.
	own := map[string]*profile.Sample{}
	var id []byte
	for _, s := range p.Sample {
		if isZero(s) {
			continue
		}
		stack, key := m.stack(s.Location, id[:0])
		id = key
		labels := label
		if len(s.Label) > 0 {
			labels = maps.Clone(s.Label)
			labels[InputLabel] = []string{input}
			key = fmt.Appendf(key, "%v%v", labels, s.NumLabel)
		} else if len(s.NumLabel) > 0 {
			key = fmt.Appendf(key, "%v", s.NumLabel)
		}
		if prev := own[string(key)]; prev != nil {
			for i, v := range s.Value {
				prev.Value[i] += v
			}
			continue
		}
		ns := &profile.Sample{Location: stack, Value: slices.Clone(s.Value), Label: labels, NumLabel: s.NumLabel, NumUnit: s.NumUnit}
		own[string(key)] = ns
		m.p.Sample = append(m.p.Sample, ns)
	}
	return nil
}

// sameValues says whether two profiles' samples have the same values.
func sameValues(a, b []*profile.ValueType) bool {
	return slices.EqualFunc(a, b, func(x, y *profile.ValueType) bool { return x.Type == y.Type && x.Unit == y.Unit })
}

// isZero says whether every value of a sample is 0 (a merge leaves such
// samples out, as pprof's does).
func isZero(s *profile.Sample) bool {
	for _, v := range s.Value {
		if v != 0 {
			return false
		}
	}
	return true
}

// stack is the merged stack of locs, one slice for every sample of that
// stack, and its key (appended to buf): its locations' merged IDs.
func (m *Merger) stack(locs []*profile.Location, buf []byte) ([]*profile.Location, []byte) {
	merged := make([]*profile.Location, len(locs))
	for i, l := range locs {
		merged[i] = m.location(l)
		buf = binary.AppendUvarint(buf, merged[i].ID)
	}
	if s, ok := m.stacks[string(buf)]; ok {
		return s, buf
	}
	m.stacks[string(buf)] = merged
	return merged, buf
}

// location is the merged location that is l.
func (m *Merger) location(l *profile.Location) *profile.Location {
	key := locationKey{mapping: m.mapping(l.Mapping), addr: l.Address, isFolded: l.IsFolded}
	if l.Mapping != nil {
		key.addr -= l.Mapping.Start // as pprof does, for address randomization
	}
	var lines strings.Builder
	merged := make([]profile.Line, len(l.Line))
	for i, ln := range l.Line {
		merged[i] = profile.Line{Function: m.function(ln.Function), Line: ln.Line, Column: ln.Column}
		var id uint64
		if merged[i].Function != nil {
			id = merged[i].Function.ID
		}
		fmt.Fprintf(&lines, "%x|%x|%x|", id, ln.Line, ln.Column)
	}
	key.lines = lines.String()
	return intern(m.locations, key, &m.p.Location, func(id uint64) *profile.Location {
		nl := &profile.Location{ID: id, Mapping: key.mapping, Address: l.Address, Line: merged, IsFolded: l.IsFolded}
		if key.mapping != nil && l.Mapping != nil {
			nl.Address = key.addr + key.mapping.Start
		}
		return nl
	})
}

// intern is the merged entry of key in byKey, else a new one (made with
// the next ID of all) added to both.
func intern[K comparable, V any](byKey map[K]*V, key K, all *[]*V, made func(id uint64) *V) *V {
	if got := byKey[key]; got != nil {
		return got
	}
	v := made(uint64(len(*all) + 1))
	byKey[key] = v
	*all = append(*all, v)
	return v
}

// function is the merged function that is f (nil for nil).
func (m *Merger) function(f *profile.Function) *profile.Function {
	if f == nil {
		return nil
	}
	key := functionKey{f.StartLine, f.Name, f.SystemName, f.Filename}
	return intern(m.functions, key, &m.p.Function, func(id uint64) *profile.Function {
		return &profile.Function{ID: id, Name: f.Name, SystemName: f.SystemName, Filename: f.Filename, StartLine: f.StartLine}
	})
}

// mapping is the merged mapping that is mp (nil for nil).
func (m *Merger) mapping(mp *profile.Mapping) *profile.Mapping {
	if mp == nil {
		return nil
	}
	// As pprof: the size rounded up to 4 KiB, the build ID, else the file.
	key := mappingKey{size: (mp.Limit - mp.Start + 0xfff) &^ 0xfff, offset: mp.Offset, buildIDOrFile: cmp.Or(mp.BuildID, mp.File)}
	return intern(m.mappings, key, &m.p.Mapping, func(id uint64) *profile.Mapping {
		nm := *mp
		nm.ID = id
		return &nm
	})
}

// ErrNothingMerged is Profile's error when no profile was added.
var ErrNothingMerged = errors.New("merging no profile")

// Profile is the profiles added, merged; ErrNothingMerged when none was,
// Ended's first error when it had one. The
// Merger is spent.
func (m *Merger) Profile() (*profile.Profile, error) {
	if m.err != nil {
		return nil, m.err
	}
	if m.n == 0 {
		return nil, ErrNothingMerged
	}
	meta := m.meta
	meta.Trap, meta.Throw = "", nil
	meta.Run = RunInfo{Export: meta.Run.Export, Provider: meta.Run.Provider, Codec: meta.Run.Codec}
	merged := m.p
	merged.Comments = meta.comments()
	merged.DurationNanos = int64(meta.Duration / time.Nanosecond)
	m.functions, m.mappings, m.locations, m.stacks = nil, nil, nil, nil
	if _, err := Read(merged); err != nil {
		return nil, errors.Join(errors.New("the merged profile does not read back"), err)
	}
	return merged, nil
}
