package report

import (
	"github.com/google/pprof/profile"

	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// stackReader reads the samples' stacks of a profile as the tables and the
// flame graph walk them, leaf first as jsprofile.Profile.Stack does, but
// through a dense table of the profile's functions, each classified once:
// a profile of millions of stacks has tens of millions of frames, and a
// map lookup for each (jsprofile's) made the tables slower than the rest
// of the report together. Each frame also says its function's index in the
// table, so that what is summed per function is found by index, not by
// name.
type stackReader struct {
	funcs []jsprofile.StackFrame // the profile's functions, Line unset
	byID  []int32                // function ID → index in funcs, -1: none (nil: byFn)
	byFn  map[uint64]int32
}

// stackFrame is a frame of a sample: its function's index in
// stackReader.funcs, and the line.
type stackFrame struct {
	fn   int32
	line int64
}

func newStackReader(p *jsprofile.Profile) *stackReader {
	r := &stackReader{funcs: make([]jsprofile.StackFrame, 0, len(p.Function)), byFn: map[uint64]int32{}}
	var maxID uint64
	for _, fn := range p.Function {
		maxID = max(maxID, fn.ID)
	}
	if maxID <= 4*uint64(len(p.Function))+1024 { // IDs are small in practice
		r.byID = make([]int32, maxID+1)
		for i := range r.byID {
			r.byID[i] = -1
		}
	}
	var buf []jsprofile.StackFrame
	for _, fn := range p.Function {
		// The function's kind as jsprofile reads it: the stack of a sample
		// of that one function.
		buf = p.Stack(&profile.Sample{Location: []*profile.Location{{Line: []profile.Line{{Function: fn}}}}}, buf)
		i := int32(len(r.funcs))
		r.funcs = append(r.funcs, buf[0])
		if r.byID != nil {
			r.byID[fn.ID] = i
		} else {
			r.byFn[fn.ID] = i
		}
	}
	return r
}

// index is the index of a function in funcs.
func (r *stackReader) index(fn *profile.Function) int32 {
	if r.byID != nil {
		return r.byID[fn.ID]
	}
	return r.byFn[fn.ID]
}

// stack appends s's frames to buf[:0], leaf first: locations leaf first,
// and within a location its lines innermost (inlined) first.
func (r *stackReader) stack(s *profile.Sample, buf []stackFrame) []stackFrame {
	buf = buf[:0]
	for _, loc := range s.Location {
		for _, ln := range loc.Line {
			if ln.Function != nil {
				buf = append(buf, stackFrame{fn: r.index(ln.Function), line: ln.Line})
			}
		}
	}
	return buf
}
