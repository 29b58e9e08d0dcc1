package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/pprof/profile"
	"github.com/jsprof/jsprof/internal/javy"
	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/internal/runner"
	"github.com/jsprof/jsprof/jsframes/diff"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/jsframes/report"
	"github.com/jsprof/jsprof/jsframes/sourcemap"
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

// compareSide is one engine's build and run.
type compareSide struct {
	label      string // "base" or "new"
	pluginPath string
	module     []byte // the built module
	tables     *report.Tables
	stdout     bytes.Buffer
	exitCode   int
}

func compare(ctx context.Context, args []string, io stdio, run profileRunner) int {
	fs := newFlagSet("compare", compareSynopsis, io)
	var plugins listFlag
	fs.Var(&plugins, "plugin", "a Javy `plugin.wasm`: give two, the base first, then the new")
	format := formatFlags(fs)
	top := fs.Int("top", -1, fmt.Sprintf("rows of each text table (0: all; default %d)", defaultTop))
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
	positional, code, done := parseInterleaved(fs, args, io)
	if done {
		return code
	}
	if len(positional) != 1 {
		fmt.Fprintf(io.err, "jsprof: compare: want one JS file (guest arguments go after --), have %d: %s\n", len(positional), strings.Join(positional, " "))
		fs.Usage()
		return exitUsage
	}
	if len(plugins) != 2 {
		return fail(io, exitUsage, fmt.Errorf("compare: want two --plugin, the base and the new, have %d", len(plugins)))
	}
	f, err := format()
	if err != nil {
		return fail(io, exitUsage, fmt.Errorf("compare: %w", err))
	}
	if *top < -1 {
		return fail(io, exitUsage, fmt.Errorf("compare: --top %d: want 0 (all) or more", *top))
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
	smap := findMap(*sourceMap, program{text: src, path: jsPath}, io)
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
	cache, err := cacheDir().Open()
	if err != nil {
		return fail(io, exitFailure, err)
	}
	if *outDir != "" {
		if err := os.MkdirAll(*outDir, 0o755); err != nil {
			return fail(io, exitFailure, fmt.Errorf("--out-dir: %w", err))
		}
	}

	sides := []*compareSide{{label: "base", pluginPath: plugins[0]}, {label: "new", pluginPath: plugins[1]}}
	for _, s := range sides {
		plugin, err := profiler.LoadPlugin(s.pluginPath)
		if err != nil {
			return fail(io, exitFailure, err)
		}
		bytecode, err := javy.Compile(ctx, plugin.Info, plugin.Wasm, src, cache)
		if err != nil {
			var compileErr *javy.CompileError
			if errors.As(err, &compileErr) {
				return fail(io, exitFailure, fmt.Errorf("%s (with %s): %w", jsPath, s.pluginPath, err))
			}
			return fail(io, exitFailure, fmt.Errorf("compiling %s with %s: %w", jsPath, s.pluginPath, err))
		}
		var module []byte
		if *inputPath != "" {
			// A Shopify Function: built dynamic, as javy build -C dynamic
			// does, and run with its provider, as function-runner runs it.
			module, err = javy.BuildDynamic(plugin.Module, plugin.Info, bytecode)
		} else {
			module, err = javy.BuildStatic(ctx, plugin.Wasm, plugin.Info, bytecode, cache)
		}
		if err != nil {
			return fail(io, exitFailure, fmt.Errorf("building %s with %s: %w", jsPath, s.pluginPath, err))
		}
		s.module = module
	}
	for _, s := range sides {
		// The pipeline of jsprof run, in exact mode: a Shopify Function is
		// linked with its provider (the plugin it was built against) and
		// its profile carries the run's facts as jsprof run's does.
		done, err := run(ctx, profiler.Job{Module: s.module, Plugins: []string{s.pluginPath},
			Guest:       runner.Options{Name: s.label + ".wasm", Args: guestArgs, Stdin: bytes.NewReader(stdin), Stdout: &s.stdout, Stderr: io.err, Cache: cache},
			Profile:     profiler.Options{Mode: profiler.Exact, Cost: cost, Warn: func(err error) { warn(io, err) }},
			NeedProfile: true, Timeout: *timeout, Cache: cacheDir(),
			Hooks: profiler.Hooks{OutputError: func(err error) { warn(io, err) }},
		})
		if err != nil {
			return fail(io, exitFailure, fmt.Errorf("running %s built with %s: %w", jsPath, s.pluginPath, err))
		}
		for _, w := range done.Outcome.Warnings {
			warn(io, w)
		}
		prof, code := done.Outcome.Profile, done.ExitCode
		s.exitCode = code
		if smap != nil {
			// Both sides' JS is the file's, compiled as function.mjs.
			if _, err := sourcemap.Apply(prof, *smap, sourcemap.NewGenerated(javy.CompiledName, src)); err != nil {
				return fail(io, exitFailure, fmt.Errorf("source map %s: %w", smap.From, err))
			}
		}
		if s.tables, err = report.FromProfile(prof); err != nil {
			return fail(io, exitFailure, fmt.Errorf("%s built with %s: %w", jsPath, s.pluginPath, err))
		}
		if *outDir != "" {
			if err := keepSide(*outDir, s, prof); err != nil {
				return fail(io, exitFailure, fmt.Errorf("--out-dir: %w", err))
			}
		}
		if ctx.Err() != nil {
			// Interrupted: what was kept is kept; the other side is not run.
			return failInterrupted(ctx, io, exitFailure, context.Cause(ctx))
		}
	}
	names := [2]string{filepath.Base(plugins[0]), filepath.Base(plugins[1])}
	if names[0] == names[1] {
		names = [2]string{plugins[0], plugins[1]}
	}
	df := diff.New(sides[0].tables, sides[1].tables, names[0], names[1])
	if err := writeDiff(io.out, df, f, *by, *top, *htmlPath); err != nil {
		return fail(io, exitFailure, err)
	}
	// The diff's counts mean nothing without their cost model, and its
	// formats have no place for it: it is said beside them, in every format.
	fmt.Fprintf(io.err, "jsprof: compare: Wasm instructions counted as %s\n", costModelText(cost))
	base, new := sides[0], sides[1]
	if stopped := timedOut(base, new); stopped != "" {
		// A guest stopped part-way did not do all its work: its output
		// and its profile are no measure of the engine's, whether or not
		// the other side was stopped too.
		return fail(io, exitFailure, fmt.Errorf("compare: %s after --timeout %v: the profiles cover part of a run", stopped, *timeout))
	}
	if mismatch := behaviourMismatch(base, new); mismatch != "" {
		return fail(io, exitFailure, errors.New(mismatch))
	}
	fmt.Fprintf(io.err, "jsprof: both engines printed the same output (%s) and exited with %d\n", lineCount(base.stdout.Bytes()), base.exitCode)
	return 0
}

// keepSide writes a side's module, profile and output into dir.
func keepSide(dir string, s *compareSide, prof *profile.Profile) error {
	base := filepath.Join(dir, s.label)
	if err := writeFileAtomic(base+".wasm", func(w *os.File) error { _, err := w.Write(s.module); return err }); err != nil {
		return err
	}
	if err := writeFileAtomic(base+".pb.gz", func(w *os.File) error { return jsprofile.Write(w, prof) }); err != nil {
		return err
	}
	return writeFileAtomic(base+".stdout", func(w *os.File) error { _, err := w.Write(s.stdout.Bytes()); return err })
}

// timedOut says which guests their timeout stopped ("the base was
// stopped"), as their profiles record it; "" when none.
func timedOut(base, new *compareSide) string {
	b := strings.HasPrefix(base.tables.Trap, profiler.TimeoutPrefix)
	n := strings.HasPrefix(new.tables.Trap, profiler.TimeoutPrefix)
	switch {
	case b && n:
		return "both guests were stopped"
	case b:
		return "the base was stopped"
	case n:
		return "the new was stopped"
	}
	return ""
}

// behaviourMismatch says how the two guests behaved differently, "" when
// they printed the same and exited alike.
func behaviourMismatch(base, new *compareSide) string {
	var why []string
	if base.exitCode != new.exitCode {
		why = append(why, fmt.Sprintf("the base exited with %d, the new with %d", base.exitCode, new.exitCode))
	}
	if !bytes.Equal(base.stdout.Bytes(), new.stdout.Bytes()) {
		b := strings.Split(base.stdout.String(), "\n")
		n := strings.Split(new.stdout.String(), "\n")
		i := 0
		for i < len(b) && i < len(n) && b[i] == n[i] {
			i++
		}
		line := func(l []string) string {
			if i < len(l) {
				return fmt.Sprintf("%q", l[i])
			}
			return "nothing"
		}
		why = append(why, fmt.Sprintf("the outputs differ from line %d: the base printed %s, the new %s", i+1, line(b), line(n)))
	}
	if len(why) == 0 {
		return ""
	}
	return "compare: the engines behaved differently: " + strings.Join(why, "; ")
}

// lineCount reads "1 line", "12 lines", "no output".
func lineCount(b []byte) string {
	if len(b) == 0 {
		return "no output"
	}
	n := bytes.Count(b, []byte("\n"))
	if b[len(b)-1] != '\n' {
		n++
	}
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}

// costModelText names a cost model and says what it counts.
func costModelText(c wasmcore.CostModel) string {
	if c == wasmcore.CostFuel {
		return "fuel (--cost fuel: wasmtime's fuel, as function-runner counts)"
	}
	return c.String() + " (--cost " + c.String() + ": every instruction but block, loop, else and end)"
}
