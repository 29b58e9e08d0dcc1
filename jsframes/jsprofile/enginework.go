package jsprofile

import "strings"

// Engine work: what QuickJS does on behalf of an opcode or a native that
// the program did not write, told by the engine's Wasm function names
// (a build with a name section: the Javy 1.1.0 plugin, @jitl's builds;
// a stripped engine's functions are wasm-function[N], and nothing is told
// of them). The reports name an opcode's share of it ("return_undef 1.95M,
// of which 1.9M freeing (engine)") rather than present it as the opcode's
// own.
const (
	// EngineFreeing: freeing values whose reference count fell to zero
	// (JS_FreeValue's cascade through free_object, the shapes, the
	// finalizers), and the memory they held.
	EngineFreeing = "freeing"
	// EngineGC: the cycle collector (JS_RunGC and its passes).
	EngineGC = PhaseGC
	// EngineInterrupts: the interrupt check the interpreter makes every
	// so many branches, with the embedder's handler.
	EngineInterrupts = "interrupt handler"
)

// GCFunction is QuickJS's cycle collector, in both families: a stack it
// is on is garbage collection, whatever triggered it.
const GCFunction = "JS_RunGC"

// EngineWork is the engine work a Wasm function of QuickJS (both families)
// does, by its name: EngineFreeing, EngineGC, EngineInterrupts, or "" for
// any other function (and any unnamed one).
func EngineWork(name string) string {
	switch name {
	case GCFunction, "gc_decref", "gc_decref_child", "gc_scan", "gc_scan_incref_child", "gc_free_cycles", "js_trigger_gc":
		return EngineGC
	case "__js_poll_interrupts", "js_poll_interrupts":
		return EngineInterrupts
	case "__JS_FreeValueRT", "__JS_FreeValue", "JS_FreeValueRT", "JS_FreeValue", "free_zero_refcount",
		"free_object", "free_gc_object", "free_function_bytecode", "free_bytecode_atoms", "free_property",
		"free_var_ref", "free_generator_stack_rt", "free_generator_stack", "js_free_shape", "js_free_shape0",
		"js_free_prop_enum", "js_free_desc", "JS_FreeAtom", "JS_FreeAtomRT", "__JS_FreeAtom", "JS_FreeAtomStruct",
		"JS_FreeCString", "JS_FreeBigInt", "js_free", "js_free_rt":
		return EngineFreeing
	}
	if strings.HasSuffix(name, "_finalizer") && strings.HasPrefix(name, "js_") {
		return EngineFreeing
	}
	return ""
}
