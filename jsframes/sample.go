package jsframes

import (
	"sync"

	"github.com/google/pprof/profile"

	"github.com/jsprof/jsprof/jsframes/meter"
	"github.com/jsprof/jsprof/wasmcore"
)

// Sampler turns the meter's samples into layered stacks (docs/profile-format.md):
// Wasm frames from the entry point; at each interpreter activation, in
// place of the interpreter's own frame, the JS frame at its pc's line and
// the opcode frame; then the Wasm frames the handler runs. It is safe for
// concurrent use: a running guest adds samples while an HTTP handler reads.
type Sampler struct {
	dispatch uint32 // the interpreter's function index, in the original module
	sym      *wasmcore.Symbolizer
	ops      OpcodeNamer
	id       Identity

	mu      sync.Mutex
	main    *ProfileBuilder
	windows map[*ProfileBuilder]struct{}
	stack   []Frame
	total   uint64
}

// TruncatedStack roots a sampled stack whose outer Wasm frames are unknown.
const TruncatedStack = "(truncated Wasm stack)"

// isEntryPoint tells the exports a host calls: a complete stack starts at
// one.
func isEntryPoint(name string) bool {
	switch name {
	case "_start", "shopify_main", "_initialize", "initialize-runtime", "initialize_runtime":
		return true
	}
	return false
}

// NewSampler prepares a sampler; sym names Wasm functions of the original
// module, dispatch is the interpreter's index in it.
func NewSampler(meta ProfileMeta, dispatch uint32, sym *wasmcore.Symbolizer, ops OpcodeNamer, id Identity) *Sampler {
	if id == nil {
		id = AddressIdentity{}
	}
	meta.Mode = "sample"
	return &Sampler{dispatch: dispatch, sym: sym, ops: ops, id: id, main: NewProfileBuilder(meta), windows: map[*ProfileBuilder]struct{}{}}
}

// Add records one sample; it fits meter.SampleFunc.
func (s *Sampler) Add(weight uint64, wasm []meter.WasmFrame, js []meter.Activation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total += weight
	st := s.stack[:0]
	// wazero's stack walk sometimes stops short of the entry point (it
	// unwinds by frame pointers). The shadow stack still knows every JS
	// activation: those the walk missed go at the root, under a frame that
	// says the Wasm frames between them are unknown.
	seen := 0
	for _, w := range wasm {
		if !w.Injected && w.Index == s.dispatch {
			seen++
		}
	}
	next := 0
	if seen < len(js) || len(wasm) == 0 || !isEntryPoint(s.wasmFrame(wasm[0]).Name) {
		st = append(st, BucketFrame(TruncatedStack))
		for ; next < len(js)-seen; next++ {
			st = append(st, s.jsFrames(js[next])...)
		}
	}
	for _, w := range wasm {
		if w.Injected {
			continue
		}
		if w.Index == s.dispatch && next < len(js) {
			a := js[next]
			next++
			st = append(st, s.jsFrames(a)...)
			continue
		}
		st = append(st, s.wasmFrame(w))
	}
	s.stack = st
	s.main.Add(st, int64(weight), 0, 0)
	for b := range s.windows {
		b.Add(st, int64(weight), 0, 0)
	}
}

func (s *Sampler) jsFrames(a meter.Activation) []Frame {
	switch {
	case a.Entering:
		return []Frame{OpcodeFrame(CallSetupName, meter.CallSetup)}
	case a.Function == nil:
		return []Frame{BucketFrame(meter.BucketNative)}
	}
	f := *a.Function
	name, file, line := s.id.Function(f)
	l := s.id.Line(f, a.PC)
	if l == 0 {
		l = line
	}
	opcode := -1
	if int(a.PC) < len(f.Code) {
		opcode = int(f.Code[a.PC])
	}
	return []Frame{JSFrame(name, file, line, l, f.Address, a.PC), OpcodeFrame(s.ops.Name(opcode), opcode)}
}

func (s *Sampler) wasmFrame(w meter.WasmFrame) Frame {
	return WasmFrame(w.Index, s.sym.FuncName(w.Index), "", 0, w.Offset)
}

// Total is the sum of the samples' weights so far.
func (s *Sampler) Total() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// Profile returns the profile of every sample so far, described by meta
// (its mode set to sample).
func (s *Sampler) Profile(meta ProfileMeta) (*profile.Profile, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.main.Profile()
	if err != nil {
		return nil, err
	}
	p = p.Copy()
	meta.Mode = "sample"
	meta.SampleEvery = uint64(p.Period)
	p.Comments = meta.comments()
	p.TimeNanos, p.DurationNanos = meta.Start.UnixNano(), meta.Duration.Nanoseconds()
	return p, nil
}

// Window starts collecting the samples from now on into a profile of their
// own; stop ends it and returns that profile.
func (s *Sampler) Window(meta ProfileMeta) (stop func() (*profile.Profile, error)) {
	meta.Mode = "sample"
	b := NewProfileBuilder(meta)
	s.mu.Lock()
	s.windows[b] = struct{}{}
	s.mu.Unlock()
	return func() (*profile.Profile, error) {
		s.mu.Lock()
		delete(s.windows, b)
		s.mu.Unlock()
		return b.Profile()
	}
}
