package javy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tetratelabs/wazero"

	"github.com/jsprof/jsprof/wasmcore"
)

// BuildError is a failure to build a module from JS that is not the JS's
// own (a *CompileError is returned as it is): Step is "compiling" or
// "building".
type BuildError struct {
	Step string
	Err  error
}

func (e *BuildError) Error() string { return e.Step + ": " + e.Err.Error() }
func (e *BuildError) Unwrap() error { return e.Err }

// BuildJS builds src with the plugin (what Inspect told of it, its bytes
// and their decoding) as `javy build` does: static, or dynamic (importing
// the plugin: a Shopify Function built against its provider). Each export
// given is a Wasm export calling the JS function of its JS name (javy
// build -C wit=… -C wit-world=…; addExports).
func BuildJS(ctx context.Context, plugin Plugin, wasm []byte, m *wasmcore.Module, src []byte, dynamic bool, cache wazero.CompilationCache, exports ...Export) ([]byte, error) {
	bytecode, err := Compile(ctx, plugin, wasm, src, cache)
	if err != nil {
		if errors.As(err, new(*CompileError)) {
			return nil, err
		}
		return nil, &BuildError{Step: "compiling", Err: err}
	}
	if err := checkExports(bytecode, exports); err != nil {
		return nil, &BuildError{Step: "building", Err: err}
	}
	var module []byte
	if dynamic {
		module, err = BuildDynamic(m, plugin, bytecode, exports...)
	} else {
		module, err = BuildStatic(ctx, wasm, plugin, bytecode, cache, exports...)
	}
	if err != nil {
		return nil, &BuildError{Step: "building", Err: err}
	}
	return module, nil
}

// BuildFile is BuildJS for the JS file jsprof build read: the module also
// carries src (the javy_source section, as 'javy build' embeds it) and
// name, the file's RecordedName, for reports of its profiles to show it
// and runs to find its source map.
func BuildFile(ctx context.Context, plugin Plugin, wasm []byte, m *wasmcore.Module, src []byte, name string, dynamic bool, cache wazero.CompilationCache, exports ...Export) ([]byte, error) {
	out, err := BuildJS(ctx, plugin, wasm, m, src, dynamic, cache, exports...)
	if err != nil {
		return nil, err
	}
	if out, err = EmbedSource(NameSource(out, name), src); err != nil {
		return nil, &BuildError{Step: "building", Err: err}
	}
	return out, nil
}

// FileBuildError words BuildFile's failure to build the JS file at path
// with the plugin at pluginPath into output, as jsprof build says it: a
// syntax error at the file built and, through its source map, at the file
// it was bundled from (mapErr: why the map could not be used), an
// unbundled import with the command that bundles it.
func FileBuildError(ctx context.Context, err error, path, pluginPath, output string, src []byte) (wrapped, mapErr error) {
	var be *BuildError
	var compileErr *CompileError
	switch {
	case errors.As(err, &be) && be.Step == "compiling":
		return fmt.Errorf("compiling %s with %s: %w", path, pluginPath, be.Err), nil
	case be != nil:
		return fmt.Errorf("building %s: %w", output, be.Err), nil
	case strings.Contains(err.Error(), "could not load module"):
		// Javy compiles one file: imports must be bundled in.
		return fmt.Errorf("%s: %w; bundle its imports into one file first, e.g. npx esbuild %s --bundle --format=esm --outfile=bundle.js", path, err, path), nil
	case errors.As(err, &compileErr):
		at, mapErr := CompileErrorAt(ctx, compileErr.Message, path, src)
		return fmt.Errorf("%s: %s", path, at), mapErr
	}
	return fmt.Errorf("%s: %w", path, err), nil
}

// BuildDynamic returns a module that imports the plugin's realloc, run
// export and memory from its namespace and runs bytecode from its own
// passive data segment, as `javy build -C dynamic` does, with the exports
// given (addExports). Its layout is the one Javy's codegen emits (through
// walrus; its tests' snapshot integration_test__default_dynamic.snap):
// the types sorted, () first; the exports' functions, then _start.
func BuildDynamic(pluginModule *wasmcore.Module, plugin Plugin, bytecode []byte, exports ...Export) ([]byte, error) {
	reallocType, err := exportType(pluginModule, plugin.Realloc)
	if err != nil {
		return nil, err
	}
	runType, err := exportType(pluginModule, plugin.Run)
	if err != nil {
		return nil, err
	}
	m := &wasmcore.Module{}
	types := []wasmcore.FuncType{{}, reallocType, runType}
	slices.SortStableFunc(types, compareTypes)
	for _, t := range types {
		m.AddType(t)
	}
	realloc := m.AddImportFunc(plugin.Namespace, plugin.Realloc, m.AddType(reallocType))
	run := m.AddImportFunc(plugin.Namespace, plugin.Run, m.AddType(runType))
	invoke, invokeParams := run, len(runType.Params)
	if len(exports) > 0 && plugin.Run != invokeExport { // the oldest provider's: eval_bytecode runs _start
		invokeType, err := exportType(pluginModule, invokeExport)
		if err != nil {
			return nil, fmt.Errorf("exports call the plugin's invoke: %w", err)
		}
		invoke, invokeParams = m.AddImportFunc(plugin.Namespace, invokeExport, m.AddType(invokeType)), len(invokeType.Params)
	}
	m.Imports = append(m.Imports, wasmcore.Import{Module: plugin.Namespace, Name: "memory", Kind: wasmcore.ExternMemory})
	m.Data = []wasmcore.DataSegment{{Mode: wasmcore.DataPassive, Init: bytecode}}
	count := uint32(1)
	m.DataCount = &count
	if err := addExports(m, realloc, invoke, invokeParams, 0, len(bytecode), exports); err != nil {
		return nil, err
	}
	start := m.AddFunction(startFunction(m, realloc, run, len(runType.Params), 0, len(bytecode)))
	m.Exports = slices.Insert(m.Exports, 0, wasmcore.Export{Name: "_start", Kind: wasmcore.ExternFunc, Index: start})
	return m.Encode()
}

// compareTypes orders function types as walrus emits them (Rust's derived
// Ord of their parameters, then results: element by element, a prefix
// first).
func compareTypes(a, b wasmcore.FuncType) int {
	if c := slices.CompareFunc(a.Params, b.Params, compareValTypes); c != 0 {
		return c
	}
	return slices.CompareFunc(a.Results, b.Results, compareValTypes)
}

// compareValTypes orders value types as walrus's ValType enum: i32, i64,
// f32, f64, v128, then references (their encodings descend from 0x7f).
func compareValTypes(a, b wasmcore.ValType) int { return int(b) - int(a) }

// BuildStatic returns the plugin, initialized and snapshotted, with the
// bytecode embedded and a _start that runs it, as `javy build` does:
//
//  1. the plugin is instantiated with every global exported, its initialize
//     export runs, and its memory and globals are read (what Wizer does);
//  2. the output is the plugin with that memory as data segments, those
//     values as global initializers, the memory's minimum size raised to
//     what initialization grew it to, and its start function dropped;
//  3. the bytecode goes in a passive data segment that _start copies into
//     memory the plugin allocates and hands to the plugin's run export;
//  4. the compile, run and initialize exports are removed;
//  5. the exports given follow _start (addExports).
func BuildStatic(ctx context.Context, pluginWasm []byte, plugin Plugin, bytecode []byte, cache wazero.CompilationCache, exports ...Export) ([]byte, error) {
	out, err := wasmcore.Decode(pluginWasm)
	if err != nil {
		return nil, err
	}
	if len(out.Memories) != 1 {
		return nil, fmt.Errorf("plugin defines %d memories, want 1 (an imported memory can't be snapshotted)", len(out.Memories))
	}
	if plugin.Init != "" {
		snap, err := snapshot(ctx, pluginWasm, plugin, cache)
		if err != nil {
			return nil, err
		}
		if err := snap.apply(out); err != nil {
			return nil, err
		}
	}
	realloc, _ := out.ExportedFunc(plugin.Realloc)
	run, _ := out.ExportedFunc(plugin.Run)
	runType, err := out.FuncTypeOf(run)
	if err != nil {
		return nil, err
	}
	invoke, hasInvoke := out.ExportedFunc(invokeExport)
	invokeType, _ := out.FuncTypeOf(invoke)
	if len(exports) > 0 && !hasInvoke {
		return nil, fmt.Errorf("exports call the plugin's invoke: plugin has no export %s", invokeExport)
	}
	out.Data = append(out.Data, wasmcore.DataSegment{Mode: wasmcore.DataPassive, Init: bytecode})
	count := uint32(len(out.Data))
	out.DataCount = &count
	start := out.AddFunction(startFunction(out, realloc, run, len(runType.Params), count-1, len(bytecode)))
	for _, name := range []string{plugin.Compile, plugin.Run, plugin.Init, "_start"} {
		if name != "" {
			out.RemoveExport(name)
		}
	}
	out.Exports = append(out.Exports, wasmcore.Export{Name: "_start", Kind: wasmcore.ExternFunc, Index: start})
	for _, e := range exports {
		if _, clash := out.ExportedFunc(e.Wasm); clash {
			return nil, fmt.Errorf("export %s: the plugin exports a function of that name", e.Wasm)
		}
	}
	if err := addExports(out, realloc, invoke, len(invokeType.Params), count-1, len(bytecode), exports); err != nil {
		return nil, err
	}
	kept := out.Customs[:0]
	for _, c := range out.Customs {
		if c.Name != ImportNamespaceSection { // a static module is no plugin
			kept = append(kept, c)
		}
	}
	out.Customs = kept
	return out.Encode()
}

// startFunction is _start: realloc(0, 0, 1, len), memory.init of the
// bytecode segment (not dropped: Javy's generate_main leaves it for the
// exports), then run(ptr, len, 0...) — the remaining
// parameters of run (has-name flag, name pointer and length) are zero,
// meaning "the top level only".
func startFunction(m *wasmcore.Module, realloc, run uint32, runParams int, segment uint32, length int) wasmcore.Function {
	code := copyToPlugin(realloc, segment, int32(length), 0)
	code = append(code, wasmcore.Instr{Op: wasmcore.OpLocalGet, Index: 0}, wasmcore.Instr{Op: wasmcore.OpI32Const, I32: int32(length)})
	for i := 2; i < runParams; i++ {
		code = append(code, wasmcore.Instr{Op: wasmcore.OpI32Const, I32: 0})
	}
	return function(m, append(code, wasmcore.Instr{Op: wasmcore.OpCall, Index: run}), 1)
}

// copyToPlugin is realloc(0, 0, 1, n), its pointer kept in local, then
// memory.init of the passive segment there: a segment copied into memory
// the plugin allocates.
func copyToPlugin(realloc, segment uint32, n int32, local uint32) []wasmcore.Instr {
	return []wasmcore.Instr{
		{Op: wasmcore.OpI32Const, I32: 0},
		{Op: wasmcore.OpI32Const, I32: 0},
		{Op: wasmcore.OpI32Const, I32: 1},
		{Op: wasmcore.OpI32Const, I32: n},
		{Op: wasmcore.OpCall, Index: realloc},
		{Op: wasmcore.OpLocalTee, Index: local},
		{Op: wasmcore.OpI32Const, I32: 0},
		{Op: wasmcore.OpI32Const, I32: n},
		{Op: wasmcore.OpMemoryInit, Index: segment},
	}
}

// function is a () -> () function of code (its end added) with locals
// i32 locals.
func function(m *wasmcore.Module, code []wasmcore.Instr, locals uint32) wasmcore.Function {
	var body []byte
	for _, in := range append(code, wasmcore.Instr{Op: wasmcore.OpEnd}) {
		body = wasmcore.AppendInstr(body, in)
	}
	return wasmcore.Function{
		Type:   m.AddType(wasmcore.FuncType{}),
		Locals: []wasmcore.Local{{Count: locals, Type: wasmcore.ValI32}},
		Body:   body,
	}
}

func exportType(m *wasmcore.Module, name string) (wasmcore.FuncType, error) {
	idx, ok := m.ExportedFunc(name)
	if !ok {
		return wasmcore.FuncType{}, fmt.Errorf("plugin has no export %s", name)
	}
	return m.FuncTypeOf(idx)
}

// snapshotGlobalPrefix names the exports added to read every global.
const snapshotGlobalPrefix = "jsprof:snapshot:global:"

type snapshotState struct {
	memory  []byte
	globals []uint64 // by defined-global index
}

// snapshot initializes the plugin and reads back its state.
func snapshot(ctx context.Context, pluginWasm []byte, plugin Plugin, cache wazero.CompilationCache) (*snapshotState, error) {
	m, err := wasmcore.Decode(pluginWasm)
	if err != nil {
		return nil, err
	}
	base := m.NumImportedGlobals()
	for i, g := range m.Globals {
		if g.Type.Type == wasmcore.ValV128 || g.Type.Type == wasmcore.ValFuncRef || g.Type.Type == wasmcore.ValExternRef {
			return nil, fmt.Errorf("plugin global %d has type %#x, which jsprof cannot snapshot", base+uint32(i), g.Type.Type)
		}
		m.Exports = append(m.Exports, wasmcore.Export{Name: fmt.Sprint(snapshotGlobalPrefix, i), Kind: wasmcore.ExternGlobal, Index: base + uint32(i)})
	}
	instrumented, err := m.Encode()
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	sess, mod, err := instantiatePlugin(ctx, instrumented, plugin.Namespace, cache, &stderr)
	if err != nil {
		return nil, err
	}
	defer sess.Close(ctx)
	if _, err := mod.ExportedFunction(plugin.Init).Call(ctx); err != nil {
		return nil, fmt.Errorf("plugin %s: %w (stderr: %q)", plugin.Init, err, firstLines(stderr.String(), 2))
	}
	mem, ok := mod.Memory().Read(0, mod.Memory().Size())
	if !ok {
		return nil, fmt.Errorf("reading plugin memory")
	}
	snap := &snapshotState{memory: bytes.Clone(mem), globals: make([]uint64, len(m.Globals))}
	for i := range m.Globals {
		snap.globals[i] = mod.ExportedGlobal(fmt.Sprint(snapshotGlobalPrefix, i)).Get()
	}
	return snap, nil
}

// maxZeroGap is the longest run of zero bytes kept inside one data segment
// rather than splitting it: a new segment costs about this much encoding.
const maxZeroGap = 8

func (s *snapshotState) apply(m *wasmcore.Module) error {
	for i := range m.Globals {
		g := &m.Globals[i]
		switch g.Type.Type {
		case wasmcore.ValI32:
			g.Init = wasmcore.ConstI32(int32(uint32(s.globals[i])))
		case wasmcore.ValI64:
			g.Init = wasmcore.ConstI64(int64(s.globals[i]))
		case wasmcore.ValF32:
			g.Init = wasmcore.ConstF32(uint32(s.globals[i]))
		case wasmcore.ValF64:
			g.Init = wasmcore.ConstF64(s.globals[i])
		}
	}
	const pageSize = 65536
	m.Memories[0].Limits.Min = uint64(len(s.memory) / pageSize)

	// Active segments would overwrite the snapshot when the module is
	// instantiated. Where passive segments exist, memory.init and data.drop
	// name segments by index, so the active ones are emptied, not removed.
	hasPassive := false
	for _, d := range m.Data {
		hasPassive = hasPassive || d.Mode == wasmcore.DataPassive
	}
	if hasPassive {
		for i := range m.Data {
			if m.Data[i].Mode == wasmcore.DataActive {
				m.Data[i].Init = nil
			}
		}
	} else {
		m.Data = nil
	}
	for _, run := range nonZeroRuns(s.memory, maxZeroGap) {
		m.Data = append(m.Data, wasmcore.DataSegment{
			Mode:   wasmcore.DataActive,
			Offset: wasmcore.ConstI32(int32(run[0])),
			Init:   s.memory[run[0]:run[1]],
		})
	}
	if m.DataCount != nil || hasPassive {
		n := uint32(len(m.Data))
		m.DataCount = &n
	}
	m.Start = nil // it ran during initialization
	return nil
}

// nonZeroRuns returns [start, end) ranges covering every non-zero byte of mem,
// merging ranges separated by at most gap zero bytes.
func nonZeroRuns(mem []byte, gap int) [][2]int {
	var runs [][2]int
	i := 0
	for i < len(mem) {
		for i < len(mem) && mem[i] == 0 {
			i++
		}
		if i == len(mem) {
			break
		}
		start := i
		end := i
		for i < len(mem) {
			if mem[i] != 0 {
				i++
				end = i
				continue
			}
			z := i
			for z < len(mem) && mem[z] == 0 && z-end <= gap {
				z++
			}
			if z == len(mem) || z-end > gap {
				break
			}
			i = z
		}
		runs = append(runs, [2]int{start, end})
		i = end
	}
	return runs
}
