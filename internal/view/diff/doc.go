// Package diff compares two profiles' cost tables (report.Tables),
// typically of one JS on two engines or of two builds of one program, and
// shows the comparison as text, CSV and JSON: jsprof diff and jsprof
// compare, --by function, line and wasm included (Diff, New, WriteView).
// It says what changed (Changed: the engine, the program, or neither)
// from the engine code and program bytecode the profiles record. Opcodes
// are aligned by name, JS functions by name, file, shape and position
// (matchMoved: a function an edit moved is one row), lines by function
// and line, taken back across such moves (alignLines), natives and Wasm
// functions by name; a summary says what changed and where the cost
// moved. Gate is jsprof diff --fail-over: it fails on a rise of the total,
// or, with --by function, of a function's total over a floor, as the
// tables print them, or on a profile whose run did not complete, as the
// profile records its end.
//
// It compares the tables package report computed and must not compute
// costs from a profile itself, nor know how profiles are measured. Its
// HTML page is package htmlview's, which it must not import.
package diff
