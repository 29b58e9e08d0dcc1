// Package jsframes is the JS side of jsprof: everything between the
// interpreter that package dispatch found and the profile a developer reads.
// It has no code of its own; its packages, in the order data flows
// through them:
//
//   - meter: the exact accounting injected into the module (instructions
//     per JS function, opcode and pc, calling contexts, the sampling
//     shadow stack), and its host side that reads the counters back;
//     meter/costs holds the results as data, for naming and stacks,
//     which read them without wazero;
//   - bytecode: the reader of QuickJS's serialized bytecode (functions,
//     atoms, constants, pc → line tables) found in a Javy module;
//   - naming: measured functions named and given lines, from the
//     program's bytecode and the engine's memory;
//   - stacks: the stacks of a profile built from the meter's results or
//     samples, in the profile format;
//   - jsprofile: the profile format itself, written and read;
//   - sourcemap: a bundle's source map read, found and checked, and a
//     profile's JS positions named after the files the bundle was made of;
//   - report: the cost tables computed from a profile, and their text,
//     CSV and JSON views;
//   - diff: two profiles' tables aligned (typically one JS on two
//     engines), and their text, CSV and JSON views;
//   - htmlview: the self-contained HTML pages of a report and of a diff,
//     with their flame graphs and annotated source.
//
// No package here runs modules (internal/profiler and internal/runner do;
// the tests' kit, internal/bctest, runs the real engines the tests read)
// or rewrites them outside the meter's instrumentation. Two internal
// packages serve the last three: costfmt writes their numbers alike, and
// reporttest, for tests only, holds the profiles, golden files and
// headless browser their tests share.
package jsframes
