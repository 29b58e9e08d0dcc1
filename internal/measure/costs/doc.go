// Package costs is the meter's results as data: the exact cost of a run
// per JS function, pc, calling context, native and bucket (Results), and
// the Wasm stacks sampled beside them (WasmFrame, Activation, WasmSplit).
// Package meter, which rewrites the module and runs the host side under
// wazero, fills them; packages naming and stacks, which only read them,
// import this package and none of wazero. Its one check is Results.Check
// (the parts add up to the total); ChargeUntrusted makes a tampered run's
// results add up again (package meter's collect.go).
package costs
