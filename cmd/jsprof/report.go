package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/outfile"
	"github.com/jsprof/jsprof/internal/output"
	"github.com/jsprof/jsprof/internal/printable"
	"github.com/jsprof/jsprof/internal/run/extension"
	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/internal/view/htmlview"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

const reportSynopsis = `jsprof report [--csv|--json] [--by opcode|function|line|summary|wasm] [--top N] [--function NAME]
              [--html FILE [--source JS]... [--module WASM]] PROFILE

Reads a profile jsprof wrote (jsprof run -o PROFILE) and prints its cost:
per opcode (executions, Wasm instructions, instructions per execution,
share of the total), per JS function and opcode, per source line, or per
Wasm function of the engine (self and total instructions, and the JS
opcodes and natives that reached it; profiles with Wasm frames). The
text is for a terminal (aligned, human-scaled); CSV and JSON carry exact
counts. The opcode names and the engine travel in the profile: the module
is not needed. --html writes a self-contained page: the hot spots, a
flame graph, the JS source annotated line by line (from --source, or from
the javy_source section of the module given with --module, or by default of
the profile's module, found beside the profile or in the current directory:
jsprof build and the Javy CLI embed the JS there), the natives and every
table. With no PROFILE, the jsprof.pb.gz jsprof run wrote in the current
directory (in a function's folder, annotated from the module it builds).`

// viewFlags adds --csv, --json and --top (with topUsage) and returns --top
// and a function that reads and checks them: its error, a usage error,
// names the command.
func viewFlags(fs *flag.FlagSet, topUsage string) (*int, func(cmd string) (report.Format, error)) {
	csvOut := fs.Bool("csv", false, "write CSV, with exact counts")
	jsonOut := fs.Bool("json", false, "write one JSON document, with exact counts")
	top := fs.Int("top", -1, topUsage)
	return top, func(cmd string) (report.Format, error) {
		f := report.FormatText
		switch {
		case *csvOut && *jsonOut:
			return 0, fmt.Errorf("%s: --csv and --json: choose one", cmd)
		case *csvOut:
			f = report.FormatCSV
		case *jsonOut:
			f = report.FormatJSON
		}
		if *top < -1 {
			return 0, fmt.Errorf("%s: --top %d: want 0 (all) or more", cmd, *top)
		}
		return f, nil
	}
}

// defaultTop is the rows of each text table when --top is not given; CSV,
// JSON and HTML then have every row.
const defaultTop = 20

func cmdReport(ctx context.Context, args []string, io stdio) int {
	fs := cli.NewFlagSet("report", reportSynopsis, io.err)
	top, format := viewFlags(fs, fmt.Sprintf("rows of each table, and opcodes under each function (0: all; default %d in text, all in CSV and JSON, up to 300 in HTML); at most 5 callers under each Wasm function", defaultTop))
	by := fs.String("by", report.ByOpcode, "the view: `opcode`, function (each function with its opcodes), line, summary or wasm (each Wasm function with the opcodes and natives that reached it)")
	function := fs.String("function", "", "only the JS functions named `NAME`")
	htmlPath := fs.String("html", "", "also write an HTML report to `file` (self-contained, no network)")
	var sources cli.List
	fs.Var(&sources, "source", "annotate the HTML report with the JS `file` (repeatable; matched to the profile's JS files by name)")
	module := fs.String("module", "", "annotate the HTML report with the JS the Javy module `file` carries (its javy_source section)")
	sourceMap := fs.String("source-map", "", "name the profile's JS positions after the source map `file` (a profile jsprof run wrote names them already when the JS named its map), checked against the JS of --source, --module or the profile's module")
	files, code, done := cli.ParseInterleaved(fs, args, io.out, io.err)
	if done {
		return code
	}
	if _, err := os.Stat(defaultProfile); len(files) == 0 && err == nil {
		files = []string{defaultProfile} // what jsprof run wrote here
		if ext, err := extension.Load("."); err == nil && *module == "" && *htmlPath != "" {
			*module = ext.Module // in a function's folder, the module it builds
		}
	}
	if len(files) != 1 {
		return cli.BadCommandLine(io.err, fs, fmt.Sprintf("want one profile, have %d", len(files)))
	}
	f, err := format("report")
	if err != nil {
		return fail(io, cli.ExitUsage, err)
	}
	if (len(sources) > 0 || *module != "") && *htmlPath == "" && *sourceMap == "" {
		return fail(io, cli.ExitUsage, errors.New("report: --source and --module annotate the HTML report: add --html FILE"))
	}
	path := files[0]
	inputs := []outfile.Named{{What: "the profile", Path: path}, {What: "the --module", Path: *module}}
	for _, s := range sources {
		inputs = append(inputs, outfile.Named{What: "a --source file", Path: s})
	}
	if err := outfile.Distinct([]outfile.Named{{What: "--html", Path: *htmlPath}}, inputs); err != nil {
		return fail(io, cli.ExitUsage, fmt.Errorf("report: %w", err))
	}
	prof, err := jsprofile.ReadFile(path)
	if err != nil {
		return fail(io, cli.ExitFailure, err)
	}
	var given []javy.SourceFile // the JS of --source and --module
	if len(sources) > 0 || *module != "" {
		var note string
		if given, note, err = javy.ReadSources(sources, *module); err != nil {
			return fail(io, cli.ExitFailure, fmt.Errorf("report: %w", err))
		} else if note != "" {
			fmt.Fprintf(io.err, "jsprof: report: --module %s: %s; not annotated\n", *module, printable.String(note))
		}
	}
	prof, smap, err := javy.MapSaved(ctx, prof, *sourceMap, path, given)
	warn(io, err)
	data := report.New(prof)
	opts := report.ReportOptions{By: *by, Top: *top, Function: *function, Source: filepath.Base(path)}
	if opts.Top < 0 {
		opts.Top = 0
	}
	if *htmlPath != "" {
		r, err := report.NewReport(data, opts)
		if err != nil {
			return fail(io, cli.ExitUsage, fmt.Errorf("report: %w", err))
		}
		srcs := javy.ReportSources(ctx, prof, smap, given, len(sources) == 0 && *module == "", path)
		for _, s := range htmlview.UnmatchedSources(r.Data(), srcs, prof.Meta) {
			fmt.Fprintf(io.err, "jsprof: report: %s: no JS file of that name in the profile; not annotated\n", printable.String(s.From))
		}
		page := &output.HTML{Path: *htmlPath, Options: opts, Sources: func(context.Context, *jsprofile.Profile) []javy.SourceFile { return srcs }}
		if err := writeOutput(ctx, io, page, output.Result{Profile: prof.Profile, Tables: data}); err != nil {
			return fail(io, cli.ExitFailure, err)
		}
	}
	if f == report.FormatText && *top < 0 {
		opts.Top = defaultTop
	}
	r, err := report.NewReport(data, opts)
	if err != nil {
		return fail(io, cli.ExitUsage, fmt.Errorf("report: %w", err))
	}
	if err := f.Write(io.out, r.WriteText, r.WriteCSV, r.WriteJSON); err != nil {
		return fail(io, cli.ExitFailure, err)
	}
	return 0
}

// writeHTML writes a page to path, atomically; errors name the file.
func writeHTML(files *outfile.Set, path string, write func(io.Writer) error) error {
	err := files.WriteAtomic(path, func(f *os.File) error { return write(f) })
	if err != nil && !strings.Contains(err.Error(), path) {
		err = fmt.Errorf("--html %s: %w", path, err)
	}
	return err
}
