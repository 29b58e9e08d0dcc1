// Package bytecode reads QuickJS's serialized bytecode (JS_WriteObject's
// output), as Javy embeds it in a module: functions with their names,
// kinds, variables, closures and constant pools, the module record, the
// atom table, and the pc → line and column tables, in every serialization
// layout of Bellard's QuickJS and QuickJS-NG releases: one parser driven by
// a Layout, which SelectLayout chooses from the engine's identified release
// and the version byte (docs/naming.md, "Formats").
//
// It owns the registry of engine releases (releases.go): one record per
// release, or run of commits, that writes one layout, carrying that
// Layout (embedded, derived in the registry from the one before it), with
// its version bytes, the opcode tables of dispatch's catalog its engines are
// identified by, where its engines keep a function's bytecode object in
// memory (read by naming) and what tests it. Layout selection reads the
// registry, docs/naming.md's release table is generated from it, and a
// test fails when a release known anywhere has no complete record.
//
// It reads untrusted bytes: no length or count read from the input is
// trusted before it is checked against what remains (MaxInput and the
// other limits bound the work). It knows nothing of runs or profiles,
// and of memory only the registry's offsets: package naming matches what
// it reads to what the meter measured.
package bytecode
