package report

import (
	"github.com/google/pprof/profile"

	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// StackReader reads the samples' stacks of a profile as the tables and the
// flame graph walk them, leaf first as jsprofile.Profile.Stack does, but
// through a dense table of the profile's functions, each classified once:
// a profile of millions of stacks has tens of millions of frames, and a
// map lookup for each (jsprofile's) made the tables slower than the rest
// of the report together. Each frame also says its function's index in the
// table, so that what is summed per function is found by index, not by
// name.
type StackReader struct {
	// Funcs are the profile's functions, each as jsprofile reads it
	// (Line unset): what a Frame's Func indexes.
	Funcs []jsprofile.StackFrame
	byID  []int32 // function ID → index in Funcs, -1: none (nil: byFn)
	byFn  map[uint64]int32
	// whole is the index of the first part of each function a source
	// map split by original file (jsprofile.JSName.Part); nil: none is.
	whole []int32
}

// Whole is the index in Funcs of the JS function that function i is a
// part of: the first of the pprof functions a source map made of one JS
// function whose lines are in several files (a bundle's module code,
// named after its first mapped position); i itself for any other.
func (r *StackReader) Whole(i int32) int32 {
	if r.whole == nil {
		return i
	}
	return r.whole[i]
}

// findParts fills whole when the profile has split functions.
func (r *StackReader) findParts() {
	first := map[string]int32{}
	var parts []int32
	for i, f := range r.Funcs {
		if f.Kind != jsprofile.KindJS || !jsprofile.MapNamed(f.Function.SystemName) {
			continue // not named after a source map
		}
		if jn, ok := jsprofile.ParseJSName(f.Function.SystemName); ok && jn.Generated != nil {
			if jn.Part > 0 {
				parts = append(parts, int32(i))
			} else {
				first[jn.Whole()] = int32(i)
			}
		}
	}
	if len(parts) == 0 {
		return
	}
	r.whole = make([]int32, len(r.Funcs))
	for i := range r.whole {
		r.whole[i] = int32(i)
	}
	for _, i := range parts {
		jn, _ := jsprofile.ParseJSName(r.Funcs[i].Function.SystemName)
		if f, ok := first[jn.Whole()]; ok {
			r.whole[i] = f
		}
	}
}

// Frame is a frame of a sample: its function's index in
// StackReader.Funcs, and the line.
type Frame struct {
	Func int32
	Line int64
}

// NewStackReader classifies p's functions, once each.
func NewStackReader(p *jsprofile.Profile) *StackReader {
	r := &StackReader{Funcs: make([]jsprofile.StackFrame, 0, len(p.Function)), byFn: map[uint64]int32{}}
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
		i := int32(len(r.Funcs))
		r.Funcs = append(r.Funcs, buf[0])
		if r.byID != nil {
			r.byID[fn.ID] = i
		} else {
			r.byFn[fn.ID] = i
		}
	}
	r.findParts()
	return r
}

// index is the index of a function in Funcs.
func (r *StackReader) index(fn *profile.Function) int32 {
	if r.byID != nil {
		return r.byID[fn.ID]
	}
	return r.byFn[fn.ID]
}

// Stack appends s's frames to buf[:0], leaf first: locations leaf first,
// and within a location its lines innermost (inlined) first.
func (r *StackReader) Stack(s *profile.Sample, buf []Frame) []Frame {
	buf = buf[:0]
	for _, loc := range s.Location {
		for _, ln := range loc.Line {
			if ln.Function != nil {
				buf = append(buf, Frame{Func: r.index(ln.Function), Line: ln.Line})
			}
		}
	}
	return buf
}
