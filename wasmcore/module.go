package wasmcore

import "fmt"

// NumImportedFuncs returns the number of imported functions: the index of
// the first defined function.
func (m *Module) NumImportedFuncs() uint32 {
	var n uint32
	for i := range m.Imports {
		if m.Imports[i].Kind == ExternFunc {
			n++
		}
	}
	return n
}

// NumImportedGlobals returns the number of imported globals: the index of
// the first defined global.
func (m *Module) NumImportedGlobals() uint32 {
	var n uint32
	for i := range m.Imports {
		if m.Imports[i].Kind == ExternGlobal {
			n++
		}
	}
	return n
}

// NumFuncs returns the size of the function index space.
func (m *Module) NumFuncs() uint32 { return m.NumImportedFuncs() + uint32(len(m.Functions)) }

// FuncTypeIndex returns the type index of a function (imports first).
func (m *Module) FuncTypeIndex(funcIndex uint32) (uint32, error) {
	for i := range m.Imports {
		if m.Imports[i].Kind != ExternFunc {
			continue
		}
		if funcIndex == 0 {
			return m.Imports[i].Func, nil
		}
		funcIndex--
	}
	if uint64(funcIndex) >= uint64(len(m.Functions)) {
		return 0, fmt.Errorf("wasmcore: function index out of range")
	}
	return m.Functions[funcIndex].Type, nil
}

// FuncTypeOf returns the signature of a function (imports first).
func (m *Module) FuncTypeOf(funcIndex uint32) (FuncType, error) {
	ti, err := m.FuncTypeIndex(funcIndex)
	if err != nil {
		return FuncType{}, fmt.Errorf("wasmcore: function %d: index out of range (%d functions)", funcIndex, m.NumFuncs())
	}
	if uint64(ti) >= uint64(len(m.Types)) {
		return FuncType{}, fmt.Errorf("wasmcore: function %d: type index %d out of range (%d types)", funcIndex, ti, len(m.Types))
	}
	return m.Types[ti], nil
}

// FuncName returns the function's name from the name section, or "".
func (m *Module) FuncName(funcIndex uint32) string {
	if m.Names == nil {
		return ""
	}
	return m.Names.Funcs[funcIndex]
}

// ExportedFunc returns the index of the function exported as name.
func (m *Module) ExportedFunc(name string) (uint32, bool) {
	for _, e := range m.Exports {
		if e.Kind == ExternFunc && e.Name == name {
			return e.Index, true
		}
	}
	return 0, false
}

// CodeSectionOffset returns the file offset of the code section payload in
// the decoded binary: DWARF in Wasm addresses code relative to it. It is 0
// for a module that was not decoded or had no code section.
func (m *Module) CodeSectionOffset() uint32 {
	if m.src == nil {
		return 0
	}
	return uint32(m.src.codePayload)
}

// Function returns the defined function with the given function index, or
// nil for imports and out-of-range indices.
func (m *Module) Function(funcIndex uint32) *Function {
	n := m.NumImportedFuncs()
	if funcIndex < n || uint64(funcIndex-n) >= uint64(len(m.Functions)) {
		return nil
	}
	return &m.Functions[funcIndex-n]
}
