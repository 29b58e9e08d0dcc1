// Package bytecode reads QuickJS's serialized bytecode (JS_WriteObject's
// output), as Javy embeds it in a module: functions with their names,
// kinds, variables, closures and constant pools, the module record, the
// atom table, and the pc → line and column tables, for the serialization
// formats the engines in use write (Format).
//
// It reads untrusted bytes: no length or count read from the input is
// trusted before it is checked against what remains (MaxInput and the
// other limits bound the work). It knows nothing of runs, profiles or
// memory: package naming matches what it reads to what the meter measured.
package bytecode
