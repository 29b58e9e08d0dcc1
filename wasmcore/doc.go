// Package wasmcore is jsprof's model of the WebAssembly binary format: it
// decodes modules, encodes them back, rewrites them and symbolizes code
// offsets.
//
// # What it owns
//
// The binary format and nothing above it: sections (all known ones, custom
// sections in place, the "name" section parsed), every instruction wazero
// runs (MVP, sign extension, saturating truncation, bulk memory, reference
// types, multi-value, SIMD including relaxed SIMD, tail calls) plus threads
// atomics and legacy exception handling for robustness, rewriting (types,
// functions, imports with renumbering, globals, exports, body splicing),
// symbolization from the name section and DWARF, a program detached from
// its engine (Module.DetachSegment: a passive data segment taken out of
// the code, for the host to write before the module runs), the bounds a
// module must keep to be compiled (CheckBounds), and the one rewrite that
// every profile rests on, the instruction counter (CountInstructions:
// docs/instruction-counting.md), a transformation of any module's code
// that needs the format's control flow and nothing else, with the cost
// models it counts under (CostModel: their names, parsed back, and what
// each counts, in words). It knows nothing about JavaScript or QuickJS:
// those packages interpret modules through this one, so that the format's
// details live in one place.
//
// It must not import other jsprof packages (its tests may use fixtures):
// everything else depends on it, and a cycle or a dependency on engine
// knowledge would make the format model harder to trust and to test.
//
// # Byte-identical round trips
//
// Decode followed by Encode of an unmodified module reproduces the input
// byte for byte, including the non-canonical (padded) LEB128s wasm-ld
// leaves in clang output. This matters because code offsets are what DWARF
// and profiles refer to: rewriting a binary must not move code it did not
// change. Decode keeps a private snapshot of what it decoded; Encode
// compares the public fields with it and copies the original bytes of every
// section, function body, element or data segment and custom section that
// is unchanged, encoding only the rest canonically. There are no dirty
// flags: edit the fields by plain assignment (in place or not) and Encode
// sees it. Calls renumbered by AddImportFunc keep their padded width, so
// bodies keep their size.
//
// Start-up cost matters to the command, which decodes a megabyte engine on
// every run: DecodeOwned decodes bytes the caller gives up without copying
// them, Clone copies a module for editing without decoding it again (the
// clone shares the bytes: edit it by assignment), and EncodeTo writes the
// encoding section by section, a digest of it needing no copy.
//
// # Index spaces
//
// Function and global indices count imports first, the numbering
// wasm-objdump prints and the binary format uses: defined function i is
// NumImportedFuncs()+i. Errors, names and the symbolizer all use it.
//
// # Untrusted input
//
// Decode never panics and never allocates more than the remaining input
// could justify (a count read from the input is checked against the bytes
// left before anything is allocated for it). Errors are *DecodeError values
// naming the section, the item index and the file offset. DWARF is parsed
// with the standard library's debug/dwarf, under recover, with caps on
// entries and line rows; malformed DWARF disables DWARF symbolization
// instead of failing.
//
// A Module is plain data and is not safe for concurrent mutation; a
// Symbolizer is immutable and safe for concurrent use.
//
// Stability: nothing here is stable yet. jsprof has made no release, and
// any exported name of this package may change or be deleted in any
// commit, so use it with caution (as wazero's experimental package says
// of its own).
package wasmcore
