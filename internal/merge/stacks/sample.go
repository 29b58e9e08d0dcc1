package stacks

import (
	"encoding/binary"
	"strconv"
	"strings"
	"sync"

	"github.com/google/pprof/profile"

	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/wasmcore"
)

// isEntryPoint tells the exports a host calls: a complete stack starts at
// one.
func isEntryPoint(name string) bool {
	// wasi-libc names a command module's export wrappers so
	name = strings.TrimSuffix(name, ".command_export")
	switch name {
	case "_start", "shopify_main", "_initialize", "initialize-runtime", "initialize_runtime":
		return true
	}
	return false
}

// Sampler turns the meter's samples into layered stacks (docs/profile-format.md):
// Wasm frames from the entry point; at each interpreter activation, in
// place of the interpreter's own frame, the JS frame at its pc's line and
// the opcode frame; then the Wasm frames the handler runs.
//
// Samples are kept raw (function addresses and pcs) and named when a
// profile is built, since names are best once every function of the run is
// known. It is safe for concurrent use: a running guest adds samples while
// an HTTP handler reads.
type Sampler struct {
	dispatch uint32 // the interpreter's function index, in the original module
	sym      *wasmcore.Symbolizer
	ops      OpcodeNamer
	// cfunc is js_call_c_function's index when hasCFunc (SetNatives);
	// wasmNames name Wasm functions the module does not.
	cfunc     uint32
	hasCFunc  bool
	wasmNames map[uint32]string

	mu sync.Mutex
	// taken counts the samples Add took (not AddBucket's); sawJS: one
	// of the current window had an interpreter activation.
	taken int
	sawJS bool
	// cClass is the class id of C function objects, learned from the
	// activations js_call_c_function confirmed (cClassSeen; cClassMixed
	// if they disagreed): it tells a native activation sampled before it
	// reached js_call_c_function (in the interpreter's entry).
	cClass                  uint16
	cClassSeen, cClassMixed bool
	log                     *stackLog
	main                    *sampleWindow // every sample
	buf                     []rawFrame
	// names are the buckets' and other modules' functions' names that
	// frames hold by number (rawFrame.name), nameID numbers them.
	names  []string
	nameID map[string]uint32
	// lastName and lastNameID: the last name numbered, as a dynamic
	// module's samples all have its entry point's frame.
	lastName   string
	lastNameID uint32
	// root is the last sample's outermost Wasm frame, rootIsEntry whether
	// it is an entry point: naming it for every sample cost a fifth of Add.
	root                  costs.WasmFrame
	rootSeen, rootIsEntry bool
}

// rawFrame is a frame before naming. Every sample compares its frames
// with the previous sample's and hashes those that differ, so a frame is
// a few words and no strings: names are numbers (Sampler.names).
type rawFrame struct {
	kind     rawKind
	entering bool                // JS: call setup of an activation not yet identified
	direct   bool                // maybe-native: fn is the JS caller the native's call site is in (jsCaller)
	class    uint16              // maybe-native: its function object's class id
	index    uint32              // Wasm: function index; native: table index
	pc       uint32              // JS: pc in the function's bytecode; native: its magic
	callerPC uint32              // native: the pc of its JS caller's call (fn is the caller's), which names an undeclared one
	name     uint32              // bucket: its name; Wasm: another module's function's name (0 for the profiled module's)
	offset   uint64              // Wasm: code offset
	fn       *costs.FunctionCost // JS: the function (identity fields)
}

type rawKind uint8

const (
	rawWasm rawKind = iota
	rawJS
	rawNative
	rawBucket
	// rawCalled: an activation of a function that is neither bytecode nor
	// C (a host function), named at build time after what its caller's
	// call site called (fn and pc are the caller's), else the native
	// bucket.
	rawCalled
	// rawMaybeNative: an activation that may be a C function's, sampled
	// before js_call_c_function confirmed the class of C function objects
	// (Sampler.isNative): a native's frame at build time if its class
	// (class) is the one confirmed by then, as exact mode names it, else
	// a rawCalled frame (fn and callerPC are the caller's, as jsRaw finds
	// it; index and pc the native's table index and magic).
	rawMaybeNative
	// rawOutside: the root marker of a sample with no interpreter
	// activation, pc 0 before the window's first activation (engine
	// start-up), 1 after it; it becomes the phase frame.
	rawOutside
)

// truncatedName is BucketTruncated's number, the first name a sampler has.
const truncatedName = 1

// stackLog holds the samples in the order taken, each stack as the number
// of frames it shares with the previous one and the ids of its others,
// frames kept once each. A recursive program's samples are deep and differ
// near their leaves: most of a stack costs a comparison, and none of it is
// copied or merged while the guest runs; building a profile replays the
// log. Past foldEvery samples, the log is folded into its distinct stacks,
// so that a long run (a guest served to a continuous profiler for hours)
// keeps memory in proportion to its distinct stacks, not its samples.
type stackLog struct {
	frames  []rawFrame // by id
	frameID map[rawFrame]uint32
	// recent holds ids of frames by a cheap hash (recentSlot), checked
	// before frameID: a deep recursion's samples part near their root
	// (wazero's walk keeps the innermost frames), so most of a sample's
	// frames are not shared with the previous one, yet were seen lately.
	recent  [recentSize]recentFrame
	samples []loggedSample
	ids     []uint32 // the frames each sample does not share, sample after sample
	prev    []rawFrame
	total   uint64

	// base is the stack the log's first sample shares frames with: the
	// last folded sample's.
	base []uint32
	// folded holds the distinct stacks of the samples folded so far, in
	// the order first taken (each stack's frame ids, 4 bytes each, as a
	// string), foldedAt finds them; nFolded samples were folded.
	folded   []string
	foldedAt map[string]int
	nFolded  int
	// windows are the open profiles: main (every sample) and those of
	// Sampler.Window.
	windows map[*sampleWindow]struct{}
}

const (
	recentBits = 10
	recentSize = 1 << recentBits
)

type recentFrame struct {
	frame rawFrame
	id    uint32
	set   bool
}

// recentSlot is f's slot in stackLog.recent. The mix leaves a JS frame's
// function out: two functions' frames at one pc share a slot, and the
// comparison tells them apart.
func recentSlot(f rawFrame) uint32 {
	h := (uint64(f.index)<<32 | uint64(f.pc)) ^ f.offset<<8 ^ uint64(f.kind)<<3 ^ uint64(f.name)<<40
	return uint32((h * 0x9e3779b97f4a7c15) >> (64 - recentBits))
}

// sampleWindow is a profile of the samples from the first'th on: the
// folded ones by folded stack, the others still in the log.
type sampleWindow struct {
	first  int
	folded map[int]uint64
}

// foldEvery is how many samples the log holds before it is folded: 16,384
// samples of 150 frames are a few megabytes.
const foldEvery = 1 << 14

type loggedSample struct {
	weight uint64
	shared uint32 // frames in common with the previous sample, from the root
	end    uint32 // ids[the previous sample's end:end] are the others
}

func newStackLog() *stackLog {
	return &stackLog{frameID: map[rawFrame]uint32{}, foldedAt: map[string]int{}, windows: map[*sampleWindow]struct{}{}}
}

// add logs a sample of stack (outermost frame first).
func (l *stackLog) add(stack []rawFrame, weight uint64) {
	if len(l.samples) >= foldEvery {
		l.fold()
	}
	shared := 0
	for shared < len(stack) && shared < len(l.prev) && stack[shared] == l.prev[shared] {
		shared++
	}
	for _, f := range stack[shared:] {
		r := &l.recent[recentSlot(f)]
		if !r.set || r.frame != f {
			id, ok := l.frameID[f]
			if !ok {
				id = uint32(len(l.frames))
				l.frames = append(l.frames, f)
				l.frameID[f] = id
			}
			*r = recentFrame{frame: f, id: id, set: true}
		}
		l.ids = append(l.ids, r.id)
	}
	l.samples = append(l.samples, loggedSample{weight: weight, shared: uint32(shared), end: uint32(len(l.ids))})
	l.prev = append(l.prev[:0], stack...)
	l.total += weight
}

// replay calls f with every logged sample: its index among all samples,
// its weight and its stack's frame ids, outermost first (valid during the
// call).
func (l *stackLog) replay(f func(i int, weight uint64, stack []uint32)) {
	stack := append([]uint32(nil), l.base...)
	start := uint32(0)
	for i, s := range l.samples {
		stack = append(stack[:s.shared], l.ids[start:s.end]...)
		start = s.end
		f(l.nFolded+i, s.weight, stack)
	}
}

// fold moves the logged samples into the folded stacks and the open
// windows' weights, and empties the log.
func (l *stackLog) fold() {
	var key []byte
	var last []uint32
	l.replay(func(i int, weight uint64, stack []uint32) {
		key = key[:0]
		for _, id := range stack {
			key = binary.LittleEndian.AppendUint32(key, id)
		}
		at, ok := l.foldedAt[string(key)]
		if !ok {
			at = len(l.folded)
			l.folded = append(l.folded, string(key))
			l.foldedAt[l.folded[at]] = at
		}
		for w := range l.windows {
			if i >= w.first {
				w.folded[at] += weight
			}
		}
		last = stack
	})
	l.base = append(l.base[:0], last...)
	l.nFolded += len(l.samples)
	l.samples, l.ids = l.samples[:0], l.ids[:0]
}

// window opens a profile of the samples from now on.
func (l *stackLog) window() *sampleWindow {
	w := &sampleWindow{first: l.nFolded + len(l.samples), folded: map[int]uint64{}}
	l.windows[w] = struct{}{}
	return w
}

// each calls f with each stack of w's samples and its weight: the folded
// ones in the order first taken, then the logged ones.
func (l *stackLog) each(w *sampleWindow, f func(weight uint64, stack []uint32)) {
	var stack []uint32
	for at, key := range l.folded {
		if weight := w.folded[at]; weight > 0 {
			stack = stack[:0]
			for k := 0; k+4 <= len(key); k += 4 {
				stack = append(stack, binary.LittleEndian.Uint32([]byte(key[k:k+4])))
			}
			f(weight, stack)
		}
	}
	l.replay(func(i int, weight uint64, stack []uint32) {
		if i >= w.first {
			f(weight, stack)
		}
	})
}

// NewSampler prepares a sampler; sym names Wasm functions of the original
// module, dispatch is the interpreter's index in it.
func NewSampler(dispatch uint32, sym *wasmcore.Symbolizer, ops OpcodeNamer) *Sampler {
	log := newStackLog()
	return &Sampler{dispatch: dispatch, sym: sym, ops: ops, log: log, main: log.window(),
		names: []string{"", jsprofile.BucketTruncated}, nameID: map[string]uint32{jsprofile.BucketTruncated: truncatedName}}
}

// nameNumber is name's number in s.names, given on first sight.
func (s *Sampler) nameNumber(name string) uint32 {
	if s.lastNameID != 0 && name == s.lastName {
		return s.lastNameID
	}
	id, ok := s.nameID[name]
	if !ok {
		id = uint32(len(s.names))
		s.names = append(s.names, name)
		s.nameID[name] = id
	}
	s.lastName, s.lastNameID = name, id
	return id
}

// SetNatives makes native activations frames of their own: cfunc is
// js_call_c_function's index in the original module (an activation whose
// next Wasm frame it is calls the native its function object holds), and
// wasmNames name the Wasm functions the module does not name (a stripped
// build's natives, "JSON.stringify (native)"); a name the module has is
// kept.
func (s *Sampler) SetNatives(cfunc uint32, wasmNames map[uint32]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfunc, s.hasCFunc, s.wasmNames = cfunc, true, wasmNames
	s.rootSeen = false // its name may be new
}

// SetWasmNames names the Wasm functions the module does not name (the
// interpreter, in a stripped build); a name the module has is kept.
func (s *Sampler) SetWasmNames(names map[uint32]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.wasmNames = names
	s.rootSeen = false // its name may be new
}

// wasmName is a Wasm function's name (WasmNames.Name).
func (s *Sampler) wasmName(index uint32) string {
	return WasmNames{Sym: s.sym, Extra: s.wasmNames}.Name(index)
}

// WasmNames names the Wasm functions of the module that holds the
// interpreter.
type WasmNames struct {
	Sym *wasmcore.Symbolizer
	// Extra name the functions the module does not (the interpreter and
	// the natives of a stripped build); a name the module has is kept.
	Extra map[uint32]string
}

// Name is a Wasm function's name: the module's, else Extra's, else
// wasm-function[N].
func (w WasmNames) Name(index uint32) string {
	name := unnamedWasm(index)
	if w.Sym != nil {
		name = w.Sym.FuncName(index)
	}
	if n := w.Extra[index]; n != "" && name == unnamedWasm(index) {
		return n
	}
	return name
}

// unnamedWasm is what wasmcore.Symbolizer calls a function it has no name
// for.
func unnamedWasm(index uint32) string {
	return "wasm-function[" + strconv.FormatUint(uint64(index), 10) + "]"
}

// Add records one sample; it fits costs.SampleFunc.
func (s *Sampler) Add(weight uint64, wasm []costs.WasmFrame, js []costs.Activation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.buf[:0]
	// A sample outside JS is engine start-up until the first activation,
	// the engine's own work after it (the phases of exact mode).
	if len(js) == 0 {
		outside := uint32(0)
		if s.sawJS {
			outside = 1
		}
		st = append(st, rawFrame{kind: rawOutside, pc: outside})
	} else {
		s.sawJS = true
	}
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
	if seen < len(js) || len(wasm) == 0 || !s.isEntry(wasm[0]) {
		st = append(st, rawFrame{kind: rawBucket, name: truncatedName})
		for ; next < len(js)-seen; next++ {
			st = append(st, jsRaw(js[next], st))
		}
	}
	for i, w := range wasm {
		if w.Injected {
			continue
		}
		if w.Foreign != "" {
			st = append(st, rawFrame{kind: rawWasm, index: w.Index, name: s.nameNumber(w.Foreign)})
			continue
		}
		if w.Index == s.dispatch && next < len(js) {
			if a := js[next]; a.Native && s.isNative(a, wasm[i+1:]) {
				fn, pc := jsCaller(st)
				st = append(st, rawFrame{kind: rawNative, index: a.TableIndex, pc: uint32(uint16(a.Magic)), fn: fn, callerPC: pc})
			} else if a.Native && s.hasCFunc && !s.cClassSeen && a.Function == nil && !a.Entering {
				// too early to tell by class: build tells
				called := jsRaw(a, st)
				fn, _ := jsCaller(st)
				st = append(st, rawFrame{kind: rawMaybeNative, index: a.TableIndex, pc: uint32(uint16(a.Magic)), class: a.Class,
					fn: called.fn, callerPC: called.pc, direct: fn != nil && fn == called.fn})
			} else {
				st = append(st, jsRaw(a, st))
			}
			next++
			continue
		}
		st = append(st, rawFrame{kind: rawWasm, index: w.Index, offset: w.Offset})
	}
	s.buf = st
	s.log.add(st, weight)
	s.taken++
}

// Taken is how many samples Add took so far.
func (s *Sampler) Taken() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.taken
}

// AddBucket adds a sample of weight rooted at the bucket frame name: what
// was counted exactly outside the sampled code (a dynamic module's own
// code, jsprofile.BucketModuleCode), so that the samples and the total
// account for it.
func (s *Sampler) AddBucket(name string, weight uint64) {
	if weight == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log.add([]rawFrame{{kind: rawBucket, name: s.nameNumber(name)}}, weight)
}

// isNative says whether an interpreter activation a, whose Wasm frames
// follow, is a C function's: the next frame of the module is
// js_call_c_function's (the function object the activation was called
// with is then the native's, and its class that of C functions), or a's
// class is the one C function objects were so seen to have.
func (s *Sampler) isNative(a costs.Activation, after []costs.WasmFrame) bool {
	if !s.hasCFunc {
		return false
	}
	for _, w := range after {
		if w.Injected {
			continue
		}
		if w.Foreign == "" && w.Index == s.cfunc {
			if !s.cClassSeen {
				s.cClass, s.cClassSeen = a.Class, true
			} else if a.Class != s.cClass {
				s.cClassMixed = true
			}
			return true
		}
		break
	}
	return s.cClassSeen && !s.cClassMixed && a.Class == s.cClass
}

// isEntry says whether a stack's outermost frame is an entry point's.
func (s *Sampler) isEntry(root costs.WasmFrame) bool {
	if !s.rootSeen || root != s.root {
		name := root.Foreign
		if name == "" {
			name = s.wasmName(root.Index)
		}
		s.root, s.rootSeen, s.rootIsEntry = root, true, isEntryPoint(name)
	}
	return s.rootIsEntry
}

// jsRaw is an activation's frame, on a stack of frames st so far: an
// activation of no bytecode function that has begun (a host function's)
// keeps its caller's function and pc, which name what it is.
func jsRaw(a costs.Activation, st []rawFrame) rawFrame {
	if a.Function == nil && !a.Entering {
		for i := len(st) - 1; i >= 0; i-- {
			if st[i].kind == rawJS && st[i].fn != nil && !st[i].entering {
				return rawFrame{kind: rawCalled, fn: st[i].fn, pc: st[i].pc}
			}
		}
	}
	return rawFrame{kind: rawJS, fn: a.Function, pc: a.PC, entering: a.Entering}
}

// jsCaller is the JS frame that called what comes next on st, with the
// pc of its call: the innermost activation's, if it is a JS function's
// that has begun; nil for a native's (or none).
func jsCaller(st []rawFrame) (*costs.FunctionCost, uint32) {
	for i := len(st) - 1; i >= 0; i-- {
		switch f := st[i]; f.kind {
		case rawJS:
			if f.entering {
				return nil, 0
			}
			return f.fn, f.pc
		case rawNative, rawMaybeNative, rawCalled, rawBucket:
			return nil, 0
		}
	}
	return nil, 0
}

// Total is the sum of the samples' weights so far.
func (s *Sampler) Total() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.total
}

// Profile names every sample so far with id and returns the profile,
// described by meta (its mode set to sample).
func (s *Sampler) Profile(meta jsprofile.Meta, id Identity) (*profile.Profile, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.build(s.main, meta, id)
}

// Window starts collecting the samples from now on into a profile of their
// own; stop ends it and returns that profile, named with id.
func (s *Sampler) Window() (stop func(meta jsprofile.Meta, id Identity) (*profile.Profile, error)) {
	s.mu.Lock()
	w := s.log.window()
	s.sawJS = false
	s.mu.Unlock()
	return func(meta jsprofile.Meta, id Identity) (*profile.Profile, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.log.windows, w)
		return s.build(w, meta, id)
	}
}

// build names w's samples and returns their profile.
func (s *Sampler) build(w *sampleWindow, meta jsprofile.Meta, id Identity) (*profile.Profile, error) {
	if id == nil {
		id = AddressIdentity{}
	}
	meta.Mode = jsprofile.ModeSample
	if meta.TotalInstructions == 0 {
		s.log.each(w, func(weight uint64, _ []uint32) { meta.TotalInstructions += weight })
	}
	b := jsprofile.NewBuilder(meta)
	// A sampled program has few distinct frames, each in many stacks (a
	// recursive function's in every level of every stack): each is named,
	// and given its locations, once.
	located := make([][]*profile.Location, len(s.log.frames))
	// Each sample is rooted at its phase, as in exact mode: what a frame
	// says of it is found with its locations, once.
	phaseOf := make([]string, len(s.log.frames))
	phases := map[string]*profile.Location{}
	var locs []*profile.Location
	s.log.each(w, func(weight uint64, stack []uint32) {
		locs = locs[:0]
		phase, gc := "", false
		for i := len(stack) - 1; i >= 0; i-- { // leaf first, as pprof has them
			f := stack[i]
			if located[f] == nil {
				frames := s.frames(s.log.frames[f], id)
				for j := len(frames) - 1; j >= 0; j-- {
					located[f] = append(located[f], b.Location(frames[j]))
				}
				phaseOf[f] = framePhase(s.log.frames[f], frames)
			}
			locs = append(locs, located[f]...)
			switch p := phaseOf[f]; {
			case p == jsprofile.PhaseGC:
				gc = true
			case phase == "" && p != "": // the innermost native's, or outside JS
				phase = p
			}
		}
		switch {
		case gc:
			phase = jsprofile.PhaseGC
		case phase == "":
			phase = jsprofile.PhaseJS
		}
		root := phases[phase]
		if root == nil {
			root = b.Location(jsprofile.PhaseFrame(phase))
			phases[phase] = root
		}
		b.AddLocations(append(locs, root), int64(weight), 0, 0)
	})
	return b.Profile()
}

// framePhase is what a raw frame, named frames, says of its sample's
// phase: outside JS before or after the first activation, the cycle
// collector, an input or output native; "" nothing.
func framePhase(f rawFrame, frames []jsprofile.Frame) string {
	switch {
	case f.kind == rawOutside && f.pc == 0:
		return jsprofile.PhaseStartup
	case f.kind == rawOutside:
		return jsprofile.PhaseEngine
	}
	for _, fr := range frames {
		switch {
		case fr.Kind == jsprofile.KindWasm && fr.Name == jsprofile.GCFunction:
			return jsprofile.PhaseGC
		case fr.Kind == jsprofile.KindNative:
			return nativePhase(fr.Name)
		}
	}
	return ""
}

func (s *Sampler) frames(f rawFrame, id Identity) []jsprofile.Frame {
	switch f.kind {
	case rawWasm:
		if f.name != 0 {
			return []jsprofile.Frame{jsprofile.ForeignWasmFrame(s.names[f.name])}
		}
		return []jsprofile.Frame{jsprofile.WasmFrame(f.index, s.wasmName(f.index), "", 0, f.offset)}
	case rawMaybeNative:
		if !s.cClassSeen || s.cClassMixed || f.class != s.cClass {
			if f.fn == nil {
				return []jsprofile.Frame{jsprofile.BucketFrame(jsprofile.BucketNative)}
			}
			return s.frames(rawFrame{kind: rawCalled, fn: f.fn, pc: f.callerPC}, id)
		}
		if !f.direct {
			f.fn = nil
		}
		f.kind = rawNative
		return s.frames(f, id)
	case rawNative:
		magic := int16(uint16(f.pc))
		// One no function list declares is named by its call site, as
		// exact mode names it (ExactProfile's nativeOf).
		if declaredNative(id, f.index, magic) == "" && f.fn != nil {
			if name := forwardCallName(id, *f.fn, f.callerPC); name != "" {
				return []jsprofile.Frame{jsprofile.CalledNativeFrame(name)}
			}
		}
		return []jsprofile.Frame{jsprofile.NativeFrame(nativeName(id, f.index, magic), f.index, magic)}
	case rawBucket:
		return []jsprofile.Frame{jsprofile.BucketFrame(s.names[f.name])}
	case rawOutside:
		return nil // the phase frame build puts at the root
	case rawCalled:
		if name := forwardCallName(id, *f.fn, f.pc); name != "" {
			return []jsprofile.Frame{jsprofile.CalledNativeFrame(name)}
		}
		return []jsprofile.Frame{jsprofile.BucketFrame(jsprofile.BucketNative)}
	}
	switch {
	case f.entering && f.fn == nil: // no telling whose
		return []jsprofile.Frame{jsprofile.OpcodeFrame(jsprofile.CallSetupName, costs.CallSetup)}
	case f.fn == nil:
		return []jsprofile.Frame{jsprofile.BucketFrame(jsprofile.BucketNative)}
	}
	fn := *f.fn
	name, file, line, col := id.Function(fn)
	if f.entering {
		return []jsprofile.Frame{jsprofile.JSFrameAt(name, file, line, col, line, col, fn.Address, 0), jsprofile.OpcodeFrame(jsprofile.CallSetupName, costs.CallSetup)}
	}
	l, c := id.Line(fn, f.pc)
	if l == 0 {
		l, c = line, col
	}
	js := jsprofile.JSFrameAt(name, file, line, col, l, c, fn.Address, f.pc)
	if int(f.pc) >= len(fn.Code) {
		// Whatever the meter could not read (a buffer past the guest's
		// memory) has no opcode to name: the JS frame alone, which the
		// reports show as (no opcode).
		return []jsprofile.Frame{js}
	}
	opcode := int(fn.Code[f.pc])
	return []jsprofile.Frame{js, jsprofile.OpcodeFrame(s.ops.Name(opcode), opcode)}
}
