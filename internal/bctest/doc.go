// Package bctest gives the tests of packages bytecode and naming the real
// engines and the programs they share: the two Javy plugins, the fixture
// programs, their serialized bytecode kept in
// internal/name/bytecode/testdata/naming, and metered runs of static
// modules built from them; and, for the
// serialization formats of other releases, function-runner's providers,
// npm quickjs-wasi's QuickJS-NG builds (wasi.go) and jsprof's own runner
// around Bellard QuickJS 2021-03-27 (qjsrunner.go).
//
// It is imported by tests only, and does not import package bytecode, whose
// own tests use it.
package bctest
