// Package stacks builds jsprof profiles from what the meter measured: the
// exact results of a run (ExactProfile) or the samples taken during one
// (Sampler), each stack laid out as docs/profile-format.md says, JS
// functions named through an Identity. In an exact profile it also lays
// the Wasm stacks sampled in each exact slot around the slot's JS frames,
// apportioning the slot's exact count among them (wasmsplit.go), and roots
// each stack at the phase of the run it ran in (phase.go).
//
// It owns the shape of the stacks, not the format they are written in
// (package jsprofile), nor the names (package naming), nor what reports
// compute from them (packages report, diff and htmlview).
package stacks
