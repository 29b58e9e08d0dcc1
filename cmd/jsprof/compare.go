package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jsprof/jsprof/internal/javy"
	"github.com/jsprof/jsprof/jsframes"
)

const compareSynopsis = `jsprof compare --plugin BASE.wasm --plugin NEW.wasm [flags] index.js [-- guest args...]

Builds index.js with each of two Javy plugins (as 'jsprof build' does,
static), runs both modules with exact profiling, checks that both printed
the same output and exited alike, and prints the diff of their profiles (as
'jsprof diff' does), the first plugin's as the base. The guests get the
guest arguments, the --stdin file (or nothing) as stdin, and jsprof's
stderr; their stdout is compared, not printed. The exit code is 0 when both
behaved alike, 1 when they did not (the diff is still printed).`

// profileRunner runs the module at modulePath with exact profiling, writes
// the profile to profilePath and returns the guest's exit code. The guest
// gets args, io.in as stdin and io.out and io.err; jsprof's own messages go
// to io.err. It fails when no profile could be written.
type profileRunner func(ctx context.Context, modulePath, profilePath string, args []string, cacheDir string, io stdio) (exitCode int, err error)

// runProfiled is the profileRunner of jsprof compare: jsprof run -o, as a
// user would run it.
func runProfiled(ctx context.Context, modulePath, profilePath string, args []string, cacheDir string, io stdio) (int, error) {
	if err := os.Remove(profilePath); err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, err
	}
	runArgs := append([]string{"--cache-dir", cacheDir, "-o", profilePath, modulePath, "--"}, args...)
	code := cmdRun(ctx, runArgs, io)
	if _, err := os.Stat(profilePath); err != nil {
		return code, fmt.Errorf("%s: jsprof run wrote no profile (exit code %d)", filepath.Base(modulePath), code)
	}
	return code, nil
}

func cmdCompare(ctx context.Context, args []string, io stdio) int {
	return compare(ctx, args, io, runProfiled)
}

// compareSide is one engine's build and run.
type compareSide struct {
	label      string // "base" or "new"
	pluginPath string
	module     string // the built module's path
	profile    string // the profile's path
	stdout     bytes.Buffer
	exitCode   int
}

func compare(ctx context.Context, args []string, io stdio, run profileRunner) int {
	fs := newFlagSet("compare", compareSynopsis, io)
	var plugins listFlag
	fs.Var(&plugins, "plugin", "a Javy `plugin.wasm`: give two, the base first, then the new")
	format := formatFlags(fs)
	top := fs.Int("top", -1, fmt.Sprintf("rows of each text table (0: all; default %d)", defaultTop))
	htmlPath := fs.String("html", "", "also write an HTML report of the change to `file` (self-contained, no network)")
	outDir := fs.String("out-dir", "", "keep the modules, profiles and guest outputs in `DIR` (base.wasm, base.pb.gz, base.stdout, new.…)")
	stdinPath := fs.String("stdin", "", "give both guests this `file` as stdin (default: empty)")
	openCache := cacheFlag(fs)
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
	jsPath := positional[0]
	src, err := os.ReadFile(jsPath)
	if err != nil {
		return fail(io, exitFailure, err)
	}
	var stdin []byte
	if *stdinPath != "" {
		if stdin, err = os.ReadFile(*stdinPath); err != nil {
			return fail(io, exitFailure, fmt.Errorf("--stdin: %w", err))
		}
	}
	cache, err := openCache()
	if err != nil {
		return fail(io, exitFailure, err)
	}
	dir := *outDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "jsprof-compare-"); err != nil {
			return fail(io, exitFailure, err)
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(io, exitFailure, fmt.Errorf("--out-dir: %w", err))
	}

	sides := []*compareSide{{label: "base", pluginPath: plugins[0]}, {label: "new", pluginPath: plugins[1]}}
	for _, s := range sides {
		s.module = filepath.Join(dir, s.label+".wasm")
		s.profile = filepath.Join(dir, s.label+".pb.gz")
		plugin, err := loadPlugin(s.pluginPath)
		if err != nil {
			return fail(io, exitFailure, err)
		}
		bytecode, err := javy.Compile(ctx, plugin.info, plugin.wasm, src, cache)
		if err != nil {
			var compileErr *javy.CompileError
			if errors.As(err, &compileErr) {
				return fail(io, exitFailure, fmt.Errorf("%s (with %s): %w", jsPath, s.pluginPath, err))
			}
			return fail(io, exitFailure, fmt.Errorf("compiling %s with %s: %w", jsPath, s.pluginPath, err))
		}
		module, err := javy.BuildStatic(ctx, plugin.wasm, plugin.info, bytecode, cache)
		if err != nil {
			return fail(io, exitFailure, fmt.Errorf("building %s with %s: %w", jsPath, s.pluginPath, err))
		}
		if err := os.WriteFile(s.module, module, 0o644); err != nil {
			return fail(io, exitFailure, err)
		}
	}
	cacheDir := fs.Lookup("cache-dir").Value.String()
	for _, s := range sides {
		guest := stdio{in: bytes.NewReader(stdin), out: &s.stdout, err: io.err}
		if s.exitCode, err = run(ctx, s.module, s.profile, guestArgs, cacheDir, guest); err != nil {
			return fail(io, exitFailure, fmt.Errorf("running %s built with %s: %w", jsPath, s.pluginPath, err))
		}
		if *outDir != "" {
			if err := os.WriteFile(filepath.Join(dir, s.label+".stdout"), s.stdout.Bytes(), 0o644); err != nil {
				return fail(io, exitFailure, err)
			}
		}
	}

	var data [2]*jsframes.ProfileData
	for i, s := range sides {
		if data[i], err = jsframes.ReadProfileFile(s.profile); err != nil {
			return fail(io, exitFailure, err)
		}
	}
	names := [2]string{filepath.Base(plugins[0]), filepath.Base(plugins[1])}
	if names[0] == names[1] {
		names = [2]string{plugins[0], plugins[1]}
	}
	df := jsframes.NewDiff(data[0], data[1], names[0], names[1])
	if err := writeDiff(io.out, df, f, *top, *htmlPath); err != nil {
		return fail(io, exitFailure, err)
	}
	base, new := sides[0], sides[1]
	if mismatch := behaviourMismatch(base, new); mismatch != "" {
		return fail(io, exitFailure, errors.New(mismatch))
	}
	fmt.Fprintf(io.err, "jsprof: both engines printed the same output (%s) and exited with %d\n", lineCount(base.stdout.Bytes()), base.exitCode)
	return 0
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
