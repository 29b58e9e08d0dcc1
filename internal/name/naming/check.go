package naming

import (
	"fmt"

	"github.com/jsprof/jsprof/internal/measure/costs"
)

// Disagreement is a function whose measurement the engine's own data
// contradicts: its cost by pc cannot be trusted to be its own, nor its
// opcodes and lines.
type Disagreement struct {
	Function int    // index into the checked functions
	Why      string // the first contradiction, and how many more
}

// Check verifies each measured function against what the engine itself
// did and holds: at every pc where the interpreter dispatched, the opcode
// it dispatched (costs.PCCost.Dispatched) is the byte the function's code
// holds there, and that pc begins an instruction when the code is decoded
// from its first byte with the engine's opcode sizes. A function the
// engine freed, whose memory then held another function's code while the
// meter still counted it as the first, fails both. Names and line tables
// read from memory need no check here: the namer reads an object only
// while it still describes the function's buffer and that buffer still
// holds its code.
//
// Functions whose code was not read, and pcs without a dispatched opcode
// (sampling mode records none), are not checked. It returns the functions
// that fail, in order, and how many were checked.
func (n *Namer) Check(fs []costs.FunctionCost) (failed []Disagreement, checked int) {
	for i, f := range fs {
		if f.Code == nil || len(f.PCs) == 0 {
			continue
		}
		checked++
		var starts []bool // instruction starts, decoded when first needed
		var first string
		more := 0
		note := func(format string, args ...any) {
			if first == "" {
				first = fmt.Sprintf(format, args...)
			} else {
				more++
			}
		}
		for _, pc := range f.PCs {
			if pc.Executions == 0 || pc.Dispatched < 0 {
				continue
			}
			switch {
			case int(pc.PC) >= len(f.Code):
				note("pc %d: dispatched past the end of its %d-byte code", pc.PC, len(f.Code))
				continue
			case pc.Dispatched == costs.DispatchedSeveral:
				note("pc %d: its calling contexts dispatched different opcodes there", pc.PC)
				continue
			case pc.Dispatched != int(f.Code[pc.PC]):
				note("pc %d: the interpreter dispatched %s, the code holds %s", pc.PC, n.opName(pc.Dispatched), n.opName(int(f.Code[pc.PC])))
				continue
			}
			if starts == nil {
				starts = n.instructionStarts(f.Code)
			}
			if len(starts) > 0 && !starts[pc.PC] {
				note("pc %d: %s dispatched inside another instruction", pc.PC, n.opName(pc.Dispatched))
			}
		}
		if first != "" {
			if more > 0 {
				first += fmt.Sprintf(" (and %d more pcs)", more)
			}
			failed = append(failed, Disagreement{Function: i, Why: first})
		}
	}
	return failed, checked
}

// instructionStarts marks the pcs of code at which an instruction begins,
// walking it with the engine's opcode sizes; empty when the engine's
// opcodes are not known or the walk meets an opcode of no known size.
func (n *Namer) instructionStarts(code []byte) []bool {
	ops := n.engine.Opcodes
	if len(ops) == 0 {
		return []bool{}
	}
	starts := make([]bool, len(code))
	for pc := 0; pc < len(code); {
		op := int(code[pc])
		if op >= len(ops) || ops[op].Size <= 0 {
			return []bool{}
		}
		starts[pc] = true
		pc += ops[op].Size
	}
	return starts
}

// opName names an opcode value by the engine's table, or by number.
func (n *Namer) opName(op int) string {
	if op >= 0 && op < len(n.engine.Opcodes) && n.engine.Opcodes[op].Name != "" {
		return n.engine.Opcodes[op].Name
	}
	return fmt.Sprintf("opcode %d", op)
}
