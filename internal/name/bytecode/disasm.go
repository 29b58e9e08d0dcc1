package bytecode

import (
	"fmt"
	"strings"
)

// Disassemble renders a function's bytecode one instruction a line:
// pc, opcode name and operands (atoms by name), for debugging and tests.
func (p *Program) Disassemble(f *Function, engine EngineSpec) string {
	var sb strings.Builder
	ops := engine.Opcodes
	for pc := 0; pc < len(f.Code); {
		op := int(f.Code[pc])
		if op >= len(ops) || ops[op].Size <= 0 || pc+ops[op].Size > len(f.Code) {
			fmt.Fprintf(&sb, "%5d  ?? %d\n", pc, op)
			break
		}
		o := ops[op]
		fmt.Fprintf(&sb, "%5d  %s", pc, o.Name)
		operand := f.Code[pc+1 : pc+o.Size]
		if isAtomFmt(o.Fmt) {
			fmt.Fprintf(&sb, " %s", p.atomName(le32(operand)))
			operand = operand[4:]
		}
		for _, b := range operand {
			fmt.Fprintf(&sb, " %02x", b)
		}
		sb.WriteByte('\n')
		pc += o.Size
	}
	return sb.String()
}
