package meter

import (
	"errors"
	"fmt"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/wasmcore"
)

// HostModule and HostNewFunction name the one import the rewrite adds: the
// host is called once per bytecode address the module has not seen before.
const (
	HostModule      = "jsprof"
	HostNewFunction = "new_function"
	HostGrowStack   = "grow_stack"
	HostCheckpoint  = "checkpoint"
)

// hostImports is how many of the host's functions the rewrite imports,
// after the module's own imports; listened ones follow (Plan.Imports).
const hostImports = 3

// Export names of the injected globals the host reads and sets.
const (
	exportBlock    = "jsprof.block"
	exportSlot     = "jsprof.slot"
	exportBase     = "jsprof.base"
	exportLimit    = "jsprof.limit"
	exportFlags    = "jsprof.flags"
	exportLast     = "jsprof.last"
	exportSP       = "jsprof.sp"
	exportStackEnd = "jsprof.stack_end"
	exportHashBase = "jsprof.hash_base"
	exportHashMask = "jsprof.hash_mask"
	exportNative   = "jsprof.native"
	exportFuncObj  = "jsprof.func_obj"
	exportEntry    = "jsprof.entry"
)

// Options configures Instrument.
type Options struct {
	// PerInstruction selects wasmcore's slow per-instruction counting (tests).
	PerInstruction bool
	// Sample selects sampling: instead of charging every opcode, the module
	// keeps only a shadow stack of each activation's function object and
	// current opcode address, and calls the sample trampoline (export
	// SampleExport) whenever the counter passes the next sample point the
	// host sets. Results then carry the total and the functions the samples
	// saw, no costs.
	Sample bool
	// Checkpoints adds the same counter check in exact mode, so that the
	// host can stop the guest at an instruction budget (Meter.SetLimit) or
	// when the run's context is done, with the counters intact.
	Checkpoints bool
	// WasmStacks, in exact mode, has the host take the Wasm stack at
	// checkpoints too (Meter.SetWasmStacks), for the Wasm frames of the
	// exact profile (wasmstacks.go): the checkpoint trampoline is then
	// empty and listened to, as in sampling. It implies Checkpoints.
	WasmStacks bool
	// Cost is what one executed instruction costs: every one but the
	// structure markers (wasmcore.CostAll) or wasmtime's fuel
	// (wasmcore.CostFuel), as Shopify's function-runner counts.
	Cost wasmcore.CostModel
	// Natives, when set, says where the engine calls native (C)
	// functions. Exact mode then charges each native call to a block of
	// its own, keyed by the native's table index and magic and its
	// calling context, instead of the native bucket; sampling reads the
	// same fields of a native activation's function object.
	Natives *NativeCalls
}

// NativeCalls locates QuickJS's js_call_c_function, through which the
// interpreter calls every C function object (natives.FindCFunctionCalls
// finds it), and the fields of the function object that say which native
// it is.
type NativeCalls struct {
	// Func is js_call_c_function's index in the original module; its
	// second parameter is the function object (an i64 JSValue whose low
	// 32 bits are the object's address). TableIndex is its own index in
	// table 0: the interpreter's class calls reach it through that.
	Func, TableIndex uint32
	// FuncOffset and MagicOffset locate the native's table index (u32)
	// and magic (i16) in the function object; HasMagic is false when the
	// engine keeps no magic there.
	FuncOffset, MagicOffset uint32
	HasMagic                bool
	// ClassCalls are the body offsets, in the dispatch function, of its
	// call_indirect instructions through the class table: where an
	// activation that is not a bytecode function's calls what runs it.
	ClassCalls []uint32
}

// maxNativeTableIndex bounds the table indices a native's key can hold:
// the key packs the index and the magic into 32 bits. Real engines' tables
// have a few thousand entries; a native past it is counted as unidentified.
const maxNativeTableIndex = 0xFFFF

// ListenedModule is the small module of the empty functions a wazero
// listener sees the Wasm stack from, which the rewritten module imports
// and calls: SampleExport at each sample point, ContextStackExport after
// it asked the host for a calling context's block (exact mode with
// Options.WasmStacks). They are a module of their own because wazero
// compiles listener trampolines for every function type of a module with
// a listened function: an engine's hundred types took 6 ms of every run.
const ListenedModule = "jsprof:listened"

// The listened functions' names in ListenedModule.
const (
	SampleExport       = "jsprof.sample"
	ContextStackExport = "jsprof.context_stack"
)

// exportNext is the global holding the counter value of the next sample.
const exportNext = "jsprof.next_sample"

// Plan is what Instrument did, for the host side.
type Plan struct {
	// DispatchFunc is the dispatch function's index in the rewritten module.
	DispatchFunc uint32
	// BytecodePointer is how the host finds a function's bytecode buffer
	// from the function object the dispatch function was called with; nil
	// when the analysis did not see it.
	BytecodePointer *dispatch.BytecodePointer
	// Counter is the instruction counter's export name.
	Counter string
	// Sample: the module was instrumented for sampling (Options.Sample).
	Sample bool
	// Checkpoints: the module calls the sample trampoline at the host's
	// checkpoints (sampling, or an instruction limit).
	Checkpoints bool
	// WasmStacks: exact mode with Wasm stacks (Options.WasmStacks).
	WasmStacks bool
	// ImportedFuncs and Funcs are the original module's function counts:
	// the rewritten module has Imports more imports, which shift the
	// indices of defined functions, and its own functions after them.
	ImportedFuncs, Funcs uint32
	// Imports is how many functions the rewrite imports: the host's, and
	// ListenedModule's when the host takes Wasm stacks (Listened).
	Imports uint32
	// OriginalDispatchFunc is DispatchFunc in the original numbering.
	OriginalDispatchFunc uint32
	// ModuleName is the rewritten module's name (its name section's), made
	// its own so that wazero's function definitions tell its frames from
	// those of other modules in a stack.
	ModuleName string
	// Natives is Options.Natives, checked; nil when not given.
	Natives *NativeCalls
}

// OriginalIndex maps a function index of the rewritten module to the
// original module's; ok is false for the functions the rewrite added.
func (p *Plan) OriginalIndex(idx uint32) (orig uint32, ok bool) {
	switch {
	case idx < p.ImportedFuncs:
		return idx, true
	case idx < p.ImportedFuncs+p.Imports:
		return 0, false
	case idx-p.Imports < p.Funcs:
		return idx - p.Imports, true
	}
	return 0, false
}

// Listened says whether the rewritten module imports ListenedModule: the
// host takes Wasm stacks, in sampling or exact mode's Wasm stacks.
func (p *Plan) Listened() bool { return p.Sample || p.WasmStacks }

// Instrument rewrites m, in place, to count instructions and charge them to
// (JS function, opcode) pairs at d's dispatch.
func Instrument(m *wasmcore.Module, d *dispatch.Dispatch, opts Options) (*Plan, error) {
	if d == nil {
		return nil, errors.New("meter: no dispatch to instrument")
	}
	if len(m.Memories) == 0 && !importsMemory(m) {
		return nil, errors.New("meter: the module has no memory for the counters")
	}
	fn := m.Function(d.FunctionIndex)
	if fn == nil {
		return nil, fmt.Errorf("meter: dispatch function %d is not a defined function", d.FunctionIndex)
	}
	ft, err := m.FuncTypeOf(d.FunctionIndex)
	if err != nil {
		return nil, fmt.Errorf("meter: dispatch function %d: %w", d.FunctionIndex, err)
	}
	bodyOffset := func(fileOffset uint32) (uint32, error) {
		if fileOffset < fn.BodyOffset || fileOffset >= fn.BodyOffset+uint32(len(fn.Body)) {
			return 0, fmt.Errorf("meter: offset %#x is outside dispatch function %d", fileOffset, d.FunctionIndex)
		}
		return fileOffset - fn.BodyOffset, nil
	}

	natives, err := checkNatives(m, d, opts.Natives)
	if err != nil {
		return nil, err
	}

	origImports, origFuncs := m.NumImportedFuncs(), m.NumFuncs()
	g := newGlobals(m)
	var checkpoint *wasmcore.Checkpoint
	wasmStacks := opts.WasmStacks && !opts.Sample
	if opts.Sample || opts.Checkpoints || wasmStacks {
		// No checkpoint until the host sets the first one.
		g.next = g.add(exportNext, wasmcore.ValI64)
		g.m.Globals[g.next-g.m.NumImportedGlobals()].Init = wasmcore.ConstI64(-1)
	}
	if opts.Sample {
		g.funcObj = g.add(exportFuncObj, wasmcore.ValI64)
		g.entry = g.add(exportEntry, wasmcore.ValI32)
	}
	// The injected code reads the counter CountInstructions adds: the next
	// global.
	g.count = m.NumImportedGlobals() + uint32(len(m.Globals))

	// Indices the injected functions will have, before the host import is
	// added: the import shifts them, and the hooks' calls with them, by one.
	next := m.NumFuncs()
	fLookup, fSample, fGrowStack, fContextStack := next, next+1, next+2, next+3

	// Two locals of the dispatch function capture the opcode's address and
	// value at its byte load; four more serve the inlined accounting.
	nLocals := uint32(len(ft.Params))
	for _, l := range fn.Locals {
		nLocals += l.Count
	}
	locals := dispatchLocals{addr: nLocals, opcode: nLocals + 1, b: nLocals + 2, p: nLocals + 3, f: nLocals + 4, i: nLocals + 5}
	localAddr, localOp := locals.addr, locals.opcode
	fn.Locals = append(fn.Locals, wasmcore.Local{Count: 6, Type: wasmcore.ValI32})

	body, err := wasmcore.DecodeInstructions(fn.Body)
	if err != nil {
		return nil, fmt.Errorf("meter: dispatch function %d: %w", d.FunctionIndex, err)
	}
	at := map[uint32]int{}
	for i, in := range body {
		at[in.Offset] = i
	}
	hooks := wasmcore.Hooks{Before: map[uint32][]byte{}}
	before := func(off uint32, code []byte) {
		hooks.Before[off] = append(hooks.Before[off], code...)
	}
	for _, load := range d.Selector.ByteLoads {
		off, err := bodyOffset(load)
		if err != nil {
			return nil, err
		}
		i, ok := at[off]
		if !ok || body[i].Op != wasmcore.OpI32Load8U || i+1 >= len(body) {
			return nil, fmt.Errorf("meter: no i32.load8_u at offset %#x of dispatch function %d", load, d.FunctionIndex)
		}
		// Before the load its address is on the stack; after it, the opcode.
		before(off, code(wasmcore.Instr{Op: wasmcore.OpLocalTee, Index: localAddr}))
		var after []byte
		if !opts.Sample { // sampling needs only the address
			after = code(wasmcore.Instr{Op: wasmcore.OpLocalTee, Index: localOp})
		}
		if memOffset := body[i].Mem.Offset; memOffset != 0 {
			after = append(after, code(
				wasmcore.Instr{Op: wasmcore.OpLocalGet, Index: localAddr},
				wasmcore.Instr{Op: wasmcore.OpI32Const, I32: int32(memOffset)},
				wasmcore.Instr{Op: wasmcore.OpI32Add},
				wasmcore.Instr{Op: wasmcore.OpLocalSet, Index: localAddr},
			)...)
		}
		if len(after) > 0 {
			before(body[i+1].Offset, after)
		}
	}
	// Sampling keeps each activation's first opcode address only when the
	// host cannot find its function from its function object.
	withEntry := !canFollow(d.BytecodePointer)
	for _, bt := range append([]uint32{d.BrTableOffset}, d.OtherBrTables...) {
		off, err := bodyOffset(bt)
		if err != nil {
			return nil, err
		}
		if i, ok := at[off]; !ok || body[i].Op != wasmcore.OpBrTable {
			return nil, fmt.Errorf("meter: no br_table at offset %#x of dispatch function %d", bt, d.FunctionIndex)
		}
		if opts.Sample {
			before(off, g.sampleDispatchCode(locals, withEntry))
		} else {
			before(off, g.dispatchCode(fLookup, locals))
		}
	}
	if natives != nil && !opts.Sample {
		// Where the interpreter calls a function object that is not
		// bytecode, an activation that has not dispatched is not a JS
		// function's: one of a function that is neither bytecode nor C
		// (a host function, a bound function) is counted where it was
		// called from; a C function's is left to js_call_c_function's
		// entry, which knows which native it is.
		for _, off := range natives.ClassCalls {
			if i, ok := at[off]; !ok || body[i].Op != wasmcore.OpCallIndirect {
				return nil, fmt.Errorf("meter: no call_indirect at body offset %#x of dispatch function %d", off, d.FunctionIndex)
			}
			before(off, g.classCallCode(fLookup, funcObjArg(d.BytecodePointer, ft), natives.TableIndex, locals))
		}
	}
	if g.next != 0 {
		checkpoint = &wasmcore.Checkpoint{Next: g.next, Call: fSample}
	}
	countOpts := wasmcore.CountOptions{PerInstruction: opts.PerInstruction, Checkpoint: checkpoint, Cost: opts.Cost}
	if opts.Sample {
		hooks.Entry = g.sampleEnterCode(funcObjArg(d.BytecodePointer, ft), fGrowStack, locals, withEntry)
		hooks.Exit = g.sampleExitCode(locals, withEntry)
		// A sample's weight may be a few instructions off, its stack
		// cannot tell: count the cheaper way (docs/performance.md), the
		// interpreter's count in a register, charges hoisted across calls.
		// The dispatch hook only records the pc.
		hooks.CountUnread = true
		countOpts.Hoist = wasmcore.HoistAcrossCalls
		countOpts.InLocal = map[uint32]bool{d.FunctionIndex: true}
	} else {
		hooks.Entry = g.enterCode(funcObjArg(d.BytecodePointer, ft), fGrowStack, locals)
		hooks.Exit = g.exitCode(locals)
		// Exact mode needs the count exact at every dispatch hook and call:
		// charges are hoisted only within a function's own code between
		// them. (The count in a register would be stored back at every
		// dispatch, and gains nothing.)
		countOpts.Hoist = wasmcore.HoistLocal
	}
	countOpts.Hooks = map[uint32]wasmcore.Hooks{d.FunctionIndex: hooks}
	if natives != nil && !opts.Sample {
		countOpts.Hooks[natives.Func] = g.nativeHooks(m, natives, fLookup, fGrowStack)
	}
	ctr, err := m.CountInstructions(countOpts)
	if err != nil {
		return nil, err
	}
	if ctr.Global != g.count {
		return nil, fmt.Errorf("meter: the counter is global %d, not %d as the injected code reads", ctr.Global, g.count)
	}

	// A name of the module's own: the original's, marked.
	if m.Names == nil {
		m.Names = &wasmcore.NameSection{}
	}
	m.Names.Module += " (jsprof)"
	moduleName := m.Names.Module

	lookupType := m.AddType(wasmcore.FuncType{Params: []wasmcore.ValType{wasmcore.ValI32, wasmcore.ValI64, wasmcore.ValI32, wasmcore.ValI32}, Results: []wasmcore.ValType{wasmcore.ValI32}})
	void := m.AddType(wasmcore.FuncType{})
	imports := []wasmcore.FuncImport{
		{Module: HostModule, Name: HostNewFunction, Type: lookupType},
		{Module: HostModule, Name: HostGrowStack, Type: void},
		{Module: HostModule, Name: HostCheckpoint, Type: void},
	}
	listened := opts.Sample || wasmStacks
	if listened {
		imports = append(imports, wasmcore.FuncImport{Module: ListenedModule, Name: SampleExport, Type: void})
		if wasmStacks {
			imports = append(imports, wasmcore.FuncImport{Module: ListenedModule, Name: ContextStackExport, Type: void})
		}
	}
	fHost := m.AddImportFuncs(imports...)
	fGrow, fCheckpoint, fListenSample, fListenContext := fHost+1, fHost+2, fHost+3, fHost+4
	k := uint32(len(imports))
	fLookup, fSample, fGrowStack, fContextStack = fLookup+k, fSample+k, fGrowStack+k, fContextStack+k

	add := func(want uint32, f wasmcore.Function) {
		if got := m.AddFunction(f); got != want {
			panic(fmt.Sprintf("meter: injected function got index %d, want %d", got, want))
		}
	}
	var stackFirst *uint32
	if wasmStacks {
		stackFirst = &fContextStack
	}
	add(fLookup, wasmcore.Function{Type: lookupType, Locals: i32Locals(4), Body: g.lookupBody(fHost, stackFirst)})

	// The checkpoint trampoline: it calls the host. Sampling needs the
	// Wasm stack, which only a wazero listener on a Wasm function sees:
	// there the checkpoints call the listened function instead (below).
	add(fSample, wasmcore.Function{Type: void, Body: code(call(fCheckpoint), end())})
	// The inlined entry code reaches the grow_stack import through this
	// function: it is written before the imports are added, and only
	// defined functions' indices can be known then.
	add(fGrowStack, wasmcore.Function{Type: void, Body: code(call(fGrow), end())})
	if wasmStacks {
		// Called after the host was asked for a context's block: when it
		// made a new one, its listener takes the Wasm stack there, which
		// gives the context's frames above and between (wasmstacks.go).
		add(fContextStack, wasmcore.Function{Type: void, Body: code(end())})
	}
	if listened {
		// The code written before the imports were added calls the
		// functions that stand for the listened ones: it calls the
		// listened ones themselves now, so that no frame of ours sits
		// between them and the stack the listener sees (wazero's walk
		// stops at 30 frames).
		redirects := map[uint32]uint32{fSample: fListenSample}
		if wasmStacks {
			redirects[fContextStack] = fListenContext
		}
		if err := m.RedirectCalls(redirects); err != nil {
			return nil, fmt.Errorf("meter: %w", err)
		}
	}

	// Last, so that neither the counter nor anything else sees the new
	// function: a memory.grow costs what the call replacing it does.
	if err := virtualizeMemory(m, g, int(origFuncs-origImports)); err != nil {
		return nil, err
	}

	return &Plan{
		DispatchFunc: d.FunctionIndex + k, BytecodePointer: d.BytecodePointer, Counter: ctr.Export,
		Sample: opts.Sample, Checkpoints: checkpoint != nil, WasmStacks: wasmStacks, ImportedFuncs: origImports, Funcs: origFuncs, Imports: k, OriginalDispatchFunc: d.FunctionIndex,
		ModuleName: moduleName, Natives: natives,
	}, nil
}

// checkNatives checks that n's function can be instrumented as
// js_call_c_function: a defined function other than the dispatch function
// whose second parameter is an i64. It returns a copy.
func checkNatives(m *wasmcore.Module, d *dispatch.Dispatch, n *NativeCalls) (*NativeCalls, error) {
	if n == nil {
		return nil, nil
	}
	if n.Func == d.FunctionIndex || m.Function(n.Func) == nil {
		return nil, fmt.Errorf("meter: natives' caller %d is not a defined function other than the dispatch function", n.Func)
	}
	ft, err := m.FuncTypeOf(n.Func)
	if err != nil {
		return nil, fmt.Errorf("meter: natives' caller %d: %w", n.Func, err)
	}
	if len(ft.Params) < 2 || ft.Params[1] != wasmcore.ValI64 {
		return nil, fmt.Errorf("meter: natives' caller %d has type %v: no function object in its second parameter", n.Func, ft)
	}
	c := *n
	c.ClassCalls = append([]uint32(nil), n.ClassCalls...)
	return &c, nil
}

// canFollow says whether the host can find a function's bytecode buffer
// from the function object the interpreter was called with.
func canFollow(bp *dispatch.BytecodePointer) bool {
	return bp != nil && len(bp.Path) > 0 && bp.Param >= 0
}

func importsMemory(m *wasmcore.Module) bool {
	for _, imp := range m.Imports {
		if imp.Kind == wasmcore.ExternMemory {
			return true
		}
	}
	return false
}

// funcObjArg pushes the function object the dispatch function was called
// with, as an i64, or 0 when it is not known which parameter holds it.
func funcObjArg(bp *dispatch.BytecodePointer, ft wasmcore.FuncType) []byte {
	if bp == nil || bp.Param < 0 || bp.Param >= len(ft.Params) {
		return code(wasmcore.Instr{Op: wasmcore.OpI64Const, I64: 0})
	}
	get := wasmcore.Instr{Op: wasmcore.OpLocalGet, Index: uint32(bp.Param)}
	switch ft.Params[bp.Param] {
	case wasmcore.ValI64:
		return code(get)
	case wasmcore.ValI32:
		return code(get, wasmcore.Instr{Op: wasmcore.OpI64ExtendI32U})
	}
	return code(wasmcore.Instr{Op: wasmcore.OpI64Const, I64: 0})
}

func i32Locals(n uint32) []wasmcore.Local {
	return []wasmcore.Local{{Count: n, Type: wasmcore.ValI32}}
}

// code encodes instructions.
func code(ins ...wasmcore.Instr) []byte {
	var b []byte
	for _, in := range ins {
		b = wasmcore.AppendInstr(b, in)
	}
	return b
}
