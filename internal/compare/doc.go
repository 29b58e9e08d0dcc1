// Package compare is jsprof compare's run: the same JS built with two
// Javy plugins (javy.BuildJS; a Shopify Function's against each provider,
// dynamic), each module run alike, in exact mode, through the profiler's
// pipeline (profiler.Execute), and each side's module, profile and output
// kept in --out-dir. It reads the JS, its source map (sourcemap.FindMap)
// and the guests' input before anything is built.
//
// Both profiles name the program's functions after the JS file
// (profiler.Options.Source), not the name Javy compiles every program as;
// Profiles hands them on for the HTML page's flame graphs.
//
// It also says how the two runs differ in what they did, not what they
// cost: which one --timeout stopped (TimedOut), how their outputs and
// exit codes differ (Mismatch), and an output's length (LineCount).
//
// It owns the order of a comparison and the files it keeps, nothing
// else: the tables it hands on are the ones Finish built
// (Done.Outcome.Tables), never built again; aligning them is package
// diff's, and flags, messages and exit codes are cmd/jsprof's.
package compare
