package wasmcore

import (
	"bytes"
	"fmt"
	"io"
	"slices"
)

// Encode writes the module in the binary format.
//
// A module from Decode that was not changed is written back byte for byte.
// Each section, function body, data and element segment, and custom section
// that still equals what was decoded is copied from the original, so
// unchanged parts keep their exact bytes (including padded LEB128s) even
// when other parts were edited; whatever differs is encoded canonically.
// Changes are found by comparison, so plain assignments to the fields are
// all that is needed.
func (m *Module) Encode() ([]byte, error) {
	return newEncoder(m, nil).encode()
}

// EncodeTo writes what Encode returns to w, a section at a time, without
// holding the whole module: the unchanged parts are written from the bytes
// decoded. A digest of a module (a cache's key) costs no copy of it.
func (m *Module) EncodeTo(w io.Writer) error {
	_, err := newEncoder(m, w).encode()
	return err
}

func newEncoder(m *Module, w io.Writer) *encoder {
	e := &encoder{m: m, s: m.src, w: w}
	if e.s == nil {
		e.s = &source{} // nothing to reuse: everything is encoded
	}
	return e
}

type encoder struct {
	m *Module
	s *source
	// w, when set, is written what is encoded as it goes (EncodeTo):
	// out then holds a section at most, and werr is the first error.
	w    io.Writer
	werr error
}

// put appends b to out, or, when writing to w, writes out and then b,
// and returns out emptied: large parts copied from the decoded bytes are
// not copied again.
func (e *encoder) put(out, b []byte) []byte {
	if e.w == nil {
		return append(out, b...)
	}
	out = e.flush(out)
	e.write(b)
	return out
}

// flush writes out to w, if writing to one, and returns it emptied.
func (e *encoder) flush(out []byte) []byte {
	if e.w == nil {
		return out
	}
	e.write(out)
	return out[:0]
}

func (e *encoder) write(b []byte) {
	if e.werr == nil && len(b) > 0 {
		_, e.werr = e.w.Write(b)
	}
}

func (e *encoder) encode() ([]byte, error) {
	m, s := e.m, e.s
	if m.rewriteErr != nil {
		return nil, m.rewriteErr
	}
	size := len(s.raw) + len(s.raw)/16 + 64
	if e.w != nil {
		size = 64 << 10
	}
	out := make([]byte, 0, size)
	if len(s.raw) >= 8 {
		out = append(out, s.raw[:8]...)
	} else {
		out = append(out, 0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00)
	}

	// Custom sections are written after the known section they followed;
	// a stable sort by that section's rank keeps their relative order.
	customs := make([]int, len(m.Customs))
	for i := range customs {
		customs[i] = i
	}
	slices.SortStableFunc(customs, func(a, b int) int {
		return sectionRank(m.Customs[a].After) - sectionRank(m.Customs[b].After)
	})
	namesChanged := m.Names != nil && !m.Names.equal(s.names)
	wroteNames := false
	ci := 0
	flush := func(rank int) {
		for ; ci < len(customs) && sectionRank(m.Customs[customs[ci]].After) < rank; ci++ {
			idx := customs[ci]
			c := m.Customs[idx]
			if c.Name == "name" && namesChanged && !wroteNames {
				wroteNames = true
				out = e.custom(out, c.Name, encodeNames(m.Names, s.nameExtra))
				continue
			}
			if raw := s.customRaw(idx, c); raw != nil {
				out = e.put(out, raw)
				continue
			}
			out = e.custom(out, c.Name, c.Data)
		}
	}
	flush(sectionRank(SectionType))
	for _, id := range encodeOrder {
		flush(sectionRank(id))
		var err error
		if out, err = e.section(out, id); err != nil {
			return nil, err
		}
		out = e.flush(out)
	}
	flush(1 << 30)
	if namesChanged && !wroteNames {
		out = e.custom(out, "name", encodeNames(m.Names, s.nameExtra))
	}
	if e.w != nil {
		e.flush(out)
		return nil, e.werr
	}
	return out, nil
}

// custom appends a custom section (appendCustom), its data put as large
// parts are.
func (e *encoder) custom(out []byte, name string, data []byte) []byte {
	size := sizeU32(uint32(len(name))) + len(name) + len(data)
	out = append(out, byte(SectionCustom))
	out = appendU32(out, uint32(size))
	out = appendName(out, name)
	return e.put(out, data)
}

// AppendCustomSection appends a custom section to an encoded module: valid
// anywhere after the header, and cheaper than decoding and encoding again.
func AppendCustomSection(module []byte, name string, data []byte) []byte {
	return appendCustom(module, name, data)
}

func appendCustom(out []byte, name string, data []byte) []byte {
	size := sizeU32(uint32(len(name))) + len(name) + len(data)
	out = append(out, byte(SectionCustom))
	out = appendU32(out, uint32(size))
	out = appendName(out, name)
	return append(out, data...)
}

// customRaw returns the original bytes of a custom section equal to c,
// preferring the one at the same position.
func (s *source) customRaw(idx int, c CustomSection) []byte {
	match := func(sc srcCustom) bool { return sc.name == c.Name && bytes.Equal(sc.data, c.Data) }
	if idx < len(s.customs) && match(s.customs[idx]) {
		return s.customs[idx].entry
	}
	for _, sc := range s.customs {
		if match(sc) {
			return sc.entry
		}
	}
	return nil
}

func (e *encoder) section(out []byte, id SectionID) ([]byte, error) {
	s := e.s
	if sp := s.secs[id]; sp.present && e.unchanged(id) {
		return e.put(out, s.raw[sp.start:sp.end]), nil
	}
	switch id {
	case SectionCode:
		return e.code(out)
	case SectionData:
		return e.data(out)
	}
	// The payload is encoded in place, after room for the longest size
	// (5 bytes), then moved back over what its size does not take: it is
	// not built in a buffer of its own and copied from there.
	start := len(out)
	out = append(out, byte(id), 0, 0, 0, 0, 0)
	payloadAt := start + 1 + maxU32Len
	out, present, err := e.payload(id, out)
	if err != nil {
		return nil, err
	}
	if !present {
		return out[:start], nil
	}
	var sizeBuf [maxU32Len]byte
	size := appendU32(sizeBuf[:0], uint32(len(out)-payloadAt))
	n := copy(out[start+1:], size)
	n += copy(out[start+1+n:], out[payloadAt:])
	return out[:start+1+n], nil
}

// code appends the code section, which has changed: its size is added up
// first, so that the functions, most of them the entries decoded, are put
// in place (a megabyte, for an engine) rather than built apart and copied.
func (e *encoder) code(out []byte) ([]byte, error) {
	m, s := e.m, e.s
	if len(m.Functions) == 0 {
		return out, nil
	}
	nImp := int(m.NumImportedFuncs())
	size := sizeU32(uint32(len(m.Functions)))
	for i := range m.Functions {
		f := &m.Functions[i]
		if s.funcUnchanged(i, f) {
			size += len(s.funcs[i].entry)
			continue
		}
		if len(f.Body) == 0 || f.Body[len(f.Body)-1] != byte(OpEnd) {
			return nil, fmt.Errorf("wasmcore: encode: function %d: body does not end with end (0x0b)", nImp+i)
		}
		n := localsSize(f.Locals) + len(f.Body)
		size += sizeU32(uint32(n)) + n
	}
	out = append(out, byte(SectionCode))
	out = appendU32(out, uint32(size))
	out = appendU32(out, uint32(len(m.Functions)))
	for i := range m.Functions {
		f := &m.Functions[i]
		if s.funcUnchanged(i, f) {
			out = e.put(out, s.funcs[i].entry)
			continue
		}
		out = appendU32(out, uint32(localsSize(f.Locals)+len(f.Body)))
		out = appendU32(out, uint32(len(f.Locals)))
		for _, l := range f.Locals {
			out = appendU32(out, l.Count)
			out = append(out, byte(l.Type))
		}
		out = e.put(out, f.Body)
	}
	return out, nil
}

// data appends the data section, which has changed, as code appends the
// code section: its size first, then the segments, most of them the
// entries decoded, put in place.
func (e *encoder) data(out []byte) ([]byte, error) {
	m, s := e.m, e.s
	if len(m.Data) == 0 {
		return out, nil
	}
	unchanged := func(i int) bool { return i < len(s.data) && equalData(m.Data[i], s.data[i]) }
	var hdr []byte
	size := sizeU32(uint32(len(m.Data)))
	for i := range m.Data {
		if unchanged(i) {
			size += len(s.dataRaw[i])
			continue
		}
		var err error
		if hdr, err = appendDataHeader(hdr[:0], &m.Data[i], i); err != nil {
			return nil, err
		}
		size += len(hdr) + len(m.Data[i].Init)
	}
	out = append(out, byte(SectionData))
	out = appendU32(out, uint32(size))
	out = appendU32(out, uint32(len(m.Data)))
	for i := range m.Data {
		if unchanged(i) {
			out = e.put(out, s.dataRaw[i])
			continue
		}
		out, _ = appendDataHeader(out, &m.Data[i], i) // checked above
		out = e.put(out, m.Data[i].Init)
	}
	return out, nil
}

// appendDataHeader appends a data segment's encoding up to its bytes: its
// mode, memory and offset, and its length.
func appendDataHeader(b []byte, ds *DataSegment, i int) ([]byte, error) {
	switch ds.Mode {
	case DataActive:
		if ds.Memory != 0 {
			b = append(b, 2)
			b = appendU32(b, ds.Memory)
		} else {
			b = append(b, 0)
		}
		var err error
		if b, err = appendConstExpr(b, ds.Offset, "data segment", i); err != nil {
			return nil, err
		}
	case DataPassive:
		b = append(b, 1)
	default:
		return nil, fmt.Errorf("wasmcore: encode: data segment %d: invalid mode %d", i, ds.Mode)
	}
	return appendU32(b, uint32(len(ds.Init))), nil
}

// localsSize is the size of a function's encoded locals.
func localsSize(ls []Local) int {
	n := sizeU32(uint32(len(ls)))
	for _, l := range ls {
		n += sizeU32(l.Count) + 1
	}
	return n
}

// maxU32Len is the longest LEB128 encoding of a u32.
const maxU32Len = 5

// unchanged reports whether section id still holds what was decoded.
func (e *encoder) unchanged(id SectionID) bool {
	m, s := e.m, e.s
	switch id {
	case SectionType:
		return slices.EqualFunc(m.Types, s.types, FuncType.Equal)
	case SectionImport:
		return slices.Equal(m.Imports, s.imports)
	case SectionFunction:
		if len(m.Functions) != len(s.funcTypes) {
			return false
		}
		for i := range m.Functions {
			if m.Functions[i].Type != s.funcTypes[i] {
				return false
			}
		}
		return true
	case SectionTable:
		return slices.Equal(m.Tables, s.tables)
	case SectionMemory:
		return slices.Equal(m.Memories, s.memories)
	case SectionGlobal:
		return slices.EqualFunc(m.Globals, s.globals, func(a, b Global) bool {
			return a.Type == b.Type && bytes.Equal(a.Init.Code, b.Init.Code)
		})
	case SectionExport:
		return slices.Equal(m.Exports, s.exports)
	case SectionStart:
		return (m.Start != nil) == s.hasStart && (m.Start == nil || *m.Start == s.start)
	case SectionElement:
		return slices.EqualFunc(m.Elements, s.elements, equalElement)
	case SectionDataCount:
		return (m.DataCount != nil) == s.hasDCount && (m.DataCount == nil || *m.DataCount == s.dataCount)
	case SectionCode:
		if len(m.Functions) != len(s.funcs) {
			return false
		}
		for i := range m.Functions {
			if !s.funcUnchanged(i, &m.Functions[i]) {
				return false
			}
		}
		return true
	case SectionData:
		return slices.EqualFunc(m.Data, s.data, equalData)
	}
	return false
}

func (s *source) funcUnchanged(i int, f *Function) bool {
	if i >= len(s.funcs) {
		return false
	}
	sf := &s.funcs[i]
	return bytes.Equal(f.Body, sf.body) && slices.Equal(f.Locals, sf.locals)
}

func equalElement(a, b Element) bool {
	return a.Mode == b.Mode && a.Table == b.Table && a.Type == b.Type &&
		bytes.Equal(a.Offset.Code, b.Offset.Code) && slices.Equal(a.Funcs, b.Funcs) &&
		(a.Exprs == nil) == (b.Exprs == nil) &&
		slices.EqualFunc(a.Exprs, b.Exprs, func(x, y ConstExpr) bool { return bytes.Equal(x.Code, y.Code) })
}

func equalData(a, b DataSegment) bool {
	return a.Mode == b.Mode && a.Memory == b.Memory && bytes.Equal(a.Offset.Code, b.Offset.Code) && bytes.Equal(a.Init, b.Init)
}

// payload encodes section id canonically (reusing the original bytes of
// unchanged items). present is false when the section would be empty and
// is left out.
func (e *encoder) payload(id SectionID, b []byte) (_ []byte, present bool, err error) {
	m, s := e.m, e.s
	switch id {
	case SectionType:
		if len(m.Types) == 0 {
			return b, false, nil
		}
		b = appendU32(b, uint32(len(m.Types)))
		for _, t := range m.Types {
			b = append(b, 0x60)
			b = appendValTypes(b, t.Params)
			b = appendValTypes(b, t.Results)
		}
	case SectionImport:
		if len(m.Imports) == 0 {
			return b, false, nil
		}
		b = appendU32(b, uint32(len(m.Imports)))
		for i, im := range m.Imports {
			b = appendName(b, im.Module)
			b = appendName(b, im.Name)
			b = append(b, byte(im.Kind))
			switch im.Kind {
			case ExternFunc:
				b = appendU32(b, im.Func)
			case ExternTable:
				b = appendTableType(b, im.Table)
			case ExternMemory:
				b = appendLimits(b, im.Memory.Limits)
			case ExternGlobal:
				b = appendGlobalType(b, im.Global)
			default:
				return nil, false, fmt.Errorf("wasmcore: encode: import %d: invalid kind %d", i, im.Kind)
			}
		}
	case SectionFunction:
		if len(m.Functions) == 0 {
			return b, false, nil
		}
		b = appendU32(b, uint32(len(m.Functions)))
		for _, f := range m.Functions {
			b = appendU32(b, f.Type)
		}
	case SectionTable:
		if len(m.Tables) == 0 {
			return b, false, nil
		}
		b = appendU32(b, uint32(len(m.Tables)))
		for _, t := range m.Tables {
			b = appendTableType(b, t)
		}
	case SectionMemory:
		if len(m.Memories) == 0 {
			return b, false, nil
		}
		b = appendU32(b, uint32(len(m.Memories)))
		for _, mem := range m.Memories {
			b = appendLimits(b, mem.Limits)
		}
	case SectionGlobal:
		if len(m.Globals) == 0 {
			return b, false, nil
		}
		b = appendU32(b, uint32(len(m.Globals)))
		for i, g := range m.Globals {
			b = appendGlobalType(b, g.Type)
			if b, err = appendConstExpr(b, g.Init, "global", int(m.NumImportedGlobals())+i); err != nil {
				return nil, false, err
			}
		}
	case SectionExport:
		if len(m.Exports) == 0 {
			return b, false, nil
		}
		b = appendU32(b, uint32(len(m.Exports)))
		for _, ex := range m.Exports {
			b = appendName(b, ex.Name)
			b = append(b, byte(ex.Kind))
			b = appendU32(b, ex.Index)
		}
	case SectionStart:
		if m.Start == nil {
			return b, false, nil
		}
		b = appendU32(b, *m.Start)
	case SectionElement:
		if len(m.Elements) == 0 {
			return b, false, nil
		}
		b = appendU32(b, uint32(len(m.Elements)))
		for i := range m.Elements {
			el := &m.Elements[i]
			if i < len(s.elements) && equalElement(*el, s.elements[i]) {
				b = append(b, s.elemRaw[i]...)
				continue
			}
			if b, err = appendElement(b, el, i); err != nil {
				return nil, false, err
			}
		}
	case SectionDataCount:
		if m.DataCount == nil {
			return b, false, nil
		}
		b = appendU32(b, *m.DataCount)
	}
	return b, true, nil
}

func appendValTypes(b []byte, ts []ValType) []byte {
	b = appendU32(b, uint32(len(ts)))
	for _, t := range ts {
		b = append(b, byte(t))
	}
	return b
}

func appendLimits(b []byte, l Limits) []byte {
	var flags byte
	if l.HasMax {
		flags |= 1
	}
	if l.Shared {
		flags |= 2
	}
	if l.Is64 {
		flags |= 4
	}
	b = append(b, flags)
	b = appendU64(b, l.Min)
	if l.HasMax {
		b = appendU64(b, l.Max)
	}
	return b
}

func appendTableType(b []byte, t TableType) []byte {
	return appendLimits(append(b, byte(t.Elem)), t.Limits)
}

func appendGlobalType(b []byte, g GlobalType) []byte {
	b = append(b, byte(g.Type))
	if g.Mutable {
		return append(b, 1)
	}
	return append(b, 0)
}

func appendConstExpr(b []byte, c ConstExpr, what string, idx int) ([]byte, error) {
	if len(c.Code) == 0 || c.Code[len(c.Code)-1] != byte(OpEnd) {
		return nil, fmt.Errorf("wasmcore: encode: %s %d: constant expression does not end with end (0x0b)", what, idx)
	}
	return append(b, c.Code...), nil
}

// appendElement picks the most compact of the eight encodings that can
// express el.
func appendElement(b []byte, el *Element, idx int) ([]byte, error) {
	typ := el.Type
	if typ == 0 {
		typ = ValFuncRef
	}
	exprs := el.Exprs != nil || typ != ValFuncRef
	if exprs && len(el.Funcs) > 0 {
		if el.Exprs != nil {
			return nil, fmt.Errorf("wasmcore: encode: element segment %d: both Funcs and Exprs are set", idx)
		}
		return nil, fmt.Errorf("wasmcore: encode: element segment %d: function indices for element type %v", idx, typ)
	}
	var flags uint32
	switch el.Mode {
	case ElemActive:
		if el.Table != 0 || typ != ValFuncRef {
			flags = 2
		}
	case ElemPassive:
		flags = 1
	case ElemDeclarative:
		flags = 3
	default:
		return nil, fmt.Errorf("wasmcore: encode: element segment %d: invalid mode %d", idx, el.Mode)
	}
	if exprs {
		flags |= 4
	}
	b = appendU32(b, flags)
	var err error
	if el.Mode == ElemActive {
		if flags&2 != 0 {
			b = appendU32(b, el.Table)
		}
		if b, err = appendConstExpr(b, el.Offset, "element segment", idx); err != nil {
			return nil, err
		}
	}
	if flags&3 != 0 {
		if exprs {
			b = append(b, byte(typ))
		} else {
			b = append(b, 0x00) // elemkind funcref
		}
	}
	if exprs {
		b = appendU32(b, uint32(len(el.Exprs)))
		for _, x := range el.Exprs {
			if b, err = appendConstExpr(b, x, "element segment", idx); err != nil {
				return nil, err
			}
		}
		return b, nil
	}
	b = appendU32(b, uint32(len(el.Funcs)))
	for _, f := range el.Funcs {
		b = appendU32(b, f)
	}
	return b, nil
}
