// Package enginecache is the prepared-engine cache: an engine analysed
// (dispatch) and instrumented (meter) once, with what naming needs of it
// (Facts), kept on disk beside wazero's compiled modules and read back by
// every later run of the same engine with the same options and jsprof.
//
// Analysing and instrumenting an engine takes a few hundred milliseconds
// (the dispatch analysis, the instruction counter, renumbering every call
// for the injected imports), and what naming needs of the engine tens more
// (Facts); all of it is the same every time for the same engine,
// options and jsprof: the prepared engine cache keeps it, beside wazero's
// compiled modules (profiler.Options.CacheDir), so that a run pays for it once per
// engine.
//
// An entry is two files named by the key: KEY.wasm, the instrumented
// module, and KEY.json, the analysis, the plan and the engine's facts.
// Both are written to temporary files and renamed, the .json last: a
// reader that finds the .json finds a complete .wasm, and concurrent
// writers of one key write the same bytes. What is read back is checked
// (the plan's indices against the analysis, the facts against it too, the
// instrumented module against its digest, recorded in the .json); an entry
// that fails is removed and made again, never trusted. The cache
// directory's size bound (jsprof's --cache-size) covers these files too.
//
// A static module's entry is found by a digest of the module without its
// program (Key); KeyMemo remembers that key by the module file's identity
// (keymemo.go). It owns the entries' files and their checks, nothing of
// how an engine is analysed, instrumented or named: the pipeline
// (internal/profiler) does that and hands it the results.
package enginecache
