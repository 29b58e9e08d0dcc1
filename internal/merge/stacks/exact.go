package stacks

import (
	"github.com/google/pprof/profile"

	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// ExactProfile turns the meter's exact results into a profile: per
// calling context and pc, the stack of the JS callers (each at the line and
// opcode of its call) → JS frame (at the pc's line) → opcode frame, with
// the pc's instructions and executions; per context, its calls on its JS
// frame alone; per native context, its callers → native frame, with its
// calls and what it ran itself (a caller that is a native is its frame
// alone); per bucket, its instructions. Results without contexts give one
// stack per function and pc.
//
// With the Wasm stacks sampled in the slots (Results.WasmSplits), each
// slot's instructions are split across them in proportion to their
// weights (wasmsplit.go): the same JS stack, with the Wasm frames of each
// sampled stack above, between and below its frames. The sum over a JS or
// opcode frame is the same exact count; executions and calls stay on the
// stack without Wasm frames. wasm names the Wasm frames.
func ExactProfile(res *costs.Results, meta jsprofile.Meta, ops OpcodeNamer, id Identity, wasm WasmNames) (*profile.Profile, error) {
	if id == nil {
		id = AddressIdentity{}
	}
	meta.Mode = jsprofile.ModeExact
	meta.TotalInstructions = res.TotalInstructions
	meta.WasmStacks = 0
	if len(res.WasmSplits) > 0 {
		meta.WasmStacks = res.WasmStackSamples
	}
	b := jsprofile.NewBuilder(meta)
	b.Grow(stackCount(res), locationCount(res))
	root := newRooter(b)
	splits := newSplitter(res, wasm, root)
	// Each function's frame is made once, at its first line, and each
	// opcode's: a program of many functions has hundreds of thousands of
	// stacks, and formatting their frames' names was most of the work.
	funcFrames := make([]jsprofile.Frame, len(res.Functions))
	for i, f := range res.Functions {
		name, file, line, col := id.Function(f)
		funcFrames[i] = jsprofile.JSFrameAt(name, file, line, col, line, col, f.Address, 0)
	}
	at := func(fi int, pc uint32) jsprofile.Frame {
		fr := funcFrames[fi]
		if l, c := id.Line(res.Functions[fi], pc); l != 0 {
			fr.Line, fr.Column = int64(l), int64(c)
		}
		fr.Address += uint64(pc)
		return fr
	}
	opFrames := map[int]jsprofile.Frame{}
	opFrame := func(opcode int) jsprofile.Frame {
		fr, ok := opFrames[opcode]
		if !ok {
			fr = jsprofile.OpcodeFrame(ops.Name(opcode), opcode)
			opFrames[opcode] = fr
		}
		return fr
	}
	// pcFrames are a function's frames at pc: its JS frame and, when the
	// opcode there was read, its opcode's. (A buffer the meter could not
	// read, past the guest's memory, has none: reports show its cost as
	// (no opcode) rather than the profile being lost.)
	pcFrames := func(fi int, pc uint32, opcode int) []jsprofile.Frame {
		if opcode < 0 {
			return []jsprofile.Frame{at(fi, pc)}
		}
		return []jsprofile.Frame{at(fi, pc), opFrame(opcode)}
	}
	opAt := func(fi int, pc uint32) int {
		if code := res.Functions[fi].Code; int(pc) < len(code) {
			return int(code[pc])
		}
		return -1
	}
	setup := opFrame(costs.CallSetup)
	natives := make([]jsprofile.Frame, len(res.Natives))
	undeclared := make([]bool, len(res.Natives))
	for i, n := range res.Natives {
		if n.Unidentified {
			natives[i], undeclared[i] = jsprofile.BucketFrame(jsprofile.BucketNative), true
		} else {
			undeclared[i] = declaredNative(id, n.TableIndex, n.Magic) == ""
			natives[i] = jsprofile.NativeFrame(nativeName(id, n.TableIndex, n.Magic), n.TableIndex, n.Magic)
		}
	}
	// nativeOf is a native context's frame: the native's, or, for a
	// native no function list declares (the unidentified native, or a
	// table index the engine's lists do not name: a host function a Javy
	// plugin registers, Javy.IO.readSync, through one C trampoline for
	// all of them), what its call site called when that can be read, else
	// native@table[N] or the bucket's.
	callName := callNamer(id)
	nativeOf := func(ctx int) jsprofile.Frame {
		c := res.Contexts[ctx]
		if undeclared[c.Native] && c.Parent >= 0 && c.HasCallSite && callName != nil {
			if p := res.Contexts[c.Parent]; !p.IsNative() {
				if name := callName(res.Functions[p.Function], c.CallSite); name != "" {
					return jsprofile.CalledNativeFrame(name)
				}
			}
		}
		return natives[c.Native]
	}
	ph := newPhaser()
	var stackBuf []jsprofile.Frame
	// addNative adds one native's (or native context's) stacks under prefix.
	// The unidentified native's bucket frame carries no calls.
	addNative := func(ctx int, prefix []jsprofile.Frame, frame jsprofile.Frame, calls, instrs uint64) {
		if frame.Kind == jsprofile.KindBucket {
			calls = 0
		}
		phase := ph.of(ctx, frame)
		stack := append(append([]jsprofile.Frame(nil), prefix...), frame)
		if splits.add(phase, splitKey{ctx: ctx}, stack, instrs, nil) {
			instrs = 0
		}
		root.add(phase, stack, int64(instrs), 0, int64(calls))
	}
	// add adds one function's (or context's) stacks under prefix.
	add := func(ctx int, prefix []jsprofile.Frame, fi int, calls, setupInstrs uint64, pcs []costs.PCCost) {
		f := res.Functions[fi]
		phase := ph.of(ctx, jsprofile.Frame{})
		// One stack at a time: neither the builder nor the splitter keeps
		// the frames (a program of many functions has a million slots).
		stack := func(fs ...jsprofile.Frame) []jsprofile.Frame {
			stackBuf = append(append(stackBuf[:0], prefix...), fs...)
			return stackBuf
		}
		// slot adds one slot's counts: its instructions split across its
		// Wasm stacks if it has any, its executions on the stack alone.
		slot := func(st []jsprofile.Frame, s uint32, instrs, execs uint64) {
			if splits.add(phase, splitKey{ctx: ctx, slot: s}, st, instrs, nil) {
				instrs = 0
			}
			root.add(phase, st, int64(instrs), int64(execs), 0)
		}
		root.add(phase, stack(at(fi, 0)), 0, 0, int64(calls))
		setupSlot := f.Length
		if f.PCs == nil {
			setupSlot = costs.ByOpcodeSlots
		}
		slot(stack(at(fi, 0), setup), setupSlot, setupInstrs, 0)
		if f.PCs == nil { // slots by opcode: no pcs, no lines
			for _, o := range pcs {
				if o.Opcode != costs.CallSetup {
					slot(stack(at(fi, 0), opFrame(o.Opcode)), o.PC, o.Instructions, o.Executions)
				}
			}
			return
		}
		for _, pc := range pcs {
			slot(stack(pcFrames(fi, pc.PC, pc.Opcode)...), pc.PC, pc.Instructions, pc.Executions)
		}
	}
	if len(res.Contexts) == 0 {
		for fi, f := range res.Functions {
			pcs := f.PCs
			if pcs == nil {
				for _, o := range f.Opcodes {
					pcs = append(pcs, costs.PCCost{PC: uint32(o.Opcode), Opcode: o.Opcode, Executions: o.Executions, Instructions: o.Instructions})
				}
			}
			add(-1, nil, fi, f.Calls, f.CallSetupInstructions, pcs)
		}
		for ni, n := range res.Natives {
			addNative(-1, nil, natives[ni], n.Calls, n.SelfInstructions)
		}
	} else {
		frames := make([]jsprofile.Frame, len(res.Contexts)) // native contexts' frames
		for i, c := range res.Contexts {
			if c.IsNative() {
				frames[i] = nativeOf(i)
			}
		}
		// links[i]: the frames context i's parent contributes as its
		// caller (its JS frame at the call's line and its call opcode, or
		// its native frame); prefixes[i]: all callers' frames, root first.
		links := make([][]jsprofile.Frame, len(res.Contexts))
		prefixes := make([][]jsprofile.Frame, len(res.Contexts))
		var prefix func(i int) []jsprofile.Frame
		prefix = func(i int) []jsprofile.Frame {
			c := res.Contexts[i]
			if c.Parent < 0 || prefixes[i] != nil {
				return prefixes[i]
			}
			p := res.Contexts[c.Parent]
			switch {
			case p.IsNative():
				links[i] = []jsprofile.Frame{frames[c.Parent]}
			case c.HasCallSite:
				links[i] = pcFrames(p.Function, c.CallSite, opAt(p.Function, c.CallSite))
			default:
				links[i] = []jsprofile.Frame{at(p.Function, 0), setup}
			}
			prefixes[i] = append(append([]jsprofile.Frame(nil), prefix(c.Parent)...), links[i]...)
			return prefixes[i]
		}
		for i := range res.Contexts {
			prefix(i)
		}
		splits.chains(res.Contexts, links)
		ph.contexts(res.Contexts, calledNames(res, frames, callName))
		for i, c := range res.Contexts {
			if c.IsNative() {
				addNative(i, prefixes[i], frames[i], c.Calls, c.NativeInstructions)
				continue
			}
			add(i, prefixes[i], c.Function, c.Calls, c.CallSetupInstructions, c.PCs)
		}
	}
	for _, bk := range res.Buckets {
		stack := []jsprofile.Frame{jsprofile.BucketFrame(bk.Name)}
		// The outside bucket is engine start-up until the first activation
		// began, the engine's own work after; its samples say which.
		parts := []bucketPart{{jsprofile.PhaseJS, bk.Instructions, nil}}
		if bk.Name == jsprofile.BucketOutside {
			before := min(res.OutsideBeforeJS, bk.Instructions)
			parts = []bucketPart{
				{jsprofile.PhaseStartup, before, func(s *costs.WasmSplit) bool { return s.BeforeJS }},
				{jsprofile.PhaseEngine, bk.Instructions - before, func(s *costs.WasmSplit) bool { return !s.BeforeJS }},
			}
		}
		for _, part := range parts {
			if splits.add(part.phase, splitKey{ctx: -1, bucket: bk.Name}, stack, part.instrs, part.keep) {
				continue
			}
			root.add(part.phase, stack, int64(part.instrs), 0, 0)
		}
	}
	return b.Profile()
}

// calledNames are what each context called, for its phase: a native
// context's frame's name; a JS context's call site's callee, as the
// source wrote it, when call sites are named (callName not nil), each
// call site named once.
func calledNames(res *costs.Results, frames []jsprofile.Frame, callName func(costs.FunctionCost, uint32) string) []string {
	names := make([]string, len(res.Contexts))
	type site struct {
		fn int
		pc uint32
	}
	seen := map[site]string{}
	for i, c := range res.Contexts {
		switch {
		case c.IsNative():
			names[i] = frames[i].Name
		case callName != nil && c.Parent >= 0 && c.HasCallSite && !res.Contexts[c.Parent].IsNative():
			at := site{res.Contexts[c.Parent].Function, c.CallSite}
			name, ok := seen[at]
			if !ok {
				name = callName(res.Functions[at.fn], at.pc)
				seen[at] = name
			}
			names[i] = name
		}
	}
	return names
}

// stackCount is about how many stacks ExactProfile makes of res: one per
// slot and one for each context's calls; with Wasm stacks, a slot's
// instructions go on a stack with Wasm frames (its own samples', or its
// context's) and its executions on one without.
func stackCount(res *costs.Results) int {
	perSlot := 1
	if len(res.WasmSplits) > 0 {
		perSlot = 2
	}
	n := len(res.Buckets) + len(res.Natives)
	if len(res.Contexts) == 0 {
		for _, f := range res.Functions {
			n += 1 + perSlot*(1+max(len(f.PCs), len(f.Opcodes)))
		}
		return n
	}
	for _, c := range res.Contexts {
		n += 1 + perSlot*(1+len(c.PCs))
	}
	return n
}

// locationCount is about how many locations ExactProfile makes: one per
// pc counted (its JS frame; a pc of several contexts shares one), one per
// function and opcode, and a few hundred Wasm frames at most.
func locationCount(res *costs.Results) int {
	n := len(res.Natives) + 512
	for _, f := range res.Functions {
		n += 1 + len(f.PCs) + len(f.Opcodes)
	}
	return n
}

// bucketPart is a part of a bucket's count in one phase, with the samples
// that belong to it.
type bucketPart struct {
	phase  string
	instrs uint64
	keep   func(*costs.WasmSplit) bool
}
