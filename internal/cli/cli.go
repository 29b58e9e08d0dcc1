package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"time"
)

// NewFlagSet returns a flag set that reports errors on stderr and prints
// synopsis above the flags for --help (Parse prints it once, on stdout).
func NewFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
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

// Parse parses args; done reports that the caller should return code.
// --help prints the usage on stdout; a bad flag, one line saying what is
// wrong and where to read more (BadCommandLine).
func Parse(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, done bool) {
	usage := fs.Usage
	fs.Usage = func() {}     // printed below, once, where it belongs
	var said strings.Builder // flag's message: told below, in one line
	fs.SetOutput(&said)
	err := fs.Parse(args)
	fs.Usage = usage
	fs.SetOutput(stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fs.Usage()
			fs.SetOutput(stderr)
			return 0, true
		}
		// flag names flags with one dash; jsprof's documents two.
		return BadCommandLine(stderr, fs, didYouMean(fs, strings.Replace(err.Error(), " for flag -", " for --", 1))), true
	}
	return 0, false
}

// BadCommandLine says what is wrong with a command line in one line, and
// where the command's flags are told, and returns ExitUsage.
func BadCommandLine(stderr io.Writer, fs *flag.FlagSet, msg string) int {
	msg, _, _ = strings.Cut(strings.TrimSpace(msg), "\n")
	fmt.Fprintf(stderr, "jsprof: %s: %s\nsee 'jsprof %s --help'\n", fs.Name(), strings.TrimSpace(msg), fs.Name())
	return ExitUsage
}

// ParseInterleaved parses flags that may come before, between or after the
// positional arguments (jsprof report PROFILE --json), and returns those.
func ParseInterleaved(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (positional []string, code int, done bool) {
	for {
		if code, done := Parse(fs, args, stdout, stderr); done {
			return nil, code, true
		}
		if fs.NArg() == 0 {
			return positional, 0, false
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// Given says whether the flag called name was set on the command line,
// as opposed to left at its default.
func Given(fs *flag.FlagSet, name string) bool {
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

// DurationVar adds a durationFlag.
func DurationVar(fs *flag.FlagSet, p *time.Duration, name string, def time.Duration, usage string) {
	*p = def
	fs.Var(durationFlag{p}, name, usage)
}

// List collects a repeated flag.
type List []string

func (l *List) String() string     { return strings.Join(*l, ",") }
func (l *List) Set(v string) error { *l = append(*l, v); return nil }

// UseColor says whether jsprof's own warnings and OVER THE LIMIT are
// coloured: only on a terminal, and never when NO_COLOR is set to
// anything (no-color.org) or TERM is dumb.
func UseColor(terminal bool, getenv func(string) string) bool {
	return terminal && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

// FlagAmong returns the first of the guest's arguments that names one of
// jsprof's flags (-o, --report=x), or "".
func FlagAmong(fs *flag.FlagSet, guestArgs []string) string {
	for _, a := range guestArgs {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name != "" && fs.Lookup(name) != nil {
			return a
		}
	}
	return ""
}

// VersionLine reads the build information as one line: the module's
// version, the revision with its time and whether the tree was modified,
// and the Go release.
func VersionLine(bi *debug.BuildInfo) string {
	vcs := map[string]string{}
	for _, s := range bi.Settings {
		vcs[s.Key] = s.Value
	}
	rev := "revision unknown (built without VCS information)"
	if r := vcs["vcs.revision"]; r != "" {
		rev = "revision " + r
		if t := vcs["vcs.time"]; t != "" {
			rev += " (" + t + ")"
		}
		if vcs["vcs.modified"] == "true" {
			rev += ", modified"
		}
	}
	version := bi.Main.Version
	if version == "" {
		version = "(devel)"
	}
	return strings.Join([]string{"jsprof " + version, rev, bi.GoVersion}, ", ")
}
