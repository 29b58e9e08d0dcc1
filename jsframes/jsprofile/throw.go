package jsprofile

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/google/pprof/profile"
)

// Throw is the uncaught JS error a run ended with: the engine's message,
// and the JS stack at the throw as the profile's own stacks have it (the
// functions and lines jsprof named), innermost first.
type Throw struct {
	Message string       `json:"message"`
	Stack   []ThrowFrame `json:"stack"` // empty: no stack of the profile matched
}

// Place is where the error was thrown, as the run's summary says it:
// ", thrown at inner (index.js:3) ← outer (index.js:8)", or "" when no
// stack is known.
func (t *Throw) Place() string {
	var b strings.Builder
	for i, f := range t.Stack {
		if i == 0 {
			b.WriteString(", thrown at ")
		} else {
			b.WriteString(" ← ")
		}
		b.WriteString(f.String())
	}
	return b.String()
}

// ThrowFrame is one frame of a Throw's stack: a JS function at the line it
// was running, or a native function (Native, no file or line).
type ThrowFrame struct {
	Function string `json:"function"`
	File     string `json:"file,omitempty"`
	Line     int64  `json:"line,omitempty"`
	Native   bool   `json:"native,omitempty"`
}

// String is the frame as reports print it: inner (index.js:3), JSON.parse
// (native).
func (f ThrowFrame) String() string {
	switch {
	case f.Native:
		return f.Function + " (native)"
	case f.File != "" && f.Line > 0:
		return fmt.Sprintf("%s (%s:%d)", f.Function, f.File, f.Line)
	case f.Line > 0:
		return fmt.Sprintf("%s (line %d)", f.Function, f.Line)
	}
	return f.Function
}

// The comments of Throw: the message, and the stack as a JSON array.
const (
	commentThrowMessage = "jsprof.throw.message"
	commentThrowStack   = "jsprof.throw.stack"
)

// ThrowComments are t's comments, for a profile already built
// (SetThrow) or its Meta.
func (t *Throw) comments() []string {
	if t == nil {
		return nil
	}
	stack := t.Stack
	if stack == nil {
		stack = []ThrowFrame{}
	}
	b, _ := json.Marshal(stack) // strings and numbers: no error
	return []string{commentThrowMessage + "=" + oneLine(t.Message), commentThrowStack + "=" + string(b)}
}

// SetThrow records t in a profile built without it (the stack at the
// throw is read from the profile itself: ThrowStack), in place of any
// Throw it had.
func SetThrow(p *profile.Profile, t *Throw) {
	kept := p.Comments[:0]
	for _, c := range p.Comments {
		if !strings.HasPrefix(c, commentThrowMessage+"=") && !strings.HasPrefix(c, commentThrowStack+"=") {
			kept = append(kept, c)
		}
	}
	p.Comments = append(kept, t.comments()...)
}

// readThrow reads a Throw from a profile's comments; nil when it has none.
func readThrow(kv map[string]string) (*Throw, error) {
	msg, ok := kv[commentThrowMessage]
	if !ok {
		return nil, nil
	}
	t := &Throw{Message: msg, Stack: []ThrowFrame{}}
	if s := kv[commentThrowStack]; s != "" {
		if err := json.Unmarshal([]byte(s), &t.Stack); err != nil {
			return nil, fmt.Errorf("%s: %w", commentThrowStack, err)
		}
	}
	return t, nil
}

// ThrowStack finds in the profile's stacks the JS stack at an uncaught
// throw, innermost first, from the engine's own backtrace of it (engine,
// innermost first, as QuickJS prints it: a file of its own naming, each
// recursive call a frame). A stack matches when each of its JS frames is,
// in order, one of the engine's (the same line, and the same name or the
// engine's <anonymous>), its innermost the engine's innermost JS frame;
// stacks whose opcode is a throw are preferred, then the longest. With no
// backtrace, the one stack that ran a throw opcode is it. nil when none
// matches, or several do and nothing tells them apart.
func (p *Profile) ThrowStack(engine []ThrowFrame) []ThrowFrame {
	var hint []ThrowFrame // the engine's JS frames
	nativeFirst := false  // a native threw: the engine's innermost named frame is one
	for _, f := range engine {
		if f.Native && len(hint) == 0 {
			nativeFirst = true
		}
		if !f.Native && f.Line > 0 && f.Function != "" { // not JSON.parse's <input>:1:1
			hint = append(hint, f)
		}
	}
	type candidate struct {
		stack   []ThrowFrame
		js      int  // JS frames in stack
		natives int  // native frames above the innermost JS frame
		throw   bool // its innermost opcode is a throw
	}
	// better orders candidates: a throw opcode, natives above the JS where
	// the engine had them (and none where it had none), more JS frames,
	// fewer natives.
	better := func(a, b candidate) int {
		switch {
		case a.throw != b.throw:
			return boolOrder(a.throw)
		case (a.natives > 0) != (b.natives > 0):
			return boolOrder((a.natives > 0) == nativeFirst)
		case a.js != b.js:
			return boolOrder(a.js > b.js)
		case a.natives != b.natives:
			return boolOrder(a.natives < b.natives)
		}
		return 0
	}
	seen := map[string]bool{}
	var found []candidate
	var buf []StackFrame
	for _, s := range p.Sample {
		buf = p.Stack(s, buf)
		var c candidate
		opcodeSeen := false
		for _, f := range buf {
			switch f.Kind {
			case KindOpcode:
				if !opcodeSeen {
					name := strings.TrimPrefix(f.Function.Name, OpcodePrefix)
					c.throw = name == "throw" || name == "throw_error"
					opcodeSeen = true
				}
			case KindNative:
				if c.js == 0 { // natives above the innermost JS frame: where a native threw
					c.stack = append(c.stack, ThrowFrame{Function: f.Function.Name, Native: true})
					c.natives++
				}
			case KindJS:
				c.stack = append(c.stack, ThrowFrame{Function: f.Function.Name, File: f.Function.Filename, Line: f.Line})
				c.js++
			}
		}
		if c.js == 0 {
			continue
		}
		if len(hint) > 0 && !matchesBacktrace(c.stack, hint) || len(hint) == 0 && !c.throw {
			continue
		}
		b, _ := json.Marshal(c.stack)
		if seen[string(b)] {
			continue
		}
		seen[string(b)] = true
		found = append(found, c)
	}
	if len(found) == 0 {
		return nil
	}
	sort.SliceStable(found, func(i, j int) bool { return better(found[i], found[j]) < 0 })
	if len(found) > 1 && better(found[0], found[1]) == 0 {
		return nil // two stacks as good as each other: nothing tells which threw
	}
	return found[0].stack
}

// boolOrder is better's order: -1 (first) when first is true.
func boolOrder(first bool) int {
	if first {
		return -1
	}
	return 1
}

// matchesBacktrace says whether each JS frame of stack is, in order, one
// of hint's, the innermost the innermost.
func matchesBacktrace(stack, hint []ThrowFrame) bool {
	i, first := 0, true
	for _, f := range stack {
		if f.Native {
			continue
		}
		for i < len(hint) && !sameFrame(f, hint[i]) {
			if first {
				return false
			}
			i++
		}
		if i == len(hint) {
			return false
		}
		first = false
		i++
	}
	return !first
}

// sameFrame: the same line, and the same function, QuickJS naming the
// top level <anonymous> where jsprof names it <eval>.
func sameFrame(f, engine ThrowFrame) bool {
	return f.Line == engine.Line && (f.Function == engine.Function || engine.Function == "<anonymous>")
}
