package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/jsprof/jsprof/jsframes/diff"
	"github.com/jsprof/jsprof/jsframes/htmlview"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/jsframes/report"
)

const diffSynopsis = `jsprof diff [--csv|--json] [--by opcode|wasm] [--top N] [--html FILE] BASE.pb.gz NEW.pb.gz

Compares two profiles of the same JS, typically on two engine releases.
Opcodes are aligned by name (their numbering differs between releases),
JS functions by name, file and first line. Prints the totals, a paragraph
on where the cost moved, then per opcode the executions and instructions
per execution in each and the change, opcodes that ran in only one engine,
and per JS function the change. --by wasm compares the engines' Wasm
functions instead, aligned by name: self instructions in each, the change
and the ratio (profiles with Wasm frames). CSV and JSON carry exact counts. --html
writes a page with the same, and the new profile's flame graph coloured
by the change from the base.

For pprof's own view of the change: go tool pprof -diff_base BASE.pb.gz NEW.pb.gz`

func cmdDiff(ctx context.Context, args []string, io stdio) int {
	fs := newFlagSet("diff", diffSynopsis, io)
	format := formatFlags(fs)
	top := fs.Int("top", -1, fmt.Sprintf("rows of each text table (0: all; default %d)", defaultTop))
	by := diffByFlag(fs)
	htmlPath := fs.String("html", "", "also write an HTML report of the change to `file` (self-contained, no network)")
	sourceMap := fs.String("source-map", "", "name both profiles' JS positions after the source map `file`, checked against the JS their modules carry (found beside each profile); profiles jsprof run named after a map already are kept")
	files, code, done := parseInterleaved(fs, args, io)
	if done {
		return code
	}
	if len(files) != 2 {
		fmt.Fprintf(io.err, "jsprof: diff: want two profiles, BASE and NEW, have %d\n", len(files))
		fs.Usage()
		return exitUsage
	}
	f, err := format()
	if err != nil {
		return fail(io, exitUsage, fmt.Errorf("diff: %w", err))
	}
	if *top < -1 {
		return fail(io, exitUsage, fmt.Errorf("diff: --top %d: want 0 (all) or more", *top))
	}
	if err := checkDiffBy(*by); err != nil {
		return fail(io, exitUsage, fmt.Errorf("diff: %w", err))
	}
	var profs [2]*jsprofile.Profile
	for i, path := range files {
		if profs[i], err = jsprofile.ReadFile(path); err != nil {
			return fail(io, exitFailure, err)
		}
		profs[i], _ = mapSaved(profs[i], *sourceMap, path, nil, io)
	}
	df := diff.New(report.New(profs[0]), report.New(profs[1]), filepath.Base(files[0]), filepath.Base(files[1]))
	var flame *htmlview.Flame
	if *htmlPath != "" {
		flame = htmlview.NewFlameDiff(profs[0], profs[1], htmlview.FlameOptions{})
	}
	if err := writeDiffWith(io.out, df, f, *by, *top, *htmlPath, flame); err != nil {
		return fail(io, exitFailure, err)
	}
	return 0
}

// diffByFlag adds --by to diff and compare.
func diffByFlag(fs *flag.FlagSet) *string {
	return fs.String("by", report.ByOpcode, "the view: `opcode` (the opcodes, JS functions and buckets) or wasm (the engines' Wasm functions, aligned by name)")
}

// checkDiffBy checks diff's and compare's --by.
func checkDiffBy(by string) error {
	if by != report.ByOpcode && by != report.ByWasm {
		return fmt.Errorf("--by %s: want %s or %s", by, report.ByOpcode, report.ByWasm)
	}
	return nil
}

// writeDiff writes the diff's view by in format f on w, and as HTML to
// htmlPath unless it is empty: top rows of each table; -1: the default, 20
// in text and all in HTML.
func writeDiff(w io.Writer, df *diff.Diff, f outputFormat, by string, top int, htmlPath string) error {
	return writeDiffWith(w, df, f, by, top, htmlPath, nil)
}

// writeDiffWith is writeDiff with the new profile's flame graph, coloured
// by change, on the HTML page (when flame is not nil). The page has every
// view.
func writeDiffWith(w io.Writer, df *diff.Diff, f outputFormat, by string, top int, htmlPath string, flame *htmlview.Flame) error {
	if htmlPath != "" {
		o := htmlview.DiffOptions{Top: max(top, 0), Flame: flame}
		if err := writeHTML(htmlPath, func(w io.Writer) error { return htmlview.WriteDiff(w, df, o) }); err != nil {
			return err
		}
	}
	if top < 0 {
		top = defaultTop
	}
	if by == report.ByWasm {
		return writeFormat(w, f,
			func(w io.Writer) error { return df.WriteWasmText(w, top) },
			df.WriteWasmCSV, df.WriteWasmJSON)
	}
	return writeFormat(w, f,
		func(w io.Writer) error { return df.WriteText(w, top) },
		df.WriteCSV, df.WriteJSON)
}
