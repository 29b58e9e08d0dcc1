// Package meter measures, exactly, what every JS function and every JS
// opcode costs in executed Wasm instructions.
//
// It rewrites a module that holds a QuickJS-style interpreter (found by
// package dispatch): wasmcore's instruction counter cuts the count at every
// dispatch, and a few injected Wasm functions charge the instructions since
// the previous dispatch to the (JS function, opcode) that was running, keep
// a shadow stack of interpreter activations, and count calls. All of that
// runs inside the module: nothing per opcode or per call leaves it, as
// that costs ten to twenty times more (docs/performance.md). The host
// (host.go's module, jsprof.*) hears of a bytecode buffer seen for the
// first time (one call per distinct buffer), of a shadow stack that must
// grow, at each checkpoint (every so many instructions: the instruction
// limit, the run's context and progress are checked there, and sample
// mode's samples taken, sample.go) and of a stop; and, in exact mode,
// through listeners on a module of its own, of the moments to take a Wasm
// stack (wasmstacks.go).
//
// The counters live in memory the host reserves in the guest's linear memory
// by growing it, the first time past a gap of untouched pages; the guest
// sees a memory of its own size (memview.go: its memory.size and
// memory.grow read and move a global), so that its own growth lands right
// after its heap, as in an unprofiled run, and its allocator runs the same
// instructions. The host reads the counters back into costs.Results when
// the guest ends.
// The guest can write there too (wazero has no memory the injected code
// could update cheaply and the guest could not address), so nothing read
// back is trusted (collect.go): each block is checked against what the host
// made (address, base, limit, a check word), each count against the
// instruction counter (a global the guest's code cannot name), and the
// parts must add up to it. What fails is left out and reported as
// ErrTampered, what it counted charged to jsprofile.BucketTampered so that the
// results still add up; allocation follows what the host made, never a
// size read from the guest; the lookups and host loops over guest-kept
// tables are bounded, so a guest that fills them cannot hang the run. A
// module beside the engine that is not counted (a dynamic module) gets a
// stop at each loop head (AddStops), so that it cannot outlive the run's
// context either. The checkpoints are disarmed until Start, which runs
// after the instance's start function: an engine's start function calls
// the checkpoint first (AddStartStops), which arms them, so that the
// limit and the run's context stop whatever it runs too.
//
// A function is known by its bytecode buffer's address, and the engine
// reuses addresses: it frees a function's bytecode when the last closure
// goes and puts the next allocation there. Whenever the host is asked
// about an address it knows, it checks that the buffer still holds the
// function it saw there (length, function-bytecode object, bytes); if
// not, the old function is retired (its keys leave the address table) and
// the new one counted apart (costs.FunctionCost.Generation). Each pc's slot also
// records the opcode the interpreter dispatched there (costs.PCCost.Dispatched,
// one store per dispatch), which names the pc's opcode and lets package
// naming check the measurement against the code.
//
// Native (C) functions (Options.Natives) are measured the same way, per
// call rather than per opcode: QuickJS calls every C function object
// through js_call_c_function, whose entry the rewrite instruments to key
// the native by the table index and magic its function object holds and
// charge it a block of its own in its calling context — in place of the
// interpreter activation that was entered to call it, or as an activation
// of its own when none was (a constructor). The interpreter's calls
// through its class table of functions that are neither (a host function,
// a bound function) are counted in their callers' context as one
// unidentified native. JS called back from a native is a context under it.
//
// Exact mode can also take Wasm stacks (Options.WasmStacks): at each new
// calling context and every so often, the host walks the Wasm stack from a
// listened-to function and files it under the exact slot being charged
// then (costs.Results.WasmSplits), for the profile's Wasm frames; the
// counting is unchanged (wasmstacks.go). The listened-to functions are empty, in a
// small module of their own (ListenedModule, which Link instantiates):
// wazero compiles listener trampolines for every function type of a module
// that has one, and the engine's module then has none. Its listeners hold
// nothing of a meter: they find the meter of the call in its context
// (Meter.Context, which every call into the guest must carry), since
// wazero shares a compiled module, listeners included, among all the
// runtimes on one compilation cache; so one compiled ListenedModule, one
// entry of the cache on disk, serves every meter and run of a process.
//
// Sampling (Options.Sample) keeps much less: a shadow stack of each
// activation's function object and current opcode address, the count kept
// the cheaper way (hoisted, in a register in the interpreter), and a call
// of ListenedModule's empty function at each sample point, where the host
// walks the Wasm stack and names the activations' functions from their
// function objects.
//
// meter names JS functions by their bytecode address only; package naming
// turns addresses into names and lines. It does not run modules: the
// caller links the meter's host modules (Meter.Link, through
// runner.Options.Link), calls the guest with Meter.Context's context, and
// calls Start and Collect around its own run.
//
// The results' types are package costs's (internal/measure/costs), the
// data alone, which naming and stacks read without importing wazero.
package meter
