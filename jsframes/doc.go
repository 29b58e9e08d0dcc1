// Package jsframes is the public face of jsprof's JS side: the profile
// format, package jsprofile, whose stacks are layered Wasm frames → JS
// frames (function, file:line) → the JS opcode → the Wasm functions its
// handler ran. It has no code of its own.
//
// A program that reads or writes jsprof's profiles imports jsprofile
// alone (docs/profile-format.md). The stages that make a profile are
// jsprof's implementation, under internal/, one folder a stage, in the
// order data flows through them:
//
//   - internal/run: running modules under wazero (runner), Shopify
//     Functions as function-runner runs them (shopify), building Javy
//     modules (javy);
//   - internal/measure: the exact accounting injected into the module and
//     its wazero host side (meter), and the results as data (costs);
//   - internal/name: the engine's native functions (natives), QuickJS's
//     serialized bytecode and the registry of engine releases (bytecode),
//     measured functions named and given lines (naming), and source maps
//     (sourcemap);
//   - internal/merge: the profile's stacks, from exact results or samples
//     (stacks);
//   - internal/view: the cost tables and their views (report, diff,
//     htmlview, with costfmt for their numbers and reporttest for their
//     tests).
//
// internal/profiler ties the stages into one run; package dispatch, which
// finds the interpreter they measure, and package wasmcore, the Wasm
// format they read and rewrite, are public beside this one.
//
// Stability: nothing here is stable yet. jsprof has made no release, and
// any exported name of this package may change or be deleted in any
// commit, so use it with caution (as wazero's experimental package says
// of its own).
package jsframes
