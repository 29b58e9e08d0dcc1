package naming

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/internal/name/bytecode"
)

// What a call opcode calls is read from the calling function's bytecode,
// as the source wrote it: the opcode pops its callee from a known depth
// (below its arguments), and the instruction that pushed the callee, and
// the ones that pushed what that one popped, spell a name path
// (get_var Javy; get_field IO; get_field2 readSync → Javy.IO.readSync).
//
// The stack at each pc is found as QuickJS's compute_stack_size checks
// it: a walk over the control flow from pc 0, the opcode table giving
// each opcode's pops and pushes. Each stack slot holds which instruction
// pushed it (stack shuffles move slots); where paths of different
// pushers meet, the slot is unknown, and so is any name read through it.

// Bounds of the call analysis, against hostile or huge bytecode.
const (
	maxCallCode   = 1 << 20 // bytes of bytecode analysed
	maxCallDepth  = 1 << 12 // stack slots
	maxCallWork   = 1 << 22 // instruction steps and slots copied, per function
	maxNamePath   = 16      // components of a name path
	maxCallFlows  = 1 << 12 // functions whose analysis is kept
	slotKindShift = 3       // a slot is pc<<slotKindShift | which of the instruction's pushes
)

// slot is what the analysis knows of one stack value: the pc of the
// instruction that pushed it and which of its pushed values it is (0 the
// deepest), or unknownSlot.
type slot int64

const unknownSlot slot = -1

func newSlot(pc, k int) slot { return slot(pc)<<slotKindShift | slot(min(k, 1<<slotKindShift-1)) }

func (s slot) pc() int   { return int(s >> slotKindShift) }
func (s slot) kind() int { return int(s & (1<<slotKindShift - 1)) }

// Opcode classes of the analysis.
const (
	opPlain  = iota // pops NPop, pushes NPush new values
	opCall          // a call: NPop (+ argc) popped, the callee among them
	opGoto          // jumps
	opBranch        // may jump, with the stack after the opcode
	opGosub         // may jump, with one more value (the return address)
	opWith          // with_*: may jump from an operand after the atom
	opEnd           // returns or throws
)

// Labels: where an opcode's jump offset is, relative to which the target is.
const (
	labelNone = iota
	label32   // u32 at pc+1, target pc+1+diff
	label16   // i16 at pc+1
	label8    // i8 at pc+1
	label32At5
)

// callOp is what the analysis knows of one opcode value.
type callOp struct {
	name       string
	size       int
	pop, push  int
	class      int
	label      int
	jumpDelta  int   // values the jump target has besides the stack after the opcode
	argcU16    bool  // pops the u16 operand's count more (formats npop, npop_u16)
	argc       int   // pops this many more (call0-call3)
	calleeSkip int   // values between the callee and the arguments (call_constructor's new_target)
	perm       []int // shuffles: the pushed values as indices of the popped ones (-1: new)
	field      bool  // get_field, get_field2: its name operand names the value pushed last
	globalRef  bool  // get_var, get_var_undef of format var_ref: a u16 closure variable index, no atom
	valid      bool
}

// shuffles are the opcodes that move values: popped → pushed, by index of
// the popped values, deepest first (-1: a value the opcode makes).
var shuffles = map[string][]int{
	"dup": {0, 0}, "dup1": {0, 0, 1}, "dup2": {0, 1, 0, 1}, "dup3": {0, 1, 2, 0, 1, 2},
	"insert2": {1, 0, 1}, "insert3": {2, 0, 1, 2}, "insert4": {3, 0, 1, 2, 3},
	"perm3": {1, 0, 2}, "perm4": {2, 0, 1, 3}, "perm5": {3, 0, 1, 2, 4},
	"swap": {1, 0}, "swap2": {2, 3, 0, 1},
	"rot3l": {1, 2, 0}, "rot3r": {2, 0, 1}, "rot4l": {1, 2, 3, 0}, "rot5l": {1, 2, 3, 4, 0},
	"nip": {1}, "nip1": {1, 2},
	"get_field2": {0, -1}, "get_array_el2": {0, -1},
	"set_loc": {0}, "set_loc0": {0}, "set_loc1": {0}, "set_loc2": {0}, "set_loc3": {0}, "set_loc8": {0},
	"set_arg": {0}, "set_arg0": {0}, "set_arg1": {0}, "set_arg2": {0}, "set_arg3": {0},
	"set_var_ref": {0}, "set_var_ref0": {0}, "set_var_ref1": {0}, "set_var_ref2": {0}, "set_var_ref3": {0},
}

// callOps classifies the engine's opcodes by name; nil when the table
// lacks what the analysis needs (stack effects, the call opcodes).
func callOps(spec bytecode.EngineSpec) []callOp {
	ops := make([]callOp, len(spec.Opcodes))
	seen := map[string]int{}
	for i, o := range spec.Opcodes {
		c := callOp{name: o.Name, size: o.Size, pop: o.NPop, push: o.NPush, valid: o.Size > 0 && o.NPop >= 0 && o.NPush >= 0}
		seen[o.Name] = i
		// As compute_stack_size: npop and npop_u16 opcodes pop the u16
		// operand's count more, npopx ones (call0-call3) the count their
		// name says.
		switch o.Fmt {
		case "npop", "npop_u16":
			c.argcU16 = true
			c.valid = c.valid && o.Size >= 3
		case "npopx":
			if len(o.Name) == 5 && strings.HasPrefix(o.Name, "call") && o.Name[4] >= '0' && o.Name[4] <= '9' {
				c.argc = int(o.Name[4] - '0')
			} else {
				c.valid = false
			}
		}
		switch o.Name {
		case "call", "tail_call", "call_method", "tail_call_method", "call0", "call1", "call2", "call3":
			c.class = opCall
		case "call_constructor":
			c.class, c.calleeSkip = opCall, 1
		case "apply": // func this args_array (magic 1: func new_target args_array)
			c.class, c.calleeSkip = opCall, 2
		case "goto", "goto16", "goto8":
			c.class = opGoto
		case "if_true", "if_false", "if_true8", "if_false8", "catch":
			c.class = opBranch
		case "gosub":
			c.class, c.jumpDelta = opGosub, 1
		case "with_get_var", "with_delete_var":
			c.class, c.jumpDelta = opWith, 1
		case "with_make_ref", "with_get_ref", "with_get_ref_undef":
			c.class, c.jumpDelta = opWith, 2
		case "with_put_var":
			c.class, c.jumpDelta = opWith, -1
		case "return", "return_undef", "return_async", "throw", "throw_error", "ret":
			c.class = opEnd
		}
		if p, ok := shuffles[o.Name]; ok && len(p) == o.NPush && maxIndex(p) < o.NPop {
			c.perm = p
		}
		// The property reads of name paths: get_field's value is its
		// one push, get_field2's the second (the object stays below).
		isAtom := o.Fmt == "atom" && o.Size >= 5
		c.field = isAtom && ((o.Name == "get_field" && o.NPop == 1 && o.NPush == 1) || (o.Name == "get_field2" && c.perm != nil))
		// Global variable reads: by atom, or, from Bellard's 2025-11-03
		// commits on, by an index into the function's closure
		// variables, which hold the globals it uses.
		c.globalRef = (o.Name == "get_var" || o.Name == "get_var_undef") && o.Fmt == "var_ref" && o.Size >= 3
		switch c.class {
		case opGoto, opBranch, opGosub:
			switch o.Fmt {
			case "label":
				c.label = label32
			case "label16":
				c.label = label16
			case "label8":
				c.label = label8
			default:
				c.valid = false
			}
		case opWith:
			if o.Fmt == "atom_label_u8" || o.Fmt == "atom_label_u16" {
				c.label = label32At5
			} else {
				c.valid = false
			}
		}
		if (c.label == label32 && o.Size < 5) || (c.label == label16 && o.Size < 3) ||
			(c.label == label8 && o.Size < 2) || (c.label == label32At5 && o.Size < 9) {
			c.valid = false
		}
		ops[i] = c
	}
	// The table must give stack effects: drop pops one, dup pushes two,
	// call pops its callee.
	for name, want := range map[string][2]int{"drop": {1, 0}, "dup": {1, 2}, "call": {1, 1}, "get_field2": {1, 2}} {
		i, ok := seen[name]
		if !ok || ops[i].pop != want[0] || ops[i].push != want[1] {
			return nil
		}
	}
	return ops
}

func maxIndex(p []int) int {
	m := -1
	for _, v := range p {
		m = max(m, v)
	}
	return m
}

// callFlow is the analysis of one function's bytecode: the slot of each
// call's callee, and the object slot of each get_field/get_field2.
type callFlow struct {
	code   []byte
	callee map[uint32]slot
	input  map[uint32]slot
}

// analyzeCalls walks code's control flow; nil when the code is not what
// the engine's compiler makes (undecodable, inconsistent stack depths),
// or too large to analyse within the bounds.
func analyzeCalls(code []byte, ops []callOp) *callFlow {
	if len(code) == 0 || len(code) > maxCallCode || ops == nil {
		return nil
	}
	// Instruction boundaries and jump targets, in one linear pass.
	start := make([]bool, len(code))
	entry := make([]bool, len(code))
	entry[0] = true
	for pc := 0; pc < len(code); {
		op := int(code[pc])
		if op >= len(ops) || !ops[op].valid || pc+ops[op].size > len(code) {
			return nil
		}
		start[pc] = true
		if t, ok := jumpTarget(code, pc, ops[op]); ok {
			if t < 0 || t >= len(code) {
				return nil
			}
			entry[t] = true
		}
		pc += ops[op].size
	}
	for pc, e := range entry {
		if e && !start[pc] {
			return nil
		}
	}

	fl := &callFlow{code: code, callee: map[uint32]slot{}, input: map[uint32]slot{}}
	states := map[int][]slot{0: nil}
	queued := map[int]bool{0: true}
	work := []int{0}
	budget := maxCallWork
	ok := true
	merge := func(pc int, stack []slot) {
		budget -= len(stack)
		old, seen := states[pc]
		changed := false
		switch {
		case !seen:
			states[pc] = append([]slot(nil), stack...)
			changed = true
		case len(old) != len(stack):
			ok = false
			return
		default:
			for i := range old {
				if old[i] != stack[i] && old[i] != unknownSlot {
					old[i] = unknownSlot
					changed = true
				}
			}
		}
		if changed && !queued[pc] {
			queued[pc] = true
			work = append(work, pc)
		}
	}
	note := func(m map[uint32]slot, pc int, s slot) {
		if old, seen := m[uint32(pc)]; seen && old != s {
			s = unknownSlot
		}
		m[uint32(pc)] = s
	}
	var stack []slot
	for len(work) > 0 && ok {
		at := work[len(work)-1]
		work = work[:len(work)-1]
		queued[at] = false
		stack = append(stack[:0], states[at]...)
		budget -= len(stack)
		for pc, first := at, true; ok; first = false {
			if budget--; budget < 0 {
				return nil
			}
			if pc >= len(code) {
				return nil // falls off the end
			}
			if entry[pc] && !first {
				merge(pc, stack) // walked from there with this stack
				break
			}
			o := &ops[code[pc]]
			pop := o.pop + o.argc
			if o.argcU16 {
				pop += int(binary.LittleEndian.Uint16(code[pc+1:]))
			}
			if len(stack) < pop {
				return nil
			}
			if o.class == opCall {
				argc := pop - o.pop
				if i := len(stack) - 1 - argc - o.calleeSkip; i >= 0 {
					note(fl.callee, pc, stack[i])
				}
			}
			if o.field {
				note(fl.input, pc, stack[len(stack)-1])
			}
			popped := len(stack) - pop
			if o.perm != nil {
				var moved [6]slot
				n := copy(moved[:], stack[popped:])
				if n != pop {
					return nil
				}
				stack = stack[:popped]
				for k, from := range o.perm {
					if from < 0 {
						stack = append(stack, newSlot(pc, k))
					} else {
						stack = append(stack, moved[from])
					}
				}
			} else {
				stack = stack[:popped]
				for k := 0; k < o.push; k++ {
					stack = append(stack, newSlot(pc, k))
				}
			}
			if len(stack) > maxCallDepth {
				return nil
			}
			next := pc + o.size
			t, _ := jumpTarget(code, pc, *o)
			switch o.class {
			case opEnd:
				next = -1
			case opCall:
				if strings.HasPrefix(o.name, "tail_call") {
					next = -1
				}
			case opGoto:
				next = t
			case opBranch:
				merge(t, stack)
			case opGosub, opWith:
				switch {
				case o.jumpDelta > 0:
					with := append(append([]slot(nil), stack...), newSlot(pc, o.push), newSlot(pc, o.push+1))
					merge(t, with[:len(stack)+o.jumpDelta])
				case len(stack) > 0:
					merge(t, stack[:len(stack)-1])
				default:
					return nil
				}
			}
			if next < 0 {
				break
			}
			pc = next
		}
	}
	if !ok {
		return nil
	}
	return fl
}

// jumpTarget returns the pc an opcode may jump to.
func jumpTarget(code []byte, pc int, o callOp) (int, bool) {
	switch o.label {
	case label32:
		return pc + 1 + int(int32(binary.LittleEndian.Uint32(code[pc+1:]))), true
	case label16:
		return pc + 1 + int(int16(binary.LittleEndian.Uint16(code[pc+1:]))), true
	case label8:
		return pc + 1 + int(int8(code[pc+1])), true
	case label32At5:
		return pc + 5 + int(int32(binary.LittleEndian.Uint32(code[pc+5:]))), true
	}
	return 0, false
}

// CallName names the function a call at pc of f calls, as the source
// wrote it: "Javy.IO.readSync" for Javy.IO.readSync(0, buf),
// "JSON.parse", "ShopifyFunction.readInput", "decode" for
// new TextDecoder().decode(x) (a receiver that is no plain name path is
// left out), "readAll" for readAll(); "" when it cannot tell.
//
// pc is the pc of a call opcode (call, call0-call3, call_method,
// tail_call, tail_call_method, call_constructor, apply) in f's bytecode
// (costs.ContextCost.CallSite). A name path is made of global variables
// (get_var: by its atom, or by the closure variable that holds the global
// where the engine's get_var has an index operand), the function's
// arguments, locals and closure variables, this,
// and property names (get_field, get_field2); a computed property
// (o[k]()), a callee chosen at run time ((c ? a : b)()) or a function's
// result (f()()) is no name. Variable names need f matched to a function
// of the program; a function compiled at run time gets names of globals
// and properties only, when memory gives their atoms.
func (n *Namer) CallName(f costs.FunctionCost, pc uint32) string {
	if int(pc) >= len(f.Code) {
		return ""
	}
	if n.callOps == nil {
		n.callOps = callOps(n.engine)
		if n.callOps == nil {
			n.callOps = []callOp{}
		}
	}
	if len(n.callOps) == 0 {
		return ""
	}
	fl := n.flowOf(f)
	if fl == nil {
		return ""
	}
	s, ok := fl.callee[pc]
	if !ok || s == unknownSlot {
		return ""
	}
	info := n.Name(f)
	switch {
	case info.Function != nil:
		return n.fileNames(info.Function).callee(fl, s)
	case info.Ambiguous:
		name := ""
		for i, fn := range info.Candidates {
			got := n.fileNames(fn).callee(fl, s)
			if got == "" || (i > 0 && got != name) {
				return ""
			}
			name = got
		}
		return name
	}
	return n.memoryNames(f).callee(fl, s)
}

// flowOf returns f's analysis, made once per bytecode buffer.
func (n *Namer) flowOf(f costs.FunctionCost) *callFlow {
	if fl, ok := n.flows[f.Address]; ok && bytes.Equal(fl.code, f.Code) {
		return fl
	}
	fl := analyzeCalls(f.Code, n.callOps)
	if fl == nil {
		fl = &callFlow{code: f.Code} // no callee known: every name is ""
	}
	if n.flows == nil || len(n.flows) >= maxCallFlows {
		n.flows = map[uint32]*callFlow{}
	}
	n.flows[f.Address] = fl
	return fl
}

// callNamer reads names from one function's code: atoms and variables.
type callNamer struct {
	ops  []callOp
	code []byte                  // for the atom operands
	atom func(ref uint32) string // "" when unknown
	vars func(op string, k int, operand []byte) string
}

// fileNames names through the serialized function fn: its atom operands
// and variable names.
func (n *Namer) fileNames(fn *bytecode.Function) callNamer {
	return callNamer{ops: n.callOps, code: fn.Code, atom: n.fileAtom, vars: func(op string, k int, operand []byte) string {
		idx, kind, ok := varOperand(op, k, operand)
		if !ok {
			return ""
		}
		switch kind {
		case 'a':
			if idx < len(fn.Vars) && idx < fn.ArgCount {
				return fn.Vars[idx].Name
			}
		case 'l':
			if i := fn.ArgCount + idx; i < len(fn.Vars) {
				return fn.Vars[i].Name
			}
		case 'r':
			if idx < len(fn.ClosureVars) {
				return fn.ClosureVars[idx].Name
			}
		}
		return ""
	}}
}

// memoryNames names through the runtime buffer alone: runtime atoms, no
// variables.
func (n *Namer) memoryNames(f costs.FunctionCost) callNamer {
	return callNamer{ops: n.callOps, code: f.Code, atom: func(a uint32) string {
		if a == 0 {
			return ""
		}
		s, _ := n.atomString(a)
		return s
	}, vars: func(string, int, []byte) string { return "" }}
}

// fileAtom returns the string of a serialized atom reference.
func (n *Namer) fileAtom(ref uint32) string {
	p := n.prog
	switch {
	case ref&0x80000000 != 0:
		return strconv.FormatUint(uint64(ref&0x7fffffff), 10)
	case ref == 0 || p == nil:
		return ""
	case ref >= p.FirstAtom && int(ref-p.FirstAtom) < len(p.Atoms):
		return p.Atoms[ref-p.FirstAtom]
	case int(ref) < len(n.engine.Atoms):
		return n.engine.Atoms[ref]
	}
	return ""
}

// varOperand decodes a variable access: its index and kind ('a'
// argument, 'l' local, 'r' closure variable). get_var and get_var_undef
// are closure variable accesses where their operand is one (callOp's
// globalRef), not an atom.
func varOperand(op string, k int, operand []byte) (idx int, kind byte, ok bool) {
	switch op {
	case "get_loc", "get_loc_check", "get_loc_checkthis", "get_arg", "get_var_ref", "get_var_ref_check",
		"get_var", "get_var_undef":
		if len(operand) < 2 {
			return 0, 0, false
		}
		idx = int(binary.LittleEndian.Uint16(operand))
	case "get_loc8":
		if len(operand) < 1 {
			return 0, 0, false
		}
		idx = int(operand[0])
	case "get_loc0", "get_loc1", "get_loc2", "get_loc3", "get_arg0", "get_arg1", "get_arg2", "get_arg3",
		"get_var_ref0", "get_var_ref1", "get_var_ref2", "get_var_ref3":
		idx = int(op[len(op)-1] - '0')
	case "get_loc0_loc1":
		idx = k
	default:
		return 0, 0, false
	}
	switch {
	case strings.HasPrefix(op, "get_loc"):
		kind = 'l'
	case strings.HasPrefix(op, "get_arg"):
		kind = 'a'
	default:
		kind = 'r'
	}
	return idx, kind, true
}

// callee names the callee slot s: a name path, or the property a
// get_field/get_field2 read when its object is no name path.
func (c callNamer) callee(fl *callFlow, s slot) string {
	if name, ok := c.field(fl, s); ok {
		if recv, ok := c.path(fl, fl.input[uint32(s.pc())], maxNamePath-1); ok {
			return recv + "." + name
		}
		return name
	}
	name, _ := c.path(fl, s, maxNamePath)
	return name
}

// field returns the property name of a value get_field or get_field2
// pushed.
func (c callNamer) field(fl *callFlow, s slot) (string, bool) {
	pc := s.pc()
	if s == unknownSlot || pc < 0 || pc+5 > len(fl.code) || pc+5 > len(c.code) {
		return "", false
	}
	o := c.ops[fl.code[pc]]
	if !o.field || (o.name == "get_field" && s.kind() != 0) || (o.name == "get_field2" && s.kind() != 1) {
		return "", false
	}
	name := c.atom(binary.LittleEndian.Uint32(c.code[pc+1:]))
	return name, name != ""
}

// path returns the name path that pushed s, if it is one.
func (c callNamer) path(fl *callFlow, s slot, depth int) (string, bool) {
	pc := s.pc()
	if s == unknownSlot || depth <= 0 || pc < 0 || pc >= len(fl.code) || pc >= len(c.code) {
		return "", false
	}
	if name, ok := c.field(fl, s); ok {
		recv, ok := c.path(fl, fl.input[uint32(pc)], depth-1)
		if !ok {
			return "", false
		}
		return recv + "." + name, true
	}
	o := c.ops[fl.code[pc]]
	end := min(pc+o.size, len(fl.code))
	var name string
	switch o.name {
	case "push_this":
		name = "this"
	case "get_var", "get_var_undef":
		switch {
		case o.globalRef:
			name = c.vars(o.name, s.kind(), fl.code[pc+1:end])
		case o.size >= 5 && pc+5 <= len(c.code):
			name = c.atom(binary.LittleEndian.Uint32(c.code[pc+1:]))
		}
	default:
		name = c.vars(o.name, s.kind(), fl.code[pc+1:end])
	}
	if name == "" || strings.HasPrefix(name, "<") {
		return "", false
	}
	return name, true
}
