// Package bytecode reads QuickJS's serialized bytecode (JS_WriteObject's
// output), as Javy embeds it in a module: functions with their names,
// kinds, variables, closures and constant pools, the module record, the
// atom table, and the pc → line and column tables, in every serialization
// layout of Bellard's QuickJS and QuickJS-NG releases: one parser driven by
// a Layout, which SelectLayout chooses from the engine's identified release
// and the version byte (docs/naming.md, "Formats").
//
// It reads untrusted bytes: no length or count read from the input is
// trusted before it is checked against what remains (MaxInput and the
// other limits bound the work). It knows nothing of runs, profiles or
// memory: package naming matches what it reads to what the meter measured.
package bytecode
