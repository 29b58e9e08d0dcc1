package wasmcore

// Compile-time check of the API other packages are written against
// (/tmp/wasmcore-api.md at the time of writing): changing a signature here
// breaks them.
var (
	_ func([]byte) (*Module, error)                         = Decode
	_ func(*Module) ([]byte, error)                         = (*Module).Encode
	_ func(*Module) uint32                                  = (*Module).NumImportedFuncs
	_ func(*Module) uint32                                  = (*Module).NumImportedGlobals
	_ func(*Module, uint32) (FuncType, error)               = (*Module).FuncTypeOf
	_ func(*Module, uint32) string                          = (*Module).FuncName
	_ func(*Module, string) (uint32, bool)                  = (*Module).ExportedFunc
	_ func(*Module) uint32                                  = (*Module).CodeSectionOffset
	_ func(Opcode) string                                   = Opcode.String
	_ func([]byte) ([]Instr, error)                         = DecodeInstructions
	_ func([]byte) *InstrReader                             = NewInstrReader
	_ func(*InstrReader) (Instr, bool, error)               = (*InstrReader).Next
	_ func([]byte, Instr) []byte                            = AppendInstr
	_ func(*Module, FuncType) uint32                        = (*Module).AddType
	_ func(*Module, Function) uint32                        = (*Module).AddFunction
	_ func(*Module, string, string, uint32) uint32          = (*Module).AddImportFunc
	_ func(*Module, Global) uint32                          = (*Module).AddGlobal
	_ func(*Module, string) bool                            = (*Module).RemoveExport
	_ func([]byte, []BodyEdit) ([]byte, error)              = EditBody
	_ func(*Module) (*Symbolizer, error)                    = NewSymbolizer
	_ func(*Symbolizer, uint32) string                      = (*Symbolizer).FuncName
	_ func(*Symbolizer, uint64) (string, int, string, bool) = (*Symbolizer).Lookup
	_ func(*Symbolizer) bool                                = (*Symbolizer).HasDWARF
	_ func(int32) ConstExpr                                 = ConstI32
	_ func(int64) ConstExpr                                 = ConstI64
	_ func(uint32) ConstExpr                                = ConstF32
	_ func(uint64) ConstExpr                                = ConstF64
	_ func(ConstExpr) (int32, bool)                         = ConstExpr.I32

	_ = Module{Types: []FuncType{}, Imports: []Import{}, Functions: []Function{}, Tables: []TableType{},
		Memories: []MemoryType{}, Globals: []Global{}, Exports: []Export{}, Start: new(uint32),
		Elements: []Element{}, DataCount: new(uint32), Data: []DataSegment{}, Customs: []CustomSection{},
		Names: &NameSection{}}
	_ = Import{Module: "", Name: "", Kind: ExternFunc, Func: 0, Table: TableType{Elem: ValFuncRef, Limits: Limits{Min: 0, Max: 0, HasMax: false, Shared: false, Is64: false}},
		Memory: MemoryType{Limits: Limits{}}, Global: GlobalType{Type: ValI32, Mutable: false}}
	_ = []ValType{ValI32, ValI64, ValF32, ValF64, ValV128, ValFuncRef, ValExternRef}
	_ = []ExternKind{ExternFunc, ExternTable, ExternMemory, ExternGlobal}
	_ = Element{Mode: ElemActive, Table: 0, Offset: ConstExpr{Code: nil}, Type: ValFuncRef, Funcs: nil, Exprs: nil}
	_ = []ElemMode{ElemActive, ElemPassive, ElemDeclarative}
	_ = DataSegment{Mode: DataPassive, Memory: 0, Offset: ConstExpr{}, Init: nil}
	_ = Function{Type: 0, Locals: []Local{{Count: 1, Type: ValI32}}, Body: nil, BodyOffset: 0}
	_ = CustomSection{Name: "", Data: nil, After: SectionCode}
	_ = NameSection{Module: "", Funcs: map[uint32]string{}, Locals: map[uint32]map[uint32]string{}, Globals: map[uint32]string{}, DataSegments: map[uint32]string{}}
	_ = Export{Name: "", Kind: ExternFunc, Index: 0}
	_ = Global{Type: GlobalType{}, Init: ConstExpr{}}
	_ = BodyEdit{At: 0, Remove: 0, Insert: nil}
	_ = MemArg{Align: 0, Offset: 0, Memory: 0}
	_ = Instr{Op: OpI32Load8U, Offset: 0, Len: 0, Index: 0, Index2: 0, Labels: nil, Block: -64, Mem: MemArg{},
		I32: 0, I64: 0, F32: 0, F64: 0, V128: [16]byte{}, Lane: 0, RefType: ValFuncRef, ValTypes: nil}
	_ = []Opcode{OpUnreachable, OpBlock, OpLoop, OpBrTable, OpCall, OpLocalGet, OpI32Load8U, OpI32Const,
		OpI32Add, OpI32Sub, OpMemoryInit, OpMemoryCopy, OpV128Load}
)
