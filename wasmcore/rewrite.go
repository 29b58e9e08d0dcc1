package wasmcore

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
)

// AddType returns the index of a type equal to ft, appending it if there is
// none.
func (m *Module) AddType(ft FuncType) uint32 {
	for i := range m.Types {
		if m.Types[i].Equal(ft) {
			return uint32(i)
		}
	}
	m.Types = append(m.Types, FuncType{Params: slices.Clone(ft.Params), Results: slices.Clone(ft.Results)})
	return uint32(len(m.Types) - 1)
}

// AddFunction appends a defined function and returns its function index.
// Its BodyOffset is cleared: the function is not in the decoded binary.
func (m *Module) AddFunction(f Function) uint32 {
	f.BodyOffset = 0
	m.Functions = append(m.Functions, f)
	return m.NumImportedFuncs() + uint32(len(m.Functions)-1)
}

// AddGlobal appends a defined global and returns its global index.
func (m *Module) AddGlobal(g Global) uint32 {
	m.Globals = append(m.Globals, g)
	return m.NumImportedGlobals() + uint32(len(m.Globals)-1)
}

// RemoveExport removes the export called name and reports whether there
// was one.
func (m *Module) RemoveExport(name string) bool {
	for i := range m.Exports {
		if m.Exports[i].Name == name {
			m.Exports = slices.Delete(m.Exports, i, i+1)
			return true
		}
	}
	return false
}

// AddImportFunc imports a function and returns its index, which is the
// number of function imports before the call: the import goes after the
// last imported function, so the index space stays "imports first". Every
// defined function moves up by one, and every reference to one is
// renumbered: call, return_call and ref.func in bodies and constant
// expressions, exports, the start function, element segments and the name
// section's function and local names.
//
// Calls keep their encoded width when the new index fits (wasm-ld pads
// them to 5 bytes), so most bodies keep their size and instruction
// offsets. A body that cannot be decoded cannot be renumbered: the error is
// kept and returned by the next Encode, since a half-renumbered module
// would be silently wrong.
func (m *Module) AddImportFunc(module, name string, typeIdx uint32) uint32 {
	return m.AddImportFuncs(FuncImport{Module: module, Name: name, Type: typeIdx})
}

// FuncImport is a function import to add: its module, name and type index.
type FuncImport struct {
	Module, Name string
	Type         uint32
}

// AddImportFuncs is AddImportFunc of each of imports, in order, with one
// renumbering pass for all of them (a pass reads every body: an engine's
// megabyte of code). It returns the first one's index; the others follow.
func (m *Module) AddImportFuncs(imports ...FuncImport) uint32 {
	k := m.NumImportedFuncs()
	n := uint32(len(imports))
	if n == 0 {
		return k
	}
	at := 0
	for i := range m.Imports {
		if m.Imports[i].Kind == ExternFunc {
			at = i + 1
		}
	}
	added := make([]Import, n)
	for i, imp := range imports {
		added[i] = Import{Module: imp.Module, Name: imp.Name, Kind: ExternFunc, Func: imp.Type}
	}
	m.Imports = slices.Insert(m.Imports, at, added...)

	shift := func(idx uint32) uint32 {
		if idx >= k {
			return idx + n
		}
		return idx
	}
	var errs []error
	for i := range m.Functions {
		f := &m.Functions[i]
		body, err := renumberCode(f.Body, shift)
		if err != nil {
			errs = append(errs, fmt.Errorf("function %d: %w", k+n+uint32(i), err))
			continue
		}
		f.Body = body
	}
	fixExpr := func(c *ConstExpr, what string) {
		code, err := renumberCode(c.Code, shift)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", what, err))
			return
		}
		c.Code = code
	}
	for i := range m.Globals {
		fixExpr(&m.Globals[i].Init, fmt.Sprintf("global %d", int(m.NumImportedGlobals())+i))
	}
	for i := range m.Elements {
		el := &m.Elements[i]
		if len(el.Funcs) > 0 {
			funcs := make([]uint32, len(el.Funcs))
			for j, f := range el.Funcs {
				funcs[j] = shift(f)
			}
			el.Funcs = funcs
		}
		if el.Exprs != nil {
			exprs := slices.Clone(el.Exprs)
			for j := range exprs {
				fixExpr(&exprs[j], fmt.Sprintf("element segment %d", i))
			}
			el.Exprs = exprs
		}
		if el.Mode == ElemActive {
			fixExpr(&el.Offset, fmt.Sprintf("element segment %d", i))
		}
	}
	for i := range m.Data {
		if m.Data[i].Mode == DataActive {
			fixExpr(&m.Data[i].Offset, fmt.Sprintf("data segment %d", i))
		}
	}
	for i := range m.Exports {
		if m.Exports[i].Kind == ExternFunc {
			m.Exports[i].Index = shift(m.Exports[i].Index)
		}
	}
	if m.Start != nil {
		s := shift(*m.Start)
		m.Start = &s
	}
	if m.Names != nil {
		// New maps, not edits in place: the snapshot Encode compares with
		// must not see the change.
		funcs := make(map[uint32]string, len(m.Names.Funcs)+int(n))
		for idx, name := range m.Names.Funcs {
			funcs[shift(idx)] = name
		}
		for i, imp := range imports {
			funcs[k+uint32(i)] = imp.Name
		}
		locals := make(map[uint32]map[uint32]string, len(m.Names.Locals))
		for idx, l := range m.Names.Locals {
			locals[shift(idx)] = l
		}
		ns := *m.Names
		ns.Funcs, ns.Locals = funcs, locals
		m.Names = &ns
	}
	if len(errs) > 0 {
		m.rewriteErr = errors.Join(m.rewriteErr, fmt.Errorf("wasmcore: adding import %s.%s: cannot renumber: %w", imports[0].Module, imports[0].Name, errors.Join(errs...)))
	}
	return k
}

// RedirectCalls makes every call, return_call and ref.func of a function
// in redirects, in every defined function, one of the function it maps to
// (of the same type: the caller sees to it), keeping each index's encoded
// width, so that no instruction offset moves. A body that cannot be
// decoded is an error, naming it.
func (m *Module) RedirectCalls(redirects map[uint32]uint32) error {
	if len(redirects) == 0 {
		return nil
	}
	redirect := func(idx uint32) uint32 {
		if to, ok := redirects[idx]; ok {
			return to
		}
		return idx
	}
	base := m.NumImportedFuncs()
	for i := range m.Functions {
		f := &m.Functions[i]
		body, err := renumberCode(f.Body, redirect)
		if err != nil {
			return fmt.Errorf("wasmcore: redirecting calls: function %d: %w", base+uint32(i), err)
		}
		f.Body = body
	}
	return nil
}

// renumberCode rewrites the function index of every call, return_call and
// ref.func in code through shift. It returns code itself when nothing
// changes, else a new slice. A rewritten index keeps its encoded width when
// it fits, so that instruction offsets do not move.
func renumberCode(code []byte, shift func(uint32) uint32) ([]byte, error) {
	ir := NewInstrReader(code)
	var out []byte
	var edits []BodyEdit
	for {
		in, ok, err := ir.Next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if in.Op != OpCall && in.Op != OpReturnCall && in.Op != OpRefFunc {
			continue
		}
		nv := shift(in.Index)
		if nv == in.Index {
			continue
		}
		if out == nil {
			out = bytes.Clone(code)
		}
		immAt, width := in.Offset+1, int(in.Len-1)
		if b, ok := appendPaddedU32(out[:immAt], nv, width); ok {
			_ = b // written in place: out[:immAt] had room for width bytes
			continue
		}
		edits = append(edits, BodyEdit{At: immAt, Remove: uint32(width), Insert: appendU32(nil, nv)})
	}
	if out == nil {
		return code, nil
	}
	if len(edits) > 0 {
		return EditBody(out, edits)
	}
	return out, nil
}

// BodyEdit replaces Remove bytes at offset At of a body with Insert.
type BodyEdit struct {
	At     uint32
	Remove uint32
	Insert []byte
}

// EditBody applies edits to a body without re-encoding anything else, and
// returns a new slice. Offsets refer to the original body; edits may come
// in any order but must not overlap (several insertions at one offset are
// applied in the order given).
func EditBody(body []byte, edits []BodyEdit) ([]byte, error) {
	sorted := slices.Clone(edits)
	slices.SortStableFunc(sorted, func(a, b BodyEdit) int {
		if a.At != b.At {
			if a.At < b.At {
				return -1
			}
			return 1
		}
		return 0
	})
	size := len(body)
	prevEnd := uint64(0)
	for i, e := range sorted {
		end := uint64(e.At) + uint64(e.Remove)
		if end > uint64(len(body)) {
			return nil, fmt.Errorf("wasmcore: EditBody: edit at %d removing %d bytes goes past the body (%d bytes)", e.At, e.Remove, len(body))
		}
		if i > 0 && uint64(e.At) < prevEnd {
			return nil, fmt.Errorf("wasmcore: EditBody: edit at %d overlaps the previous edit ending at %d", e.At, prevEnd)
		}
		prevEnd = end
		size += len(e.Insert) - int(e.Remove)
	}
	out := make([]byte, 0, size)
	pos := uint32(0)
	for _, e := range sorted {
		out = append(out, body[pos:e.At]...)
		out = append(out, e.Insert...)
		pos = e.At + e.Remove
	}
	return append(out, body[pos:]...), nil
}
