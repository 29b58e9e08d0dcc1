package jsprofile

import (
	"io"

	"github.com/google/pprof/profile"
)

// encodeProfile writes p in pprof's protobuf encoding, the bytes
// profile.(*Profile).WriteUncompressed writes (the same string table, in
// the same order, the same fields), streamed to w.
//
// pprof's own encoder serializes the whole profile into one buffer and
// gives each sample a copy of its location ids first: 1.5 MB of fresh
// memory for a sampled fib(30)'s 128 kB profile, which cost 7 ms of a run
// on a machine where touching fresh memory costs 3-4 ms per MB, and
// seconds for an exact profile of a million stacks. This one keeps one
// message and a chunk of output at a time, and leaves p untouched (pprof's
// writes its unexported fields under a lock).
func encodeProfile(w io.Writer, p *profile.Profile) error {
	e := &encoder{w: w, index: map[string]int64{}}
	e.collectStrings(p)
	for _, st := range p.SampleType {
		e.valueType(1, st)
	}
	for _, s := range p.Sample {
		e.sample(s)
	}
	for _, m := range p.Mapping {
		e.begin()
		e.uint64Opt(1, m.ID)
		e.uint64Opt(2, m.Start)
		e.uint64Opt(3, m.Limit)
		e.uint64Opt(4, m.Offset)
		e.int64Opt(5, e.index[m.File])
		e.int64Opt(6, e.index[m.BuildID])
		e.boolOpt(7, m.HasFunctions)
		e.boolOpt(8, m.HasFilenames)
		e.boolOpt(9, m.HasLineNumbers)
		e.boolOpt(10, m.HasInlineFrames)
		e.end(3)
	}
	for _, l := range p.Location {
		e.location(l)
	}
	for _, f := range p.Function {
		e.begin()
		e.uint64Opt(1, f.ID)
		e.int64Opt(2, e.index[f.Name])
		e.int64Opt(3, e.index[f.SystemName])
		e.int64Opt(4, e.index[f.Filename])
		e.int64Opt(5, f.StartLine)
		e.end(5)
	}
	for _, s := range e.strings {
		e.out = appendKey(e.out, 6, 2)
		e.out = appendVarint(e.out, uint64(len(s)))
		e.out = append(e.out, s...)
		e.flush(false)
	}
	e.out = appendInt64Opt(e.out, 7, e.index[p.DropFrames])
	e.out = appendInt64Opt(e.out, 8, e.index[p.KeepFrames])
	e.out = appendInt64Opt(e.out, 9, p.TimeNanos)
	e.out = appendInt64Opt(e.out, 10, p.DurationNanos)
	if pt := p.PeriodType; pt != nil && (e.index[pt.Type] != 0 || e.index[pt.Unit] != 0) {
		e.valueType(11, pt)
	}
	e.out = appendInt64Opt(e.out, 12, p.Period)
	comments := make([]int64, len(p.Comments))
	for i, c := range p.Comments {
		comments[i] = e.index[c]
	}
	e.out = appendRepeated(e.out, 13, comments)
	e.out = appendKey(e.out, 14, 0)
	e.out = appendVarint(e.out, uint64(e.index[p.DefaultSampleType]))
	e.out = appendInt64Opt(e.out, 15, e.index[p.DocURL])
	e.flush(true)
	return e.err
}

// flushAt is how much output is gathered before it is written.
const flushAt = 64 << 10

type encoder struct {
	w   io.Writer
	err error
	out []byte // output not yet written
	msg []byte // the body of the message being encoded
	sub []byte // the body of a message within it (a location's line)
	ids []uint64
	// the string table, in pprof's order, and each string's index
	strings []string
	index   map[string]int64
}

// collectStrings numbers p's strings in the order pprof's preEncode does,
// so that the table, and with it every index, is the same.
func (e *encoder) collectStrings(p *profile.Profile) {
	add := func(s string) {
		if _, ok := e.index[s]; !ok {
			e.index[s] = int64(len(e.strings))
			e.strings = append(e.strings, s)
		}
	}
	add("")
	for _, st := range p.SampleType {
		add(st.Type)
		add(st.Unit)
	}
	for _, s := range p.Sample {
		for _, k := range sortedKeys(s.Label) {
			for _, v := range s.Label[k] {
				add(k)
				add(v)
			}
		}
		for _, k := range sortedKeys(s.NumLabel) {
			add(k)
			if units := s.NumUnit[k]; len(units) != 0 {
				for i := range s.NumLabel[k] {
					add(units[i])
				}
			}
		}
	}
	for _, m := range p.Mapping {
		add(m.File)
		add(m.BuildID)
	}
	for _, f := range p.Function {
		add(f.Name)
		add(f.SystemName)
		add(f.Filename)
	}
	add(p.DropFrames)
	add(p.KeepFrames)
	if pt := p.PeriodType; pt != nil {
		add(pt.Type)
		add(pt.Unit)
	}
	for _, c := range p.Comments {
		add(c)
	}
	add(p.DefaultSampleType)
	add(p.DocURL)
}

func (e *encoder) valueType(field int, vt *profile.ValueType) {
	e.begin()
	e.int64Opt(1, e.index[vt.Type])
	e.int64Opt(2, e.index[vt.Unit])
	e.end(field)
}

func (e *encoder) sample(s *profile.Sample) {
	e.begin()
	e.ids = e.ids[:0]
	for _, l := range s.Location {
		e.ids = append(e.ids, l.ID)
	}
	e.msg = appendRepeated(e.msg, 1, e.ids)
	e.msg = appendRepeated(e.msg, 2, s.Value)
	label := func(key, str, num, unit int64) {
		e.sub = appendInt64Opt(e.sub[:0], 1, key)
		e.sub = appendInt64Opt(e.sub, 2, str)
		e.sub = appendInt64Opt(e.sub, 3, num)
		e.sub = appendInt64Opt(e.sub, 4, unit)
		e.msg = appendBytes(e.msg, 3, e.sub)
	}
	for _, k := range sortedKeys(s.Label) {
		for _, v := range s.Label[k] {
			label(e.index[k], e.index[v], 0, 0)
		}
	}
	for _, k := range sortedKeys(s.NumLabel) {
		units := s.NumUnit[k]
		for i, v := range s.NumLabel[k] {
			var unit int64
			if len(units) != 0 {
				unit = e.index[units[i]]
			}
			label(e.index[k], 0, v, unit)
		}
	}
	e.end(2)
}

func (e *encoder) location(l *profile.Location) {
	e.begin()
	e.uint64Opt(1, l.ID)
	if l.Mapping != nil {
		e.uint64Opt(2, l.Mapping.ID)
	}
	e.uint64Opt(3, l.Address)
	for _, ln := range l.Line {
		e.sub = e.sub[:0]
		if ln.Function != nil {
			e.sub = appendUint64Opt(e.sub, 1, ln.Function.ID)
		}
		e.sub = appendInt64Opt(e.sub, 2, ln.Line)
		e.sub = appendInt64Opt(e.sub, 3, ln.Column)
		e.msg = appendBytes(e.msg, 4, e.sub)
	}
	e.boolOpt(5, l.IsFolded)
	e.end(4)
}

// begin starts a message of the profile; end writes it as field.
func (e *encoder) begin() { e.msg = e.msg[:0] }

func (e *encoder) end(field int) {
	e.out = appendBytes(e.out, field, e.msg)
	e.flush(false)
}

func (e *encoder) uint64Opt(field int, x uint64) { e.msg = appendUint64Opt(e.msg, field, x) }
func (e *encoder) int64Opt(field int, x int64)   { e.msg = appendInt64Opt(e.msg, field, x) }
func (e *encoder) boolOpt(field int, x bool) {
	if x {
		e.msg = appendUint64Opt(e.msg, field, 1)
	}
}

// flush writes the output gathered: past flushAt, or all of it at the end.
func (e *encoder) flush(final bool) {
	if e.err != nil {
		e.out = e.out[:0]
		return
	}
	if len(e.out) >= flushAt || (final && len(e.out) > 0) {
		_, e.err = e.w.Write(e.out)
		e.out = e.out[:0]
	}
}

func appendVarint(b []byte, x uint64) []byte {
	for x >= 0x80 {
		b = append(b, byte(x)|0x80)
		x >>= 7
	}
	return append(b, byte(x))
}

func appendKey(b []byte, field, wireType int) []byte {
	return appendVarint(b, uint64(field)<<3|uint64(wireType))
}

func appendBytes(b []byte, field int, body []byte) []byte {
	b = appendKey(b, field, 2)
	b = appendVarint(b, uint64(len(body)))
	return append(b, body...)
}

func appendUint64Opt(b []byte, field int, x uint64) []byte {
	if x == 0 {
		return b
	}
	return appendVarint(appendKey(b, field, 0), x)
}

func appendInt64Opt(b []byte, field int, x int64) []byte { return appendUint64Opt(b, field, uint64(x)) }

// appendRepeated writes a repeated integer field as pprof does: packed
// when it has more than two values, else one key per value.
func appendRepeated[T uint64 | int64](b []byte, field int, xs []T) []byte {
	if len(xs) <= 2 {
		for _, x := range xs {
			b = appendVarint(appendKey(b, field, 0), uint64(x))
		}
		return b
	}
	size := 0
	for _, x := range xs {
		size += varintSize(uint64(x))
	}
	b = appendKey(b, field, 2)
	b = appendVarint(b, uint64(size))
	for _, x := range xs {
		b = appendVarint(b, uint64(x))
	}
	return b
}

func varintSize(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}
