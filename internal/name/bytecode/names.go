package bytecode

import (
	"strconv"
	"strings"
)

// Where a function gets its JavaScript name from when func_name is empty:
// QuickJS names class constructors, methods, accessors and anonymous
// functions assigned to bindings at run time, from operands of the
// instructions that define them in the enclosing function. The parser
// replays those instructions:
//
//	push_const k; define_class NAME       constructor k of class NAME
//	fclosure k; define_method NAME f      method NAME (f&3: 1 getter, 2 setter;
//	                                      f&4: object literal, else class member,
//	                                      static after an odd number of swaps)
//	fclosure k; define_method_computed f  computed key: [Symbol.X] when the key
//	                                      is Symbol.X (get_var Symbol, by atom or
//	                                      by closure variable), else unknown
//	fclosure k; set_name NAME             anonymous function bound to NAME
const (
	methodKindMask   = 3
	methodGetter     = 1
	methodSetter     = 2
	methodEnumerable = 4
)

// Definition is how a function's enclosing code defines it.
type Definition struct {
	// Name is the name the engine gives the function at run time when its
	// func_name is empty: the method, accessor, class or binding name.
	Name     string
	Class    string // the class, for constructors and class members
	Accessor string // "get" or "set" for accessors
	// Constructor: the function is the constructor of Class.
	Constructor bool
	Static      bool // a static class member
	Computed    bool // defined under a computed key (Name is set only for Symbol.X keys)
	// Internal: a function the engine made, not the program: a class's
	// field initializer ("<fields>", "<static fields>").
	Internal bool
}

// defInstr is an instruction seen while replaying definitions.
type defInstr struct {
	op       string
	pc, size int
}

// defineNames replays each function's defining instructions.
func (p *parser) defineNames() {
	ops := p.engine.Opcodes
	name := func(op int) string {
		if op < len(ops) {
			return ops[op].Name
		}
		return ""
	}
	for _, f := range p.funcs {
		var class string
		swaps := 0
		var prev []defInstr // the last few instructions
		for pc := 0; pc < len(f.Code); {
			op := int(f.Code[pc])
			if op >= len(ops) || ops[op].Size <= 0 || pc+ops[op].Size > len(f.Code) {
				break // the parser checked the code: cannot happen
			}
			in := defInstr{op: name(op), pc: pc, size: ops[op].Size}
			next := pc + in.size
			// The instruction that names a closure: the next one, past a
			// set_home_object (methods using super, private methods,
			// field initializers).
			nameOp, namePC := "", 0
			homed := false
			for at := next; at < len(f.Code) && int(f.Code[at]) < len(ops) && ops[f.Code[at]].Size > 0; {
				nameOp, namePC = name(int(f.Code[at])), at
				if nameOp != "set_home_object" || homed {
					break
				}
				homed = true
				at += ops[f.Code[at]].Size
			}
			switch in.op {
			case "define_class", "define_class_computed":
				class = p.operandAtom(f, pc)
				swaps = 0
				if k, ok := constIndexBefore(f, prev); ok {
					if c := f.constFunction(k); c != nil {
						c.Definition = Definition{Name: class, Class: class, Constructor: true}
					}
				}
			case "swap":
				swaps++
			case "fclosure", "fclosure8":
				c := f.constFunction(constOperand(f, pc, in.size))
				if c == nil {
					break
				}
				switch nameOp {
				case "set_name":
					c.Definition = Definition{Name: p.operandAtom(f, namePC)}
					if homed && class != "" { // a private method
						c.Definition.Class = class
						c.Definition.Static = swaps%2 == 1
					}
				case "define_method", "define_method_computed":
					flags := f.Code[namePC+ops[f.Code[namePC]].Size-1]
					d := Definition{}
					if nameOp == "define_method" {
						d.Name = p.operandAtom(f, namePC)
					} else {
						d.Computed = true
						d.Name = symbolKey(p, f, prev)
					}
					switch flags & methodKindMask {
					case methodGetter:
						d.Accessor = "get"
					case methodSetter:
						d.Accessor = "set"
					}
					if flags&methodEnumerable == 0 && class != "" {
						d.Class = class
						d.Static = swaps%2 == 1
					}
					c.Definition = d
				default:
					if homed && class != "" {
						// A class's field initializer: called at once
						// for static fields, kept for instance fields.
						d := Definition{Name: "<fields>", Class: class, Internal: true}
						if nameOp == "call_method" {
							d.Name, d.Static = "<static fields>", true
						}
						c.Definition = d
					}
				}
			}
			prev = append(prev, in)
			if len(prev) > 4 {
				prev = prev[1:]
			}
			pc = next
		}
	}
}

// constFunction returns the function at index k of f's constant pool.
func (f *Function) constFunction(k int) *Function {
	if k < 0 || k >= len(f.Constants) {
		return nil
	}
	return f.Constants[k].Function
}

// constOperand reads the constant pool index of push_const/fclosure
// (u32) or their 8-bit forms.
func constOperand(f *Function, pc, size int) int {
	switch size {
	case 2:
		return int(f.Code[pc+1])
	case 5:
		return int(le32(f.Code[pc+1:]))
	}
	return -1
}

// constIndexBefore finds the push_const operand that the last instruction
// pushed (the constructor define_class takes).
func constIndexBefore(f *Function, prev []defInstr) (int, bool) {
	if len(prev) == 0 {
		return 0, false
	}
	last := prev[len(prev)-1]
	if last.op != "push_const" && last.op != "push_const8" {
		return 0, false
	}
	return constOperand(f, last.pc, last.size), true
}

// symbolKey names a computed key that is a well-known symbol: the
// instructions before the fclosure were get_var Symbol; get_field X.
func symbolKey(p *parser, f *Function, prev []defInstr) string {
	if len(prev) < 2 {
		return ""
	}
	a, b := prev[len(prev)-2], prev[len(prev)-1]
	if a.op != "get_var" || b.op != "get_field" || p.globalName(f, a) != "Symbol" {
		return ""
	}
	field := p.operandAtom(f, b.pc)
	if field == "" || strings.ContainsAny(field, "[]") {
		return ""
	}
	return "[Symbol." + field + "]"
}

// globalName returns the name of the global variable that get_var reads,
// by its atom operand or, from Bellard's 2025-11-03 commits on (format
// var_ref), by its u16 operand: an index into the function's closure
// variables, which hold the globals it uses.
func (p *parser) globalName(f *Function, in defInstr) string {
	if p.engine.Opcodes[f.Code[in.pc]].Fmt != "var_ref" {
		return p.operandAtom(f, in.pc)
	}
	if in.size != 3 {
		return ""
	}
	if idx := int(f.Code[in.pc+1]) | int(f.Code[in.pc+2])<<8; idx < len(f.ClosureVars) {
		return f.ClosureVars[idx].Name
	}
	return ""
}

// operandAtom returns the string of the atom operand of the instruction
// at pc ("" when unknown).
func (p *parser) operandAtom(f *Function, pc int) string {
	if pc+5 > len(f.Code) {
		return ""
	}
	ref := le32(f.Code[pc+1:])
	switch {
	case ref&0x80000000 != 0:
		return p.prog.atomName(ref)
	case ref >= p.prog.FirstAtom && int(ref-p.prog.FirstAtom) < len(p.prog.Atoms):
		return p.prog.Atoms[ref-p.prog.FirstAtom]
	case int(ref) < len(p.engine.Atoms):
		return p.engine.Atoms[ref]
	}
	return ""
}

// DisplayName is the name reports show for the function:
//
//   - a class constructor: the class ("Shape");
//   - a class member: the class and the member, accessors prefixed
//     ("Shape.area", "Shape.compare", "get Shape.name", "Stack.[Symbol.iterator]");
//   - otherwise the engine's func_name ("fib", "<eval>" for the module's
//     top level), else the name its definition gives it (an object literal
//     method "next", an accessor "get current", an arrow function bound to
//     a variable "slowSquare");
//   - "<anonymous>" when it has none (Line tells such functions apart).
//
// A name that is a builtin atom the parser could not resolve is shown as
// "atom#N".
func (f *Function) DisplayName() string {
	d := f.Definition
	if d.Constructor {
		if d.Class != "" {
			return d.Class
		}
		if f.Name != "" {
			return f.Name
		}
		return AnonymousName
	}
	member := d.Name
	if f.Name != "" {
		member = f.Name
	} else if f.NameUnresolved {
		member = "atom#" + strconv.FormatUint(uint64(f.NameAtom), 10)
	}
	if member == "" {
		return AnonymousName
	}
	if d.Class != "" && member == d.Name {
		member = d.Class + "." + member
	}
	if d.Accessor != "" && member != "" && !strings.HasPrefix(member, d.Accessor+" ") {
		member = d.Accessor + " " + member
	}
	return member
}

// AnonymousName is the display name of functions without a name.
const AnonymousName = "<anonymous>"

// RuntimeAtom says what a program atom reference becomes when the engine
// loads the program, if that is known without running it: builtin atoms
// and tagged integers stay as they are; so do the NG atom table's builtin
// entries, as their builtin values.
func (p *Program) RuntimeAtom(ref uint32) (uint32, bool) {
	if ref&0x80000000 != 0 || ref < p.FirstAtom {
		return ref, true
	}
	if v, ok := p.constAtoms[ref-p.FirstAtom]; ok {
		return v, true
	}
	return 0, false
}
