package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/internal/runner"
)

func main() {
	// SIGINT and SIGTERM cancel the context with the signal as the cause:
	// wazero then stops the guest, and jsprof writes what it measured and
	// exits with 128 + the signal's number.
	// A second signal, while jsprof is still writing, ends it at once.
	ctx, cancel := context.WithCancelCause(context.Background())
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig, ok := <-signals
		if !ok {
			return
		}
		cancel(interrupted{Sig: sig.(syscall.Signal)})
		if sig, ok := <-signals; ok {
			exitNow(sig.(syscall.Signal))
		}
	}()
	// A reader that has gone (jsprof run … | head) must not kill jsprof
	// before it writes the profile: writes to it fail with EPIPE instead,
	// which the guest sees as EIO (wazero has no EPIPE to give it).
	signal.Ignore(syscall.SIGPIPE)
	code := Main(ctx, os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr,
		color:          useColor(isTerminal(os.Stderr), os.Getenv),
		defaultSignals: func() { signal.Reset(os.Interrupt, syscall.SIGTERM) }})
	signal.Stop(signals)
	cancel(nil)
	os.Exit(code)
}

// exitNow ends jsprof on a second signal: the temporary files of outputs
// not yet written are removed (no .jsprof-* is left beside them), the
// signal is said, and jsprof exits with 128 + its number. The message is
// given a moment, not more: stderr may be a pipe nobody reads, where a
// write would block for ever and the exit with it.
func exitNow(sig syscall.Signal) {
	files.RemoveTemporaries()
	said := make(chan struct{})
	go func() {
		fmt.Fprintf(os.Stderr, "jsprof: %s, a second signal: exiting without writing\n", sig)
		close(said)
	}()
	select {
	case <-said:
	case <-time.After(200 * time.Millisecond):
	}
	os.Exit(128 + int(sig))
}

// interrupted is the cause of a context cancelled by a signal.
type interrupted = profiler.Interrupted

// exitLimit: a guest stopped by --timeout or --max-instructions.
const exitLimit = profiler.ExitLimit

// stdio is the user's terminal, or a test's buffers.
type stdio struct {
	in       io.Reader
	out, err io.Writer
	// color says whether err is a terminal that may show colour
	// (useColor): warnings and OVER THE LIMIT are coloured there.
	color bool
	// defaultSignals, when set (the jsprof binary; not tests running
	// Main), gives SIGINT and SIGTERM back their default action, ending the
	// process: --mode off without --timeout runs the guest where Go cannot
	// stop it (run.go).
	defaultSignals func()
}

// exitUsage is the exit code for a command line jsprof can't follow, and
// exitFailure for input it can't use (both before any guest runs).
const (
	exitFailure = 1
	exitUsage   = 2
)

type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, io stdio) int
}

func commands() []command {
	return []command{
		{"run", "run a module (the default command)", cmdRun},
		{"build", "build a Javy module from JS with a Javy plugin", cmdBuild},
		{"analyze", "find the JS interpreter in a module and identify the engine", cmdAnalyze},
		{"report", "print a profile's cost per opcode, JS function or line", cmdReport},
		{"diff", "compare two profiles of the same JS, opcodes aligned by name", cmdDiff},
		{"compare", "build the same JS with two Javy plugins, profile both and diff", cmdCompare},
		{"version", "print jsprof's version and the revision it was built from", cmdVersion},
	}
}

// Main runs jsprof with args (without the program name) and returns the
// exit code.
func Main(ctx context.Context, args []string, io stdio) int {
	if len(args) == 0 {
		usage(io.err)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(io.out)
		return 0
	case "-version", "--version":
		return cmdVersion(ctx, args[1:], io)
	}
	for _, c := range commands() {
		if args[0] == c.name {
			return c.run(ctx, args[1:], io)
		}
	}
	// jsprof module.wasm is jsprof run module.wasm: what is neither a
	// flag, a command, a file nor a .wasm path was meant as a command.
	if !strings.HasPrefix(args[0], "-") && !strings.HasSuffix(strings.ToLower(args[0]), ".wasm") && !isFile(args[0]) {
		fmt.Fprintf(io.err, "jsprof: unknown command %q (and no such module file)\n", args[0])
		usage(io.err)
		return exitUsage
	}
	return cmdRun(ctx, args, io)
}

// isFile says whether path names something that exists.
func isFile(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: jsprof [command] [flags] ...")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\njsprof module.wasm is jsprof run module.wasm. 'jsprof COMMAND --help' tells more.")
}

// newFlagSet returns a flag set that reports errors on io.err and prints
// synopsis above the flags for --help, once, on io.out.
func newFlagSet(name, synopsis string, io stdio) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.err)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s\n\nflags:\n", synopsis)
		printDefaults(fs)
	}
	return fs
}

// printDefaults is flag's PrintDefaults, except that a default of -1
// (--top's "not given": the default depends on the output) is not shown,
// as the flag's own text says what it means.
func printDefaults(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		var b strings.Builder
		fmt.Fprintf(&b, "  -%s", f.Name)
		kind, usage := flag.UnquoteUsage(f)
		if kind != "" {
			b.WriteString(" " + kind)
		}
		if b.Len() <= 4 && kind == "" {
			b.WriteString("\t")
		} else {
			b.WriteString("\n    \t")
		}
		b.WriteString(strings.ReplaceAll(usage, "\n", "\n    \t"))
		switch f.DefValue {
		case "", "0", "0s", "false", "-1":
		default:
			if g, ok := f.Value.(flag.Getter); ok && isString(g.Get()) {
				fmt.Fprintf(&b, " (default %q)", f.DefValue)
			} else {
				fmt.Fprintf(&b, " (default %v)", f.DefValue)
			}
		}
		fmt.Fprintln(fs.Output(), b.String())
	})
}

func isString(v any) bool { _, ok := v.(string); return ok }

// parseFlags parses args; done reports that the caller should return code.
// --help prints the usage on stdout; a bad flag, one line saying what is
// wrong and where to read more (badCommandLine).
func parseFlags(fs *flag.FlagSet, args []string, io stdio) (code int, done bool) {
	usage := fs.Usage
	fs.Usage = func() {}     // printed below, once, where it belongs
	var said strings.Builder // flag's message: told below, in one line
	fs.SetOutput(&said)
	err := fs.Parse(args)
	fs.Usage = usage
	fs.SetOutput(io.err)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(io.out)
			fs.Usage()
			fs.SetOutput(io.err)
			return 0, true
		}
		// flag names flags with one dash; jsprof's documents two.
		return badCommandLine(io, fs, strings.Replace(err.Error(), " for flag -", " for --", 1)), true
	}
	return 0, false
}

// badCommandLine says what is wrong with a command line in one line, and
// where the command's flags are told, and returns exitUsage.
func badCommandLine(io stdio, fs *flag.FlagSet, msg string) int {
	fmt.Fprintf(io.err, "jsprof: %s: %s\nsee 'jsprof %s --help'\n", fs.Name(), profiler.FirstLine(msg), fs.Name())
	return exitUsage
}

// fail prints err as one line prefixed with jsprof and returns code.
func fail(io stdio, code int, err error) int {
	fmt.Fprintf(io.err, "jsprof: %s\n", profiler.FirstLine(err.Error()))
	return code
}

// given says whether the flag called name was set on the command line,
// as opposed to left at its default.
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// durationFlag is a duration flag whose bad values are told as
// time.ParseDuration tells them ("missing unit in duration"), where
// flag's own says "parse error".
type durationFlag struct{ d *time.Duration }

func (f durationFlag) String() string {
	if f.d == nil {
		return "0s"
	}
	return f.d.String()
}

func (f durationFlag) Set(v string) (err error) {
	*f.d, err = time.ParseDuration(v)
	return err
}

// durationVar adds a durationFlag.
func durationVar(fs *flag.FlagSet, p *time.Duration, name string, def time.Duration, usage string) {
	*p = def
	fs.Var(durationFlag{p}, name, usage)
}

// listFlag collects a repeated flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// cacheFlag adds --cache-dir and --cache-size and returns a function that
// reads them: the cache, opened within its size (runner.CacheDir).
func cacheFlag(fs *flag.FlagSet) func() runner.CacheDir {
	def := os.Getenv("JSPROF_CACHE_DIR")
	if def == "" {
		if d, err := os.UserCacheDir(); err == nil {
			def = filepath.Join(d, "jsprof")
		}
	}
	dir := fs.String("cache-dir", def, "directory for compiled modules (empty: no cache; env JSPROF_CACHE_DIR)")
	size := fs.Int64("cache-size", runner.DefaultCacheMB, "keep the cache within `MB` megabytes, dropping what was used least recently")
	return func() runner.CacheDir { return runner.CacheDir{Dir: *dir, Limit: *size << 20} }
}
