// Package cachedir keeps wazero's compilation cache in a directory that
// jsprof can trust (Cache): kept within its size (cache.go), each entry
// sealed with jsprof's own digest once compiled and checked against its
// seal before wazero reads it, one without a seal dropped (cache_seal.go),
// and used only when no one but jsprof's own user can have written it
// (cache_trust.go); one compilation of a module into it at a time, across
// processes (cache_lock.go, advisory locks under jsprof-locks); its
// default directory and size, from the environment (env.go). The test
// suite opens its shared cache through it too (fixtures.CompilationCache),
// so that the engines the tests compile are sealed and the tests' jsprof
// commands reuse them.
//
// It owns the directory's files and their checks, nothing of what is
// compiled or run: that is internal/run/runner's. It imports no other
// package of jsprof, so that every test may use it.
package cachedir
