package shopify_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/wasmcore"
)

// Small modules assembled with wasmcore, for protocol tests that need no
// JS engine.

var i32 = wasmcore.ValI32

func code(ins ...wasmcore.Instr) []byte {
	var body []byte
	for _, in := range ins {
		body = wasmcore.AppendInstr(body, in)
	}
	return wasmcore.AppendInstr(body, wasmcore.Instr{Op: wasmcore.OpEnd})
}

func i32Const(v int32) wasmcore.Instr { return wasmcore.Instr{Op: wasmcore.OpI32Const, I32: v} }
func call(idx uint32) wasmcore.Instr  { return wasmcore.Instr{Op: wasmcore.OpCall, Index: idx} }
func drop() wasmcore.Instr            { return wasmcore.Instr{Op: wasmcore.OpDrop} }
func i32Load() wasmcore.Instr {
	return wasmcore.Instr{Op: wasmcore.OpI32Load, Mem: wasmcore.MemArg{Align: 2}}
}

// exportFunc adds a function and exports it.
func exportFunc(m *wasmcore.Module, name string, ft wasmcore.FuncType, body []byte) {
	idx := m.AddFunction(wasmcore.Function{Type: m.AddType(ft), Body: body})
	m.Exports = append(m.Exports, wasmcore.Export{Name: name, Kind: wasmcore.ExternFunc, Index: idx})
}

// withMemory gives m one exported page of memory holding data at 0.
func withMemory(m *wasmcore.Module, data []byte) {
	m.Memories = []wasmcore.MemoryType{{Limits: wasmcore.Limits{Min: 1}}}
	m.Exports = append(m.Exports, wasmcore.Export{Name: "memory", Kind: wasmcore.ExternMemory, Index: 0})
	if len(data) > 0 {
		m.Data = []wasmcore.DataSegment{{Mode: wasmcore.DataActive, Offset: wasmcore.ConstI32(0), Init: data}}
	}
}

func encode(t *testing.T, m *wasmcore.Module) []byte {
	t.Helper()
	wasm, err := m.Encode()
	require.NoError(t, err)
	return wasm
}
