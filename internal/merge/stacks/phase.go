package stacks

import (
	"strings"

	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// ioRole is what a native does with the function's input or output, by
// its name: reads or writes them (the natives through which a Javy
// program or a Shopify Function reads its input and writes its output),
// or decodes or encodes data (JSON.parse and JSON.stringify, TextDecoder's
// decode and TextEncoder's encode), which is the input's or the output's
// only when the code did it to them (phaser.contexts).
type ioRole uint8

const (
	roleNone ioRole = iota
	roleRead
	roleWrite
	roleDecode
	roleEncode
)

func nativeRole(name string) ioRole {
	switch name {
	case "JSON.parse":
		return roleDecode
	case "JSON.stringify":
		return roleEncode
	}
	switch name[strings.LastIndexByte(name, '.')+1:] {
	case "readSync", "readInput", "fromStdin":
		return roleRead
	case "writeSync", "writeOutput", "toStdout":
		return roleWrite
	case "decode", "__javy_decodeUtf8BufferToString":
		return roleDecode
	case "encode", "__javy_encodeStringToUtf8Buffer":
		return roleEncode
	}
	return roleNone
}

// nativePhase is the phase a native's own work is in by its name alone:
// input decoding for the natives that read the input, output encoding for
// those that write the output; "" for others (JSON.parse among them).
func nativePhase(name string) string {
	switch nativeRole(name) {
	case roleRead:
		return jsprofile.PhaseInput
	case roleWrite:
		return jsprofile.PhaseOutput
	}
	return ""
}

// phaser tells the phase of each exact context: an input or output
// native's, and every context under it; else the JS program's.
type phaser struct {
	phases []string // by context; "" until known
}

func newPhaser() *phaser { return &phaser{} }

// ioSites are where a JS context's code reached the input or the output:
// the call sites (in its function) of its calls that read the input,
// directly or through the JS functions they called, the first of them, and
// of those that wrote the output, the last. unordered: one of them has no
// call site, so any call of the context is taken as next to it.
type ioSites struct {
	read, write             bool
	firstRead, lastWrite    uint32
	readAnyway, writeAnyway bool
}

// contexts computes the contexts' phases; names are what each context
// called: a native context's frame's name, a JS context's call site's
// callee as the source wrote it ("Javy.IO.readSync", where the engine's
// own JS wraps the host function), "" when unknown. A context that reads
// the input (or writes the output) is input decoding (output encoding);
// so is one that decodes data (JSON.parse, TextDecoder's decode) called
// by a JS context after it read the input, there or in a JS function it
// called (a program's readAll: Javy.IO.readSync in a loop, then decode,
// then JSON.parse), and one that encodes data called before the output is
// written so. JSON.parse of the program's own data, or of a metafield the
// function was given, is the JS program's.
func (p *phaser) contexts(ctxs []costs.ContextCost, names []string) {
	p.phases = make([]string, len(ctxs))
	roles := make([]ioRole, len(ctxs))
	sites := map[int]*ioSites{}
	for i := range ctxs {
		if names[i] == "" {
			continue
		}
		roles[i] = nativeRole(names[i])
		if roles[i] != roleRead && roles[i] != roleWrite {
			continue
		}
		// Up through the JS callers: each saw the input read (the output
		// written) at the call site of the path's next context.
		for c, depth := i, 0; ctxs[c].Parent >= 0 && depth < len(ctxs); c, depth = ctxs[c].Parent, depth+1 {
			parent := ctxs[c].Parent
			if ctxs[parent].IsNative() {
				continue
			}
			s := sites[parent]
			if s == nil {
				s = &ioSites{}
				sites[parent] = s
			}
			site, has := ctxs[c].CallSite, ctxs[c].HasCallSite
			if roles[i] == roleRead {
				s.readAnyway = s.readAnyway || !has
				if !s.read || site < s.firstRead {
					s.firstRead = site
				}
				s.read = true
			} else {
				s.writeAnyway = s.writeAnyway || !has
				s.lastWrite = max(s.lastWrite, site)
				s.write = true
			}
		}
	}
	// own is the phase a native context's own role gives it.
	own := func(i int) string {
		c := ctxs[i]
		s := sites[c.Parent]
		switch roles[i] {
		case roleRead:
			return jsprofile.PhaseInput
		case roleWrite:
			return jsprofile.PhaseOutput
		case roleDecode:
			if s != nil && s.read && (s.readAnyway || !c.HasCallSite || c.CallSite > s.firstRead) {
				return jsprofile.PhaseInput
			}
		case roleEncode:
			if s != nil && s.write && (s.writeAnyway || !c.HasCallSite || c.CallSite < s.lastWrite) {
				return jsprofile.PhaseOutput
			}
		}
		return ""
	}
	var of func(i, depth int) string
	of = func(i, depth int) string {
		if p.phases[i] != "" {
			return p.phases[i]
		}
		phase := own(i)
		if phase == "" {
			phase = jsprofile.PhaseJS
			// contexts form a tree; depth bounds a malformed one
			if parent := ctxs[i].Parent; parent >= 0 && depth < len(ctxs) {
				phase = of(parent, depth+1)
			}
		}
		p.phases[i] = phase
		return phase
	}
	for i := range ctxs {
		of(i, 0)
	}
}

// of is the phase of context ctx, or, for results without contexts (ctx
// -1), of a native's frame or a JS function's.
func (p *phaser) of(ctx int, frame jsprofile.Frame) string {
	if ctx >= 0 && ctx < len(p.phases) {
		return p.phases[ctx]
	}
	if frame.Kind == jsprofile.KindNative {
		if phase := nativePhase(frame.Name); phase != "" {
			return phase
		}
	}
	return jsprofile.PhaseJS
}

// rooter adds stacks under their phase's frame, each phase's frame made
// once: an exact profile roots a million stacks at a few phases.
type rooter struct {
	b      *jsprofile.Builder
	frames map[string]jsprofile.Frame
}

func newRooter(b *jsprofile.Builder) *rooter {
	return &rooter{b: b, frames: map[string]jsprofile.Frame{}}
}

// add adds stack under phase's frame.
func (r *rooter) add(phase string, stack []jsprofile.Frame, instructions, executions, calls int64) {
	root, ok := r.frames[phase]
	if !ok {
		root = jsprofile.PhaseFrame(phase)
		r.frames[phase] = root
	}
	r.b.AddUnder(root, stack, instructions, executions, calls)
}
