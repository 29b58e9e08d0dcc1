package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/compare"
	"github.com/jsprof/jsprof/internal/outfile"
	"github.com/jsprof/jsprof/internal/view/diff"
	"github.com/jsprof/jsprof/internal/view/htmlview"
)

const compareSynopsis = `jsprof compare --plugin BASE.wasm --plugin NEW.wasm [flags] index.js [-- guest args...]

Builds index.js with each of two Javy plugins (as 'jsprof build' does,
static), runs both modules with exact profiling, checks that both printed
the same output and exited alike, and prints the diff of their profiles (as
'jsprof diff' does; --by wasm: their Wasm functions), the first plugin's as
the base. Both are counted under one cost model (--cost: wasmtime's fuel,
as function-runner counts, by default), which jsprof names on stderr. The
guests get the guest arguments, the --stdin file (or nothing) as stdin, and
jsprof's stderr; their stdout is compared, not printed. The exit code is 0
when both behaved alike, 1 when they did not or --timeout stopped either
(the diff is still printed).`

func cmdCompare(ctx context.Context, args []string, io stdio) int {
	return compareWith(ctx, args, io, nil)
}

// compareWith runs each side's job with run: profiler.Execute when nil
// (tests give another).
func compareWith(ctx context.Context, args []string, io stdio, run compare.Runner) int {
	fs := cli.NewFlagSet("compare", compareSynopsis, io.err)
	var plugins cli.List
	fs.Var(&plugins, "plugin", "a Javy `plugin.wasm`: give two, the base first, then the new")
	top, format := viewFlags(fs, fmt.Sprintf("rows of each text table (0: all; default %d)", defaultTop))
	by := diffByFlag(fs)
	htmlPath := fs.String("html", "", "also write an HTML report of the change to `file` (self-contained, no network)")
	outDir := fs.String("out-dir", "", "keep the modules, profiles and guest outputs in `DIR` (base.wasm, base.pb.gz, base.stdout, new.…)")
	stdinPath := fs.String("stdin", "", "give both guests this `file` as stdin (default: empty)")
	inputPath := fs.String("input", "", "a Shopify Function's JSON input `file`: each plugin given is then a provider, and the JS is built against it as a dynamic function")
	var timeout time.Duration
	cli.DurationVar(fs, &timeout, "timeout", 0, "stop each guest after it has run this `duration` (compiling not counted); a guest stopped makes the compare fail (exit 1), its diff still printed")
	sourceMap := fs.String("source-map", "", sourceMapUsage)
	readCost := costFlag(fs)
	cacheDir := cacheFlag(fs)
	// Flags may come after the JS file; guest arguments after --.
	var guestArgs []string
	for i, a := range args {
		if a == "--" {
			args, guestArgs = args[:i], args[i+1:]
			break
		}
	}
	positional, code, done := cli.ParseInterleaved(fs, args, io.out, io.err)
	if done {
		return code
	}
	if len(positional) != 1 {
		return cli.BadCommandLine(io.err, fs, fmt.Sprintf("want one JS file (guest arguments go after --), have %d: %s", len(positional), strings.Join(positional, " ")))
	}
	if len(plugins) != 2 {
		return fail(io, cli.ExitUsage, fmt.Errorf("compare: want two --plugin, the base and the new, have %d", len(plugins)))
	}
	f, err := format("compare")
	if err != nil {
		return fail(io, cli.ExitUsage, err)
	}
	if err := diff.CheckView(*by); err != nil {
		return fail(io, cli.ExitUsage, fmt.Errorf("compare: %w", err))
	}
	cost, err := readCost()
	if err != nil {
		return fail(io, cli.ExitUsage, fmt.Errorf("compare: %w", err))
	}
	if *inputPath != "" && *stdinPath != "" {
		return fail(io, cli.ExitUsage, errors.New("compare: --input and --stdin: choose one"))
	}
	sides, err := compare.Compare(ctx, compare.Comparison{SourcePath: positional[0], Plugins: [2]string{plugins[0], plugins[1]},
		Function: *inputPath != "", Input: cmp.Or(*inputPath, *stdinPath), Args: guestArgs, Cost: cost, Timeout: timeout, Cache: cacheDir(),
		Stderr: io.err, Warn: func(err error) { warn(io, err) }, Run: run, SourceMap: *sourceMap, OutDir: *outDir, Files: io.files,
		Outputs: []outfile.Named{{What: "--html", Path: *htmlPath}}})
	if err != nil {
		return failInterrupted(ctx, io, cli.ExitFailure, err)
	}
	names := [2]string{filepath.Base(plugins[0]), filepath.Base(plugins[1])}
	if names[0] == names[1] {
		names = [2]string{plugins[0], plugins[1]}
	}
	df := diff.New(sides[0].Done.Outcome.Tables, sides[1].Done.Outcome.Tables, names[0], names[1])
	var flame *htmlview.Flame
	if *htmlPath != "" {
		profs, err := compare.Profiles(sides)
		if warn(io, err); err == nil {
			flame = htmlview.NewFlameDiff(profs[0], profs[1], htmlview.FlameOptions{})
		}
	}
	if err := writeDiff(io.files, io.out, df, f, *by, *top, *htmlPath, flame); err != nil {
		return fail(io, cli.ExitFailure, err)
	}
	// The diff's counts mean nothing without their cost model, and its
	// formats have no place for it: it is said beside them, in every format.
	fmt.Fprintf(io.err, "jsprof: compare: Wasm instructions counted as %s (--cost %s: %s)\n", cost, cost, cost.Meaning())
	if stopped := compare.TimedOut(sides); stopped != "" {
		// A guest stopped part-way did not do all its work: its output
		// and its profile are no measure of the engine's, whether or not
		// the other side was stopped too.
		return fail(io, cli.ExitFailure, fmt.Errorf("compare: %s after --timeout %v: the profiles cover part of a run", stopped, timeout))
	}
	if mismatch := compare.Mismatch(sides); mismatch != "" {
		return fail(io, cli.ExitFailure, errors.New("compare: the engines behaved differently: "+mismatch))
	}
	fmt.Fprintf(io.err, "jsprof: both engines printed the same output (%s) and exited with %d\n", compare.LineCount(sides[0].Stdout.Bytes()), sides[0].Done.ExitCode)
	return 0
}
