// Package inputcost measures what each field path of a Shopify
// Function's input costs to decode (jsprof run --input-cost, issue 41):
// it runs the function on the input, then on the same input without one
// path at a time (cart.lines[].merchandise.product.tags: [] is every
// element of an array), and reads from each run's profile the
// input-decoding phase, as the profile reports it. jsprof's counts are
// exact and deterministic, so the difference is what removing that path
// saves on this input, measured, not estimated; the function's output
// without it, against its output on the whole input, says whether this
// input needed it (unchanged, changed, or the function failed).
//
//	paths.go    the input's tree, read from its JSON bytes with each
//	            object member's span; its field paths and their bytes;
//	            the input without a path, cut from its bytes with the
//	            separator that joined it, the rest byte for byte: what an
//	            author editing the file by hand gets
//	measure.go  which paths are measured (every top-level one, then those
//	            holding Options.MinShare of the input's bytes, the
//	            largest first, Options.MaxPaths in all, the others
//	            counted as left out) and Measure: every run on one
//	            prepared module, in parallel (profiler.Prepared.RunInputs)
//	flag.go     --input-cost's value (Flag)
//	query.go    the hook naming a path's field in the input query
//	            (QueryFields, from the query's field paths: the app
//	            folder's src/*.graphql is found and read elsewhere)
//
// What it says is said honestly: each figure is one removal's, and
// removals are not additive (report.InputCost sums the top-level ones
// beside the decoding total to show it); "unchanged" is about the input
// measured, never a proof that a field is unused.
//
// It owns the paths, the removal and which runs are made; the runs are
// the profiler's, the phases the profile's (jsframes/jsprofile, named in
// the stacks stage), the table's types, text and JSON internal/view/
// report's (InputCost), the HTML section htmlview's. It writes the inputs
// without a path to a temporary folder of its own, removed when it is
// done, and reads inputs as shopify.ReadInput does.
package inputcost
