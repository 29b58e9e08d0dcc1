package main

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
)

const versionSynopsis = `jsprof version

Prints jsprof's module version and the VCS revision it was built from, as
the Go build recorded them (go version -m shows the same).`

func cmdVersion(ctx context.Context, args []string, io stdio) int {
	fs := newFlagSet("version", versionSynopsis, io)
	if code, done := parseFlags(fs, args, io); done {
		return code
	}
	if fs.NArg() > 0 {
		return badCommandLine(io, fs, fmt.Sprintf("want no argument, have %q", fs.Arg(0)))
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		fmt.Fprintln(io.out, "jsprof: no build information (built without module support)")
		return 0
	}
	fmt.Fprintln(io.out, versionLine(bi))
	return 0
}

// versionLine reads the build information as one line: the module's
// version, the revision with its time and whether the tree was modified,
// and the Go release.
func versionLine(bi *debug.BuildInfo) string {
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

// useColor says whether jsprof's own warnings and OVER THE LIMIT are
// coloured: only on a terminal, and never when NO_COLOR is set to
// anything (no-color.org) or TERM is dumb.
func useColor(terminal bool, getenv func(string) string) bool {
	return terminal && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

// paint wraps s in the ANSI colour code when io is a colour terminal.
func paint(io stdio, code, s string) string {
	if !io.color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// ANSI colours of paint.
const (
	red    = "1;31"
	yellow = "33"
)
