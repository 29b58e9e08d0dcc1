// Package meter measures, exactly, what every JS function and every JS
// opcode costs in executed Wasm instructions.
//
// It rewrites a module that holds a QuickJS-style interpreter (found by
// package dispatch): wasmcore's instruction counter cuts the count at every
// dispatch, and a few injected Wasm functions charge the instructions since
// the previous dispatch to the (JS function, opcode) that was running, keep
// a shadow stack of interpreter activations, and count calls. All of that
// runs inside the module: the host hears only of a bytecode buffer seen for
// the first time (one import call per distinct buffer), because anything
// per opcode or per call that leaves the module costs ten to twenty times
// more (FIELD-NOTES §6).
//
// The counters live in memory the host reserves in the guest's linear memory
// by growing it before the guest runs; the guest's allocator takes later
// pages as usual. The host reads them back into Results when the guest ends.
//
// meter names JS functions by their bytecode address only; jsframes turns
// addresses into names and lines. It does not run modules: the caller links
// Host and calls Start and Collect around its own run.
package meter
