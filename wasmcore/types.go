package wasmcore

import (
	"fmt"
	"math"
	"slices"
)

// ValType is a value type (numeric, vector or reference), as encoded in the
// binary format.
type ValType byte

// Value types.
const (
	ValI32       ValType = 0x7F
	ValI64       ValType = 0x7E
	ValF32       ValType = 0x7D
	ValF64       ValType = 0x7C
	ValV128      ValType = 0x7B
	ValFuncRef   ValType = 0x70
	ValExternRef ValType = 0x6F
)

func (t ValType) String() string {
	switch t {
	case ValI32:
		return "i32"
	case ValI64:
		return "i64"
	case ValF32:
		return "f32"
	case ValF64:
		return "f64"
	case ValV128:
		return "v128"
	case ValFuncRef:
		return "funcref"
	case ValExternRef:
		return "externref"
	}
	return fmt.Sprintf("valtype(0x%02x)", byte(t))
}

func validValType(t ValType) bool {
	switch t {
	case ValI32, ValI64, ValF32, ValF64, ValV128, ValFuncRef, ValExternRef:
		return true
	}
	return false
}

func validRefType(t ValType) bool { return t == ValFuncRef || t == ValExternRef }

// FuncType is a function signature.
type FuncType struct{ Params, Results []ValType }

// Equal reports whether two signatures are identical.
func (ft FuncType) Equal(o FuncType) bool {
	return slices.Equal(ft.Params, o.Params) && slices.Equal(ft.Results, o.Results)
}

func (ft FuncType) String() string {
	return fmt.Sprintf("%v -> %v", ft.Params, ft.Results)
}

// ExternKind is the kind of an import or export.
type ExternKind byte

// Import and export kinds.
const (
	ExternFunc   ExternKind = 0
	ExternTable  ExternKind = 1
	ExternMemory ExternKind = 2
	ExternGlobal ExternKind = 3
)

func (k ExternKind) String() string {
	switch k {
	case ExternFunc:
		return "func"
	case ExternTable:
		return "table"
	case ExternMemory:
		return "memory"
	case ExternGlobal:
		return "global"
	}
	return fmt.Sprintf("externkind(%d)", byte(k))
}

// SectionID identifies a section of the binary format.
type SectionID byte

// Section ids, in the numbering of the binary format (not their order in a
// module: the data count section, 12, comes before the code section).
const (
	SectionCustom    SectionID = 0
	SectionType      SectionID = 1
	SectionImport    SectionID = 2
	SectionFunction  SectionID = 3
	SectionTable     SectionID = 4
	SectionMemory    SectionID = 5
	SectionGlobal    SectionID = 6
	SectionExport    SectionID = 7
	SectionStart     SectionID = 8
	SectionElement   SectionID = 9
	SectionCode      SectionID = 10
	SectionData      SectionID = 11
	SectionDataCount SectionID = 12
)

var sectionNames = [...]string{"custom", "type", "import", "function", "table", "memory", "global", "export", "start", "element", "code", "data", "data count"}

func (id SectionID) String() string {
	if int(id) < len(sectionNames) {
		return sectionNames[id]
	}
	return fmt.Sprintf("section(%d)", byte(id))
}

// sectionRank is the position of a known section in a module: sections
// must appear in this order, and Encode writes them in it.
func sectionRank(id SectionID) int {
	switch id {
	case SectionCustom:
		return 0
	case SectionDataCount:
		return 10 // between element (9) and code
	case SectionCode:
		return 11
	case SectionData:
		return 12
	}
	if id <= SectionElement {
		return int(id)
	}
	return 13 // unknown: after everything
}

// encodeOrder lists the known sections in the order a module holds them.
var encodeOrder = [...]SectionID{SectionType, SectionImport, SectionFunction, SectionTable, SectionMemory,
	SectionGlobal, SectionExport, SectionStart, SectionElement, SectionDataCount, SectionCode, SectionData}

// Limits bounds the size of a table or memory. Min and Max are in elements
// or pages. Shared and Is64 come from the threads and memory64 proposals.
type Limits struct {
	Min    uint64
	Max    uint64
	HasMax bool
	Shared bool
	Is64   bool
}

// TableType is the type of a table.
type TableType struct {
	Elem   ValType
	Limits Limits
}

// MemoryType is the type of a memory.
type MemoryType struct{ Limits Limits }

// GlobalType is the type of a global.
type GlobalType struct {
	Type    ValType
	Mutable bool
}

// Import is one entry of the import section. Only the field matching Kind
// is meaningful.
type Import struct {
	Module, Name string
	Kind         ExternKind
	Func         uint32 // type index, Kind == ExternFunc
	Table        TableType
	Memory       MemoryType
	Global       GlobalType
}

// ConstExpr is a constant expression: the instruction bytes including the
// final 0x0B end. It is kept as bytes, not decoded values, because the
// extended-const proposal allows arbitrary sequences and because keeping the
// bytes keeps padded LEBs intact.
type ConstExpr struct{ Code []byte }

// ConstI32 returns `i32.const v; end`.
func ConstI32(v int32) ConstExpr {
	return ConstExpr{Code: append(appendS64([]byte{byte(OpI32Const)}, int64(v)), byte(OpEnd))}
}

// ConstI64 returns `i64.const v; end`.
func ConstI64(v int64) ConstExpr {
	return ConstExpr{Code: append(appendS64([]byte{byte(OpI64Const)}, v), byte(OpEnd))}
}

// ConstF32 returns `f32.const v; end` for the float bits v.
func ConstF32(bits uint32) ConstExpr {
	c := []byte{byte(OpF32Const), byte(bits), byte(bits >> 8), byte(bits >> 16), byte(bits >> 24), byte(OpEnd)}
	return ConstExpr{Code: c}
}

// ConstF64 returns `f64.const v; end` for the float bits v.
func ConstF64(bits uint64) ConstExpr {
	c := []byte{byte(OpF64Const)}
	for i := 0; i < 8; i++ {
		c = append(c, byte(bits>>(8*i)))
	}
	return ConstExpr{Code: append(c, byte(OpEnd))}
}

// ConstRefFunc returns `ref.func idx; end`.
func ConstRefFunc(idx uint32) ConstExpr {
	return ConstExpr{Code: append(appendU32([]byte{byte(OpRefFunc)}, idx), byte(OpEnd))}
}

// ConstRefNull returns `ref.null t; end`.
func ConstRefNull(t ValType) ConstExpr {
	return ConstExpr{Code: []byte{byte(OpRefNull), byte(t), byte(OpEnd)}}
}

// single decodes c when it is exactly one instruction followed by end.
func (c ConstExpr) single() (Instr, bool) {
	r := NewInstrReader(c.Code)
	in, ok, err := r.Next()
	if !ok || err != nil {
		return Instr{}, false
	}
	end, ok, err := r.Next()
	if !ok || err != nil || end.Op != OpEnd || int(end.Offset+end.Len) != len(c.Code) {
		return Instr{}, false
	}
	return in, true
}

// I32 returns v if the expression is exactly `i32.const v; end`.
func (c ConstExpr) I32() (int32, bool) {
	in, ok := c.single()
	if !ok || in.Op != OpI32Const {
		return 0, false
	}
	return in.I32, true
}

// I64 returns v if the expression is exactly `i64.const v; end`.
func (c ConstExpr) I64() (int64, bool) {
	in, ok := c.single()
	if !ok || in.Op != OpI64Const {
		return 0, false
	}
	return in.I64, true
}

// GlobalGet returns idx if the expression is exactly `global.get idx; end`.
func (c ConstExpr) GlobalGet() (uint32, bool) {
	in, ok := c.single()
	if !ok || in.Op != OpGlobalGet {
		return 0, false
	}
	return in.Index, true
}

// RefFunc returns idx if the expression is exactly `ref.func idx; end`.
func (c ConstExpr) RefFunc() (uint32, bool) {
	in, ok := c.single()
	if !ok || in.Op != OpRefFunc {
		return 0, false
	}
	return in.Index, true
}

// F32 returns the float if the expression is exactly `f32.const; end`.
func (c ConstExpr) F32() (float32, bool) {
	in, ok := c.single()
	if !ok || in.Op != OpF32Const {
		return 0, false
	}
	return math.Float32frombits(in.F32), true
}

// F64 returns the float if the expression is exactly `f64.const; end`.
func (c ConstExpr) F64() (float64, bool) {
	in, ok := c.single()
	if !ok || in.Op != OpF64Const {
		return 0, false
	}
	return math.Float64frombits(in.F64), true
}

// Global is a global defined by the module.
type Global struct {
	Type GlobalType
	Init ConstExpr
}

// Export is one entry of the export section.
type Export struct {
	Name  string
	Kind  ExternKind
	Index uint32
}

// ElemMode is the mode of an element segment.
type ElemMode byte

// Element segment modes.
const (
	ElemActive      ElemMode = 0
	ElemPassive     ElemMode = 1
	ElemDeclarative ElemMode = 2
)

func (m ElemMode) String() string {
	switch m {
	case ElemActive:
		return "active"
	case ElemPassive:
		return "passive"
	case ElemDeclarative:
		return "declarative"
	}
	return fmt.Sprintf("elemmode(%d)", byte(m))
}

// Element is an element segment, covering all eight binary encodings.
// Exactly one of Funcs and Exprs describes the items: Funcs when the
// segment lists function indices, Exprs when it lists expressions (a
// non-nil Exprs selects the expression encodings even when empty).
type Element struct {
	Mode   ElemMode
	Table  uint32    // ElemActive only
	Offset ConstExpr // ElemActive only
	Type   ValType   // element type: ValFuncRef or ValExternRef
	Funcs  []uint32
	Exprs  []ConstExpr
}

// DataMode is the mode of a data segment.
type DataMode byte

// Data segment modes.
const (
	DataActive  DataMode = 0
	DataPassive DataMode = 1
)

// DataSegment is one entry of the data section.
type DataSegment struct {
	Mode   DataMode
	Memory uint32    // DataActive only
	Offset ConstExpr // DataActive only
	Init   []byte
}

// Local declares Count locals of type Type.
type Local struct {
	Count uint32
	Type  ValType
}

// Function is a function defined by the module: its signature from the
// function section and its code from the code section.
type Function struct {
	Type       uint32 // type index
	Locals     []Local
	Body       []byte // instruction bytes, including the final 0x0B end
	BodyOffset uint32 // file offset of Body[0] in the decoded binary (0 for functions added later)
}

// CustomSection is a custom section, kept in place: After is the id of the
// known section it followed in the binary (SectionCustom, 0, when it came
// before all known sections). Encode writes it at the same place.
type CustomSection struct {
	Name  string
	Data  []byte
	After SectionID
}

// NameSection is the parsed "name" custom section. Keys are function,
// local, global and data segment indices (function and global indices count
// imports first). Subsections not represented here (labels, types, tables,
// ...) are kept as they were and written back unchanged.
type NameSection struct {
	Module       string
	Funcs        map[uint32]string
	Locals       map[uint32]map[uint32]string
	Globals      map[uint32]string
	DataSegments map[uint32]string
}

func cloneTypes(ts []FuncType) []FuncType {
	out := make([]FuncType, len(ts))
	for i, t := range ts {
		out[i] = FuncType{Params: append([]ValType(nil), t.Params...), Results: append([]ValType(nil), t.Results...)}
	}
	return out
}
