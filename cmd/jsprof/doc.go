// Command jsprof runs JavaScript built into WebAssembly with Javy, under
// wazero, and profiles it through both virtual machines.
//
//	jsprof [run] [flags] module.wasm [-- guest args]   run a Javy build or any WASI command
//	jsprof build --plugin PLUGIN.wasm [--dynamic] index.js -o index.wasm
//	jsprof analyze [--json] module.wasm               find the interpreter, identify the engine
//
// The command owns the command line: flags, messages and exit codes. The
// work is done by the packages it calls (runner, javy, dispatch, wasmcore).
package main
