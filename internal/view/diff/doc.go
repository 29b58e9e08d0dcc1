// Package diff compares two profiles' cost tables (report.Tables),
// typically of one JS on two engines, and shows the comparison as text,
// CSV and JSON: jsprof diff and jsprof compare, --by wasm included (Diff,
// New). Opcodes are aligned by name, JS functions by name, file and first
// line, natives and Wasm functions by name; a summary says where the cost
// moved. Gate is jsprof diff --fail-over: it fails on a rise, or on a
// profile whose run did not complete, as the profile records its end.
//
// It compares the tables package report computed and must not compute
// costs from a profile itself, nor know how profiles are measured. Its
// HTML page is package htmlview's, which it must not import.
package diff
