// Command jsprof runs JavaScript built into WebAssembly with Javy, under
// wazero, and profiles it through both virtual machines.
//
//	jsprof [run] [flags] module.wasm [-- guest args]   run a Javy build or any WASI command, profiled
//	jsprof build --plugin PLUGIN.wasm [--dynamic] index.js -o index.wasm
//	jsprof analyze [--json] module.wasm               find the interpreter, identify the engine
//	jsprof report [--by opcode|function|line|summary|wasm] PROFILE
//	jsprof diff [--by opcode|wasm] BASE NEW           two profiles of the same JS, aligned by name
//	jsprof compare --plugin A --plugin B index.js     build, profile and diff in one command
//
// A Shopify Function runs as function-runner runs it: its provider linked
// by the namespace it imports (--plugin FILE or DIR), its input from
// --input in the provider's codec, its export (-e) counted under
// wasmtime's fuel rule.
//
// The command owns the command line: flags and their checks (run's in one
// type, runFlags), messages, which files are written (its flags name
// them), and exit codes. A run, and each side of a compare, is one
// profiler.Job given to profiler.Execute, which does the rest; the
// command hears it through the job's hooks. The work is done by the
// packages it calls: internal/profiler (the run pipeline: reading,
// linking, a function's I/O, limits, the timeout, finishing; a run's
// output files, checked against its inputs and created before the guest
// runs, then written; several inputs run and merged, each one's profile
// kept; a compare's JS, input and kept files; a build's module with its
// JS; a program's source map found and checked with
// internal/name/sourcemap, and applied to a saved profile: the command
// says why one is not used), wasmcore (decoding for analyze; the cost
// models --cost names), internal/run/runner (the guest's options, --dir's
// mounts, the compilation cache), internal/cli (flag sets, usage errors,
// colour, signals), internal/outfile (writing a file atomically),
// internal/printable (text from a module or profile made safe to print),
// internal/run/javy (telling JS from a module; a build's compile errors),
// internal/run/shopify (the codecs --codec names; --input's files),
// internal/inputcost (--input-cost's runs), dispatch (analyze),
// jsframes/jsprofile (the profile format), internal/view/report (the
// tables and their text, CSV and JSON views), internal/view/diff (two
// profiles compared) and internal/view/htmlview (the HTML pages).
package main
