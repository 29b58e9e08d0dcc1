// Package jsframes turns what the meter and the samplers measured, keyed by
// bytecode addresses and opcode values, into what a JS developer reads:
// function names and source lines, opcode names, and reports and profiles
// built from them.
//
// It owns the naming and the output models (the cost report, later the
// merged pprof profile). It must not rewrite modules (wasmcore and meter do)
// nor run them (the command does). Subpackage meter owns the exact
// per-opcode accounting inside the module.
package jsframes
