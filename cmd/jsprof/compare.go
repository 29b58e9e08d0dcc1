package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/internal/view/diff"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/wasmcore"
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

// profileRunner runs a job: profiler.Execute (tests give another).
type profileRunner func(ctx context.Context, job profiler.Job) (*profiler.Done, error)

func cmdCompare(ctx context.Context, args []string, io stdio) int {
	return compare(ctx, args, io, profiler.Execute)
}

func compare(ctx context.Context, args []string, io stdio, run profileRunner) int {
	fs := cli.NewFlagSet("compare", compareSynopsis, io.err)
	var plugins cli.List
	fs.Var(&plugins, "plugin", "a Javy `plugin.wasm`: give two, the base first, then the new")
	top, format := viewFlags(fs, fmt.Sprintf("rows of each text table (0: all; default %d)", defaultTop))
	by := diffByFlag(fs)
	htmlPath := fs.String("html", "", "also write an HTML report of the change to `file` (self-contained, no network)")
	outDir := fs.String("out-dir", "", "keep the modules, profiles and guest outputs in `DIR` (base.wasm, base.pb.gz, base.stdout, new.…)")
	stdinPath := fs.String("stdin", "", "give both guests this `file` as stdin (default: empty)")
	inputPath := fs.String("input", "", "a Shopify Function's JSON input `file`: each plugin given is then a provider, and the JS is built against it as a dynamic function")
	timeout := fs.Duration("timeout", 0, "stop each guest after it has run this `duration` (compiling not counted); a guest stopped makes the compare fail (exit 1), its diff still printed")
	sourceMap := fs.String("source-map", "", sourceMapUsage)
	costName := fs.String("cost", costFuel, "what an instruction costs: fuel (wasmtime's fuel, as function-runner counts) or all (every instruction but block, loop, else and end)")
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
		return fail(io, exitUsage, fmt.Errorf("compare: want two --plugin, the base and the new, have %d", len(plugins)))
	}
	f, err := format("compare")
	if err != nil {
		return fail(io, exitUsage, err)
	}
	if err := checkDiffBy(*by); err != nil {
		return fail(io, exitUsage, fmt.Errorf("compare: %w", err))
	}
	cost, err := parseCost(*costName)
	if err != nil {
		return fail(io, exitUsage, fmt.Errorf("compare: %w", err))
	}
	jsPath := positional[0]
	src, err := os.ReadFile(jsPath)
	if err != nil {
		return fail(io, exitFailure, err)
	}
	smap, err := profiler.FindMap(*sourceMap, profiler.Program{Text: src, Path: jsPath})
	warn(io, err)
	var stdin []byte
	if *inputPath != "" && *stdinPath != "" {
		return fail(io, exitUsage, errors.New("compare: --input and --stdin: choose one"))
	}
	if *inputPath != "" {
		if stdin, err = os.ReadFile(*inputPath); err != nil {
			return fail(io, exitFailure, fmt.Errorf("--input: %w", err))
		}
	}
	if *stdinPath != "" {
		if stdin, err = os.ReadFile(*stdinPath); err != nil {
			return fail(io, exitFailure, fmt.Errorf("--stdin: %w", err))
		}
	}
	if *outDir != "" {
		if err := os.MkdirAll(*outDir, 0o755); err != nil {
			return fail(io, exitFailure, fmt.Errorf("--out-dir: %w", err))
		}
	}
	sides, err := profiler.Compare(ctx, profiler.Comparison{Source: src, SourcePath: jsPath, Plugins: [2]string{plugins[0], plugins[1]},
		Function: *inputPath != "", Stdin: stdin, Args: guestArgs, Cost: cost, Timeout: *timeout, Cache: cacheDir(),
		Stderr: io.err, Warn: func(err error) { warn(io, err) }, Run: run, SourceMap: smap,
		Ran: func(s *profiler.Side) error {
			if *outDir == "" {
				return nil
			}
			if err := keepSide(*outDir, s); err != nil {
				return fmt.Errorf("--out-dir: %w", err)
			}
			return nil
		},
	})
	if err != nil {
		return failInterrupted(ctx, io, exitFailure, err)
	}
	names := [2]string{filepath.Base(plugins[0]), filepath.Base(plugins[1])}
	if names[0] == names[1] {
		names = [2]string{plugins[0], plugins[1]}
	}
	df := diff.New(sides[0].Tables, sides[1].Tables, names[0], names[1])
	if err := writeDiff(io.out, df, f, *by, *top, *htmlPath, nil); err != nil {
		return fail(io, exitFailure, err)
	}
	// The diff's counts mean nothing without their cost model, and its
	// formats have no place for it: it is said beside them, in every format.
	fmt.Fprintf(io.err, "jsprof: compare: Wasm instructions counted as %s\n", costModelText(cost))
	if stopped := profiler.TimedOut(sides); stopped != "" {
		// A guest stopped part-way did not do all its work: its output
		// and its profile are no measure of the engine's, whether or not
		// the other side was stopped too.
		return fail(io, exitFailure, fmt.Errorf("compare: %s after --timeout %v: the profiles cover part of a run", stopped, *timeout))
	}
	if mismatch := profiler.Mismatch(sides); mismatch != "" {
		return fail(io, exitFailure, errors.New("compare: the engines behaved differently: "+mismatch))
	}
	fmt.Fprintf(io.err, "jsprof: both engines printed the same output (%s) and exited with %d\n", profiler.LineCount(sides[0].Stdout.Bytes()), sides[0].Done.ExitCode)
	return 0
}

// keepSide writes a side's module, profile and output into dir.
func keepSide(dir string, s *profiler.Side) error {
	base := filepath.Join(dir, s.Label)
	if err := files.WriteAtomic(base+".wasm", func(w *os.File) error { _, err := w.Write(s.Module); return err }); err != nil {
		return err
	}
	if err := files.WriteAtomic(base+".pb.gz", func(w *os.File) error { return jsprofile.Write(w, s.Done.Outcome.Profile) }); err != nil {
		return err
	}
	return files.WriteAtomic(base+".stdout", func(w *os.File) error { _, err := w.Write(s.Stdout.Bytes()); return err })
}

// costModelText names a cost model and says what it counts.
func costModelText(c wasmcore.CostModel) string {
	if c == wasmcore.CostFuel {
		return "fuel (--cost fuel: wasmtime's fuel, as function-runner counts)"
	}
	return c.String() + " (--cost " + c.String() + ": every instruction but block, loop, else and end)"
}
