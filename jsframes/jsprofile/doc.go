// Package jsprofile owns the jsprof profile format: a pprof profile
// (github.com/google/pprof/profile) with jsprof's conventions, described
// for users in docs/profile-format.md.
//
// It is the one definition of those conventions, for writing and for
// reading alike: the sample types and their order, the frame kinds and how
// a Function's system_name carries them, the jsprof.* comments (Meta), how
// identical stacks merge (Builder), how the profiles of several inputs
// merge, one at a time as their runs end (Merger), and what a reader
// accepts (Read), so
// that a profile jsprof writes is always one it can read back, and a
// profile it did not write is refused with a reason. Reading stacks, it
// also finds the one an uncaught JS error was thrown on (ThrowStack), for
// the Throw the profile records. Its names are the only definitions of the
// profiling modes (ModeExact, ModeSample, and ModeOff for a run that
// writes no profile) and of the buckets that root stacks outside JS
// (Bucket*): every other package uses these (internal/testrules fails a
// second definition).
//
// It knows nothing of how stacks are measured (package stacks) or what is
// computed from them (packages report, diff and htmlview), and it must not
// import any of them.
//
// Stability: nothing here is stable yet. jsprof has made no release, and
// any exported name of this package may change or be deleted in any
// commit, so use it with caution (as wazero's experimental package says
// of its own). The profile format is documented in
// docs/profile-format.md, but it too may still change: a profile written
// by one commit is not promised to be read by another.
package jsprofile
