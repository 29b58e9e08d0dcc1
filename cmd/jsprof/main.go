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

	"github.com/tetratelabs/wazero"
)

func main() {
	// SIGINT and SIGTERM cancel the context with the signal as the cause:
	// wazero then stops the guest, and jsprof writes what it measured and
	// exits with 128 + the signal's number.
	ctx, cancel := context.WithCancelCause(context.Background())
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		if sig, ok := <-signals; ok {
			cancel(interrupted{sig.(syscall.Signal)})
		}
	}()
	code := Main(ctx, os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr})
	signal.Stop(signals)
	cancel(nil)
	os.Exit(code)
}

// interrupted is the cause of a context cancelled by a signal.
type interrupted struct{ sig syscall.Signal }

func (i interrupted) Error() string { return "interrupted by " + i.sig.String() }

// Signal is the signal that interrupted the run.
func (i interrupted) Signal() syscall.Signal { return i.sig }

// exitLimit is the exit code of a guest stopped by --timeout or
// --max-instructions, as timeout(1) exits.
const exitLimit = 124

// stdio is the user's terminal, or a test's buffers.
type stdio struct {
	in       io.Reader
	out, err io.Writer
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
	}
	for _, c := range commands() {
		if args[0] == c.name {
			return c.run(ctx, args[1:], io)
		}
	}
	return cmdRun(ctx, args, io)
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
// synopsis above the flags for --help.
func newFlagSet(name, synopsis string, io stdio) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.err)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s\n\nflags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args; done reports that the caller should return code.
func parseFlags(fs *flag.FlagSet, args []string, io stdio) (code int, done bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(io.out)
			fs.Usage()
			return 0, true
		}
		return exitUsage, true
	}
	return 0, false
}

// fail prints err as one line prefixed with jsprof and returns code.
func fail(io stdio, code int, err error) int {
	fmt.Fprintf(io.err, "jsprof: %s\n", oneLine(err.Error()))
	return code
}

// oneLine keeps the first line of a message: wazero appends wasm stack
// traces on the following lines.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// listFlag collects a repeated flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// cacheFlag adds --cache-dir and returns a function that opens the cache.
func cacheFlag(fs *flag.FlagSet) func() (wazero.CompilationCache, error) {
	def := os.Getenv("JSPROF_CACHE_DIR")
	if def == "" {
		if d, err := os.UserCacheDir(); err == nil {
			def = filepath.Join(d, "jsprof")
		}
	}
	dir := fs.String("cache-dir", def, "directory for compiled modules (empty: no cache; env JSPROF_CACHE_DIR)")
	return func() (wazero.CompilationCache, error) {
		if *dir == "" {
			return nil, nil
		}
		c, err := wazero.NewCompilationCacheWithDir(*dir)
		if err != nil {
			return nil, fmt.Errorf("--cache-dir %s: %w", *dir, err)
		}
		return c, nil
	}
}
