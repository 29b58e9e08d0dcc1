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

	"github.com/jsprof/jsprof/jsframes/report"
)

const reportSynopsis = `jsprof report [--csv|--json] [--by opcode|function|line] [--top N] [--function NAME] [--html FILE] PROFILE

Reads a profile jsprof wrote (jsprof run -o PROFILE) and prints its cost:
per opcode (executions, Wasm instructions, instructions per execution,
share of the total), per JS function and opcode, or per source line. The
text is for a terminal (aligned, human-scaled); CSV and JSON carry exact
counts. The opcode names and the engine travel in the profile: the module
is not needed. --html writes a self-contained page with every view.`

// outputFormat is the format of a report or a diff on stdout.
type outputFormat int

const (
	formatText outputFormat = iota
	formatCSV
	formatJSON
)

// formatFlags adds --csv and --json and returns a function that reads them.
func formatFlags(fs *flag.FlagSet) func() (outputFormat, error) {
	csvOut := fs.Bool("csv", false, "write CSV, with exact counts")
	jsonOut := fs.Bool("json", false, "write one JSON document, with exact counts")
	return func() (outputFormat, error) {
		switch {
		case *csvOut && *jsonOut:
			return 0, errors.New("--csv and --json: choose one")
		case *csvOut:
			return formatCSV, nil
		case *jsonOut:
			return formatJSON, nil
		}
		return formatText, nil
	}
}

// defaultTop is the rows of each text table when --top is not given; CSV,
// JSON and HTML then have every row.
const defaultTop = 20

func cmdReport(ctx context.Context, args []string, io stdio) int {
	fs := newFlagSet("report", reportSynopsis, io)
	format := formatFlags(fs)
	by := fs.String("by", report.ByOpcode, "the view: `opcode`, function (each function with its opcodes) or line")
	top := fs.Int("top", -1, fmt.Sprintf("rows of each table, and opcodes under each function (0: all; default %d in text, all in CSV, JSON and HTML)", defaultTop))
	function := fs.String("function", "", "only the JS functions named `NAME`")
	htmlPath := fs.String("html", "", "also write an HTML report to `file` (self-contained, no network)")
	files, code, done := parseInterleaved(fs, args, io)
	if done {
		return code
	}
	if len(files) != 1 {
		fmt.Fprintf(io.err, "jsprof: report: want one profile, have %d\n", len(files))
		fs.Usage()
		return exitUsage
	}
	f, err := format()
	if err != nil {
		return fail(io, exitUsage, fmt.Errorf("report: %w", err))
	}
	if *top < -1 {
		return fail(io, exitUsage, fmt.Errorf("report: --top %d: want 0 (all) or more", *top))
	}
	path := files[0]
	data, err := report.ReadFile(path)
	if err != nil {
		return fail(io, exitFailure, err)
	}
	opts := report.ReportOptions{By: *by, Top: *top, Function: *function, Source: filepath.Base(path)}
	if opts.Top < 0 {
		opts.Top = 0
	}
	if *htmlPath != "" {
		r, err := report.NewReport(data, opts)
		if err != nil {
			return fail(io, exitUsage, fmt.Errorf("report: %w", err))
		}
		if err := writeHTML(*htmlPath, r.WriteHTML); err != nil {
			return fail(io, exitFailure, err)
		}
	}
	if f == formatText && *top < 0 {
		opts.Top = defaultTop
	}
	r, err := report.NewReport(data, opts)
	if err != nil {
		return fail(io, exitUsage, fmt.Errorf("report: %w", err))
	}
	if err := writeFormat(io.out, f, r.WriteText, r.WriteCSV, r.WriteJSON); err != nil {
		return fail(io, exitFailure, err)
	}
	return 0
}

// parseInterleaved parses flags that may come before, between or after the
// positional arguments (jsprof report PROFILE --json), and returns those.
func parseInterleaved(fs *flag.FlagSet, args []string, io stdio) (positional []string, code int, done bool) {
	for {
		if code, done := parseFlags(fs, args, io); done {
			return nil, code, true
		}
		if fs.NArg() == 0 {
			return positional, 0, false
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// writeHTML writes a page to path, atomically; errors name the file.
func writeHTML(path string, write func(io.Writer) error) error {
	err := writeFileAtomic(path, func(f *os.File) error { return write(f) })
	if err != nil && !strings.Contains(err.Error(), path) {
		err = fmt.Errorf("--html %s: %w", path, err)
	}
	return err
}

// writeFormat writes with the writer of the format.
func writeFormat(w io.Writer, f outputFormat, text, csv, json func(io.Writer) error) error {
	switch f {
	case formatCSV:
		return csv(w)
	case formatJSON:
		return json(w)
	}
	return text(w)
}
