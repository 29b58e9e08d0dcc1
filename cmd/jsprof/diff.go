package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/outfile"
	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/internal/view/diff"
	"github.com/jsprof/jsprof/internal/view/htmlview"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

const diffSynopsis = `jsprof diff [--csv|--json] [--by opcode|function|line|wasm] [--top N] [--html FILE] [--fail-over PCT [--fail-floor N]] BASE.pb.gz NEW.pb.gz

Compares two profiles of one JS program, on two engines or of two builds,
and says what changed (the engine, the program, or neither: the engine
code and program bytecode each profile records). Opcodes are aligned by
name, JS functions by name, file and first line, or, moved by an edit, by
name, file and the opcodes they ran (fn (index.js:49→51)). Prints the
totals, what changed and where the cost moved, the opcodes and the JS
functions. --by function: each function's self and total instructions;
--by line: JS lines, a moved function's aligned; --by wasm: the engines'
Wasm functions. CSV and JSON carry exact counts. --html writes a page with
the same and the new profile's flame graph coloured by the change.

--fail-over PCT (5, 5%, 0.5%) exits 1, naming what rose, when the total
rose by PCT percent of its base or more (0: by anything); with --by
function, also when a function in both profiles has a total (itself and
what it called: the table's total change and %) that rose by PCT percent
and by --fail-floor Wasm instructions or more; and when either run did
not complete (a limit, a timeout, a trap). Percentages are compared as
the tables print them, to one decimal (docs/compare.md).

For pprof's own view of the change: go tool pprof -diff_base BASE.pb.gz NEW.pb.gz`

func cmdDiff(ctx context.Context, args []string, io stdio) int {
	fs := cli.NewFlagSet("diff", diffSynopsis, io.err)
	top, format := viewFlags(fs, fmt.Sprintf("rows of each text table (0: all; default %d)", defaultTop))
	by := diffByFlag(fs)
	htmlPath := fs.String("html", "", "also write an HTML report of the change to `file` (self-contained, no network)")
	sourceMap := fs.String("source-map", "", "name both profiles' JS positions after the source map `file`, checked against the JS their modules carry (found beside each profile); profiles jsprof run named after a map already are kept")
	failOver := fs.String("fail-over", "", "exit 1 when the total (with --by function, any function's total) rose by `PCT` percent of its base or more")
	floor := fs.Uint64("fail-floor", diff.DefaultFloor, "with --by function --fail-over, ignore a function whose total rose by fewer than `N` Wasm instructions")
	files, code, done := cli.ParseInterleaved(fs, args, io.out, io.err)
	if done {
		return code
	}
	if len(files) != 2 {
		return cli.BadCommandLine(io.err, fs, fmt.Sprintf("want two profiles, BASE and NEW, have %d", len(files)))
	}
	f, err := format("diff")
	if err != nil {
		return fail(io, cli.ExitUsage, err)
	}
	if err := diff.CheckView(*by); err != nil {
		return fail(io, cli.ExitUsage, fmt.Errorf("diff: %w", err))
	}
	gate, err := diff.ParseGate(*failOver, cli.Given(fs, "fail-over"), *by == report.ByFunction, *floor)
	if err != nil {
		return fail(io, cli.ExitUsage, fmt.Errorf("diff: %w", err))
	}
	if err := outfile.Distinct([]outfile.Named{{What: "--html", Path: *htmlPath}}, []outfile.Named{{What: "the BASE profile", Path: files[0]}, {What: "the NEW profile", Path: files[1]}}); err != nil {
		return fail(io, cli.ExitUsage, fmt.Errorf("diff: %w", err))
	}
	var profs [2]*jsprofile.Profile
	for i, path := range files {
		if profs[i], err = jsprofile.ReadFile(path); err != nil {
			return fail(io, cli.ExitFailure, err)
		}
		profs[i], _, err = javy.MapSaved(ctx, profs[i], *sourceMap, path, nil)
		warn(io, err)
	}
	df := diff.New(report.New(profs[0]), report.New(profs[1]), filepath.Base(files[0]), filepath.Base(files[1]))
	for _, c := range df.Cautions(gate != nil) {
		warn(io, errors.New(c))
	}
	var flame *htmlview.Flame
	if *htmlPath != "" {
		flame = htmlview.NewFlameDiff(profs[0], profs[1], htmlview.FlameOptions{})
	}
	if err := writeDiff(io.files, io.out, df, f, *by, *top, *htmlPath, flame); err != nil {
		return fail(io, cli.ExitFailure, err)
	}
	fails := gate.Failures(df)
	for _, line := range fails {
		fmt.Fprintf(io.err, "jsprof: diff: %s\n", line)
	}
	if len(fails) > 0 {
		return cli.ExitFailure
	}
	return 0
}

// diffByFlag adds --by to diff and compare.
func diffByFlag(fs *flag.FlagSet) *string {
	return fs.String("by", report.ByOpcode, "the view: `opcode` (the opcodes, JS functions and buckets), function (each function's self and total instructions: what --fail-over gates), line (JS lines, moved ones aligned) or wasm (the engines' Wasm functions, aligned by name)")
}

// writeDiff writes the diff's view by in format f on w, and as HTML to
// htmlPath unless it is empty: top rows of each table; -1: the default, 20
// in text and all in HTML. The page has every view, and the new profile's
// flame graph coloured by change when flame is not nil.
func writeDiff(files *outfile.Set, w io.Writer, df *diff.Diff, f report.Format, by string, top int, htmlPath string, flame *htmlview.Flame) error {
	if htmlPath != "" {
		o := htmlview.DiffOptions{Top: max(top, 0), Flame: flame}
		if err := writeHTML(files, htmlPath, func(w io.Writer) error { return htmlview.WriteDiff(w, df, o) }); err != nil {
			return err
		}
	}
	if top < 0 {
		top = defaultTop
	}
	return df.WriteView(w, f, by, top)
}
