// Command jsprof runs JavaScript built into WebAssembly with Javy, under
// wazero, and profiles it through both virtual machines.
//
//	jsprof [run] [flags] module.wasm [-- guest args]   run a Javy build or any WASI command, profiled
//	jsprof build --plugin PLUGIN.wasm [--dynamic] index.js -o index.wasm
//	jsprof analyze [--json] module.wasm               find the interpreter, identify the engine
//	jsprof report [--by opcode|function|line|summary] PROFILE
//	jsprof diff BASE NEW                              two profiles of the same JS, aligned by name
//	jsprof compare --plugin A --plugin B index.js     build, profile and diff in one command
//
// The command owns the command line: flags, messages, files written and
// exit codes. The work is done by the packages it calls: internal/profiler
// (the profiling pipeline), internal/runner, internal/javy, dispatch and
// jsframes/report.
package main
