// Package runner runs WebAssembly command modules under wazero the way
// `wasmtime run` does: WASI preview 1 with the user's stdio, only the
// arguments, environment variables and directories the user grants, the
// guest's exit code returned, and a Javy plugin preloaded under its import
// namespace for dynamic Javy modules.
//
// Every import that neither WASI nor a preloaded plugin provides is linked to
// a stub that fails, naming the import, only if the guest calls it: Javy
// plugins import host functions (env.*) that most programs never use.
//
// The guest is hostile until shown otherwise. A granted directory is a file
// system the guest cannot leave (rootfs.go: every path and symbolic link is
// resolved beneath it by os.Root, where wazero's own mount follows links
// anywhere). Every host call that can block — reading stdin, sleeping,
// polling, writing to a pipe — returns when the run's context is done
// (cancel.go), so that the guest goes back to Wasm, where it is stopped
// (by wazero, or by the profiler's checkpoints), and Run returns the
// context's cause as the trap.
//
// It runs with the compilation cache the caller opened (internal/run/
// cachedir), turning what a damaged entry makes wazero do into
// cachedir.ErrDamaged, and puts a program detached from its module back
// into the instance (detached.go).
//
// Compiling is bounded too (Session.Compile): a module past
// wasmcore.CheckBounds, which wazero's compiler would take minutes over,
// is refused while it compiles, and an interrupt abandons a compilation
// under way. A compilation cache that cannot be written is dropped for
// the run (ErrCacheUnwritable).
//
// The runner knows nothing of JS or of profiling; the profiler hands it an
// already instrumented module, host modules of its own (Options.Link) and
// what the run's context must carry for them (Options.Context).
package runner
