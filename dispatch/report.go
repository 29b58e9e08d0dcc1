package dispatch

// Engine families.
const (
	FamilyQuickJS   = "quickjs"    // Fabrice Bellard's QuickJS
	FamilyQuickJSNG = "quickjs-ng" // QuickJS-NG
	FamilyUnknown   = "unknown"
)

// Sources of opcode names (Engine.OpcodeNamesSource).
const (
	NamesDWARF   = "dwarf"         // the OPCodeEnum enumerators of the binary's DWARF
	NamesBinary  = "binary"        // the name pointers of the binary's opcode_info[] records
	NamesTable   = "table"         // a catalog table that matches opcode_info[] exactly
	NamesAligned = "aligned-table" // the nearest catalog table, by alignment
	NamesNone    = "none"
)

// Engine identification methods (Engine.Match).
const (
	MatchExact   = "exact"   // opcode_info[] equals a catalog table
	MatchAligned = "aligned" // opcode_info[] is close to a catalog table
	MatchDWARF   = "dwarf"   // identified by the DWARF OPCodeEnum only
	MatchNames   = "names"   // only the name section says QuickJS
	MatchNone    = "none"
)

// Javy module kinds (Javy.Kind).
const (
	JavyStatic  = "static"  // QuickJS plus the program's bytecode in one module
	JavyDynamic = "dynamic" // a small module importing invoke/memory from a plugin
	JavyPlugin  = "plugin"  // the QuickJS plugin a dynamic module links to
	JavyOlder   = "older"   // a 2021-2023 Javy module (shopify_main, stdin)
	JavyNone    = "none"
)

// Report is the result of Analyze. It is JSON-serialisable; docs/analyze.md
// documents the schema.
type Report struct {
	// Dispatch is the interpreter's dispatch, nil when none was found.
	Dispatch *Dispatch `json:"dispatch"`
	// Reason says why Dispatch was chosen, or why none was.
	Reason string `json:"reason"`
	// Candidates are the br_tables considered, best first.
	Candidates []Candidate `json:"candidates"`
	// OmittedCandidates counts br_tables left out of Candidates.
	OmittedCandidates int    `json:"omitted_candidates"`
	Engine            Engine `json:"engine"`
	Javy              Javy   `json:"javy"`
	Module            Module `json:"module"`
}

// Module summarises the analysed module.
type Module struct {
	Functions         int  `json:"functions"` // defined functions
	ImportedFunctions int  `json:"imported_functions"`
	CodeBytes         int  `json:"code_bytes"` // sum of the function bodies
	DataSegments      int  `json:"data_segments"`
	NameSection       bool `json:"name_section"`
	DWARF             bool `json:"dwarf"`
}

// Dispatch locates the interpreter's opcode dispatch.
type Dispatch struct {
	// FunctionIndex is the dispatch function (imports first, as
	// wasm-objdump numbers functions).
	FunctionIndex uint32 `json:"function_index"`
	FunctionName  string `json:"function_name"` // from the name section, "" when unnamed
	// BrTableOffset is the file offset of the dispatch br_table (the
	// function's BodyOffset plus the instruction's offset in the body, the
	// address wasm-objdump -d prints); BrTableBodyOffset is the offset
	// within the function body.
	BrTableOffset     uint32 `json:"br_table_offset"`
	BrTableBodyOffset uint32 `json:"br_table_body_offset"`
	// OpcodeCount is the number of opcode values the dispatch handles:
	// one more than the largest opcode reaching a br_table entry other
	// than the default.
	OpcodeCount int `json:"opcode_count"`
	// DistinctHandlers counts the different targets those opcodes reach.
	DistinctHandlers int     `json:"distinct_handlers"`
	Confidence       float64 `json:"confidence"`

	Selector Selector `json:"selector"`
	// PC says where the bytecode pointer lives.
	PC PC `json:"pc"`
	// OpcodeTargets maps each opcode value below OpcodeCount to the
	// br_table label (relative branch depth) it takes; DefaultTarget is
	// the default label.
	OpcodeTargets []uint32 `json:"opcode_targets"`
	DefaultTarget uint32   `json:"default_target"`
	// HandlerOffsets gives, per opcode value, the file offset of the
	// instruction where its handler begins (where the br_table branch
	// lands).
	HandlerOffsets []uint32 `json:"handler_offsets"`
	// OtherBrTables are file offsets of further br_tables of the same
	// function dispatching on the same opcode loads.
	OtherBrTables []uint32 `json:"other_br_tables,omitempty"`
	// LoopOffset is the file offset of the loop enclosing the dispatch.
	LoopOffset uint32 `json:"loop_offset"`
	// SelfRecursive: the function calls itself directly.
	SelfRecursive bool `json:"self_recursive"`
	// BytecodePointer is how the function obtains the bytecode pointer
	// from its arguments, when the code shows it.
	BytecodePointer *BytecodePointer `json:"bytecode_pointer,omitempty"`
}

// Selector describes how the opcode byte becomes the br_table index.
type Selector struct {
	// Kind is "direct" (index = opcode - Bias) or "lookup" (index =
	// table[opcode] - Bias, the table in a data segment).
	Kind string `json:"kind"`
	Bias int64  `json:"bias"`
	// ByteLoads are the file offsets of the byte loads (i32.load8_u)
	// reading the opcode.
	ByteLoads []uint32 `json:"byte_loads"`
	// Table* describe the lookup table (Kind "lookup").
	TableAddress uint64 `json:"table_address,omitempty"`
	TableWidth   int    `json:"table_width,omitempty"` // bytes per entry
	TableBias    int64  `json:"table_bias,omitempty"`  // entry = table[opcode - TableBias]
	// RangeGuard is the bound a comparison puts on the table index
	// (index < RangeGuard), 0 when none was found.
	RangeGuard uint64 `json:"range_guard,omitempty"`
	// Expr renders the selector's provenance, e.g.
	// "load8_u(local 10) - 1".
	Expr string `json:"expr"`
}

// PC is the location of the bytecode pointer: a local, or a memory slot
// (the unoptimized code's stack frame) at BaseLocal + Offset.
type PC struct {
	Kind      string `json:"kind"` // "local", "memory" or "unknown"
	Local     uint32 `json:"local"`
	BaseLocal uint32 `json:"base_local,omitempty"`
	Offset    uint64 `json:"offset,omitempty"`
	// Strides are the distinct constant increments applied to the pc.
	Strides []int64 `json:"strides"`
	// OperandReads counts loads at a constant offset from the pc.
	OperandReads int `json:"operand_reads"`
}

// BytecodePointer describes the chain of loads producing the initial pc:
// pc = *(...*(param + Path[0]) ... + Path[n-1]).
type BytecodePointer struct {
	// Param is the function parameter the chain starts from (for
	// JS_CallInternal: the function object, a NaN-boxed JSValue).
	Param int `json:"param"`
	// Wrapped: the parameter is an i64 whose low 32 bits are the pointer.
	Wrapped bool `json:"wrapped"`
	// Path lists the load offsets, outermost first. For QuickJS it is
	// [offsetof(JSObject, u.func.function_bytecode),
	// offsetof(JSFunctionBytecode, byte_code_buf)].
	Path []uint64 `json:"path"`
	// ClassIDOffset/ClassID: a 16-bit field of the object compared with
	// a constant before the bytecode is used (JSObject.class_id ==
	// JS_CLASS_BYTECODE_FUNCTION); absent when not seen.
	ClassIDOffset *uint64 `json:"class_id_offset,omitempty"`
	ClassID       *int64  `json:"class_id,omitempty"`
	Expr          string  `json:"expr"`
}

// Candidate is one br_table considered as the dispatch, with its evidence.
type Candidate struct {
	FunctionIndex uint32 `json:"function_index"`
	FunctionName  string `json:"function_name"`
	BrTableOffset uint32 `json:"br_table_offset"`
	Entries       int    `json:"entries"` // br_table labels, default excluded
	// Selector is "direct", "lookup" or "other" (not from a byte load).
	Selector         string  `json:"selector"`
	SelectorExpr     string  `json:"selector_expr"`
	Bias             int64   `json:"bias"`
	OpcodeCount      int     `json:"opcode_count"`
	DistinctHandlers int     `json:"distinct_handlers"`
	PCKind           string  `json:"pc_kind"` // "local", "memory" or "" (no loop-carried pointer)
	PCStrides        []int64 `json:"pc_strides"`
	OperandReads     int     `json:"operand_reads"`
	InLoop           bool    `json:"in_loop"` // the byte load is in the loop around the br_table
	FunctionSize     int     `json:"function_size"`
	SizeRank         int     `json:"size_rank"` // 1 = largest function
	SelfRecursive    bool    `json:"self_recursive"`
	// KnownCount says how OpcodeCount compares with the catalog:
	// "engine" (equals the identified engine's), "catalog" (equals some
	// known table's) or "".
	KnownCount string   `json:"known_count"`
	Confidence float64  `json:"confidence"`
	Evidence   []string `json:"evidence"`

	fn    *funcAnalysis
	bt    *brTableSite
	sel   *selection
	score float64
}

// Engine identifies the JavaScript engine.
type Engine struct {
	Family   string   `json:"family"` // quickjs, quickjs-ng or unknown
	Releases []string `json:"releases"`
	// Tables are the catalog tables matched (several when their
	// opcode_info[] bytes are identical).
	Tables []TableRef `json:"tables"`
	Match  string     `json:"match"`
	// Similarity is the share of the nearest table's records matched.
	Similarity float64 `json:"similarity"`
	// OpcodeInfo locates opcode_info[] in memory.
	OpcodeInfo *OpcodeInfo `json:"opcode_info,omitempty"`
	// OpcodeCount is the number of regular opcodes of the engine.
	OpcodeCount       int               `json:"opcode_count"`
	OpcodeNamesSource string            `json:"opcode_names_source"`
	OpcodeNames       []string          `json:"opcode_names"` // index = opcode value
	UncertainOpcodes  []UncertainOpcode `json:"uncertain_opcodes"`
	// JSCallInternal is the index of the function the name section calls
	// JS_CallInternal.
	JSCallInternal *uint32  `json:"js_call_internal,omitempty"`
	Evidence       []string `json:"evidence"`
}

// TableRef names a catalog table.
type TableRef struct {
	ID          string   `json:"id"`
	Engine      string   `json:"engine"`
	FirstDate   string   `json:"first_date"`
	FirstCommit string   `json:"first_commit"`
	ShippedIn   []string `json:"shipped_in"`
	OpCount     int      `json:"op_count"`
}

// OpcodeInfo locates the binary's opcode_info[] array.
type OpcodeInfo struct {
	Address uint64 `json:"address"`
	Stride  int    `json:"stride"` // 4, or 8 with a name pointer per record
	Records int    `json:"records"`
}

// UncertainOpcode is an opcode whose name could not be established.
type UncertainOpcode struct {
	Opcode int    `json:"opcode"`
	Name   string `json:"name"` // best guess, "" when unknown
	Reason string `json:"reason"`
}

// Javy describes how the module relates to Javy.
type Javy struct {
	Kind string `json:"kind"`
	// PluginABI is "newer", "older" or "oldest" for plugins.
	PluginABI string `json:"plugin_abi,omitempty"`
	// ImportNamespace is the plugin's namespace: for a plugin, its
	// import_namespace section; for a dynamic module, the module name it
	// imports invoke and memory from.
	ImportNamespace string `json:"import_namespace,omitempty"`
	// BytecodeSegment is the passive data segment holding the program's
	// bytecode (static and dynamic modules).
	BytecodeSegment *int `json:"bytecode_segment,omitempty"`
	// JSExports are exported functions that invoke a JS function by name.
	JSExports []string `json:"js_exports,omitempty"`
	Evidence  []string `json:"evidence"`
}
