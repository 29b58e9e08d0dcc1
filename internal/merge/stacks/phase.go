package stacks

import (
	"strings"

	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// gcFunction is QuickJS's cycle collector, in both families: a stack it is
// on is garbage collection, whatever triggered it.
const gcFunction = "JS_RunGC"

// nativePhase is the phase a native's own work is in, by its name: the
// natives through which a Javy program or a Shopify Function reads and
// decodes its input, or encodes and writes its output; "" for others.
// JSON.parse and JSON.stringify, TextDecoder's decode and TextEncoder's
// encode count as input and output: in a function they nearly always are,
// and a program that parses other JSON sees it there too
// (docs/profile-format.md).
func nativePhase(name string) string {
	switch name {
	case "JSON.parse":
		return jsprofile.PhaseInput
	case "JSON.stringify":
		return jsprofile.PhaseOutput
	}
	last := name[strings.LastIndexByte(name, '.')+1:]
	switch last {
	case "readSync", "readInput", "fromStdin", "decode", "__javy_decodeUtf8BufferToString":
		return jsprofile.PhaseInput
	case "writeSync", "writeOutput", "toStdout", "encode", "__javy_encodeStringToUtf8Buffer":
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

// contexts computes the contexts' phases; frames are the native contexts'
// frames.
func (p *phaser) contexts(ctxs []costs.ContextCost, frames []jsprofile.Frame) {
	p.phases = make([]string, len(ctxs))
	var of func(i, depth int) string
	of = func(i, depth int) string {
		if p.phases[i] != "" {
			return p.phases[i]
		}
		phase := ""
		if ctxs[i].IsNative() {
			phase = nativePhase(frames[i].Name)
		}
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
