package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/outfile"
	"github.com/jsprof/jsprof/internal/run/cachedir"
)

func main() {
	// SIGINT, SIGTERM, SIGHUP (a closed terminal, a dropped SSH session)
	// and SIGQUIT cancel the context with the signal as the cause: wazero
	// then stops the guest, and jsprof writes what it measured and exits
	// with 128 + the signal's number.
	// A second signal, while jsprof is still writing, ends it at once.
	ctx, cancel := context.WithCancelCause(context.Background())
	files := new(outfile.Set)
	stopNotify, reset := cli.CancelOnSignals(func(sig syscall.Signal) { cancel(interrupted{Sig: sig}) }, cli.ExitNow(files.RemoveTemporaries))
	// A reader that has gone (jsprof run … | head) must not kill jsprof
	// before it writes the profile: writes to it fail with EPIPE instead,
	// which the guest sees as EIO (wazero has no EPIPE to give it).
	signal.Ignore(syscall.SIGPIPE)
	code := Main(ctx, os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr,
		color:          cli.UseColor(cli.IsTerminal(os.Stderr), os.Getenv),
		defaultSignals: reset, files: files})
	stopNotify()
	cancel(nil)
	os.Exit(code)
}

// interrupted is the cause of a context cancelled by a signal.
type interrupted = cli.Interrupted

// stdio is the user's terminal, or a test's buffers.
type stdio struct {
	in       io.Reader
	out, err io.Writer
	// color says whether err is a terminal that may show colour
	// (useColor): warnings and OVER THE LIMIT are coloured there.
	color bool
	// defaultSignals, when set (the jsprof binary; not tests running
	// Main), gives the stop signals back their default action, ending the
	// process: --mode off without --timeout runs the guest where Go cannot
	// stop it (run.go).
	defaultSignals func()
	// files are those jsprof writes: a second signal removes their
	// temporaries (outfile.Set.RemoveTemporaries). nil: Main makes one.
	files *outfile.Set
}

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
	if io.files == nil {
		io.files = new(outfile.Set)
	}
	if len(args) == 0 {
		usage(io.err)
		return cli.ExitUsage
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
		return cli.ExitUsage
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

// fail prints err as one line prefixed with jsprof and returns code.
func fail(io stdio, code int, err error) int {
	fmt.Fprintf(io.err, "jsprof: %s\n", cli.FirstLine(err.Error()))
	return code
}

// cacheFlag adds --cache-dir and --cache-size and returns a function that
// reads them: the cache, opened within its size (cachedir.Cache).
func cacheFlag(fs *flag.FlagSet) func() cachedir.Cache {
	def := os.Getenv("JSPROF_CACHE_DIR")
	if def == "" {
		if d, err := os.UserCacheDir(); err == nil {
			def = filepath.Join(d, "jsprof")
		}
	}
	dir := fs.String("cache-dir", def, "directory for compiled modules (empty: no cache; env JSPROF_CACHE_DIR)")
	defSize, envErr := cachedir.EnvMB()
	size := fs.Int64("cache-size", defSize, "keep the cache within `MB` megabytes, dropping what was used least recently (env JSPROF_CACHE_SIZE)")
	// A directory that cannot be used is said once, on the flag set's
	// output (stderr), and the run goes uncached.
	warn := func(err error) { fmt.Fprintf(fs.Output(), "jsprof: warning: %s\n", cli.FirstLine(err.Error())) }
	return func() cachedir.Cache {
		if envErr != nil {
			warn(envErr)
		}
		return cachedir.Cache{Dir: *dir, Limit: *size << 20, Warn: warn}
	}
}
