package naming

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/internal/name/bytecode"
)

// TestShapeIndexManyFunctions: a program of many functions of one length
// (as `function fN(x) { return x + N; }` compiles), each with an atom
// operand the engine renumbers, is named function by function, and a
// runtime buffer is compared with the one function its bytes can match,
// not with every function of its length (which made 50,000 functions take
// 36 s to name).
func TestShapeIndexManyFunctions(t *testing.T) {
	const n, first = 5000, 200
	code := func(constant, atom uint32) []byte {
		// get_arg0; push_i32 constant; get_field atom; add; return
		b := []byte{0x01}
		b = binary.LittleEndian.AppendUint32(b, constant)
		b = append(b, 0x02)
		b = binary.LittleEndian.AppendUint32(b, atom)
		return append(b, 0x03, 0x04)
	}
	prog := &bytecode.Program{FirstAtom: first}
	var runtime []costs.FunctionCost
	for i := range n {
		atom := uint32(first + i) // the program's atom reference
		prog.Atoms = append(prog.Atoms, fmt.Sprint("field", i))
		prog.Functions = append(prog.Functions, &bytecode.Function{Name: fmt.Sprint("f", i), Line: i + 1,
			Code: code(uint32(i), atom), AtomOps: []bytecode.AtomOperand{{Offset: 6, Ref: atom}}})
		// At run time the engine numbered the atom otherwise.
		runtime = append(runtime, costs.FunctionCost{Address: uint32(0x10000 + 0x100*i), Code: code(uint32(i), uint32(5000+first+i))})
	}
	nm := NewNamer(prog, bytecode.EngineSpec{})
	for i, f := range runtime {
		got := nm.shapes.lookup(f.Code)
		require.Len(t, got, 1, "function %d: the one function its bytes can match", i)
		assert.Equal(t, prog.Functions[i], got[0])
	}
	nm.Learn(runtime)
	for i, f := range runtime {
		info := nm.Name(f)
		assert.Equal(t, fmt.Sprint("f", i), info.Name)
		assert.Equal(t, i+1, info.Line)
	}
}
