// Package sourcemap names the positions of a bundled program after the
// files its user wrote: it reads Source Map v3 documents (what esbuild,
// webpack, rollup and tsc write, index maps with sections included), finds
// a program's map the way the ecosystem does (a `//# sourceMappingURL=`
// comment: an inline data: URL or a file beside the program; FindMap: the
// file given, else that one, checked, or a one-line warning), checks that
// a map belongs to the source jsprof has (Check: a stale map or one of
// another build is refused, never used to show wrong positions), and
// rewrites a profile's JS frames from bundle positions to original ones
// (Apply), keeping the bundle positions beside them.
//
// The map is untrusted input: every field is checked and bounded, and a
// map that cannot be read is an error naming what is wrong, never a
// panic. It reads and rewrites profiles only through package jsprofile's
// conventions, and knows nothing of how they were measured (stacks,
// naming) or reported (report, diff, htmlview).
package sourcemap
