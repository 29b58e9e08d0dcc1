package main

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/jsprof/jsprof/internal/cli"
)

const versionSynopsis = `jsprof version

Prints jsprof's module version and the VCS revision it was built from, as
the Go build recorded them (go version -m shows the same).`

func cmdVersion(ctx context.Context, args []string, io stdio) int {
	fs := cli.NewFlagSet("version", versionSynopsis, io.err)
	if code, done := cli.Parse(fs, args, io.out, io.err); done {
		return code
	}
	if fs.NArg() > 0 {
		return cli.BadCommandLine(io.err, fs, fmt.Sprintf("want no argument, have %q", fs.Arg(0)))
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		fmt.Fprintln(io.out, "jsprof: no build information (built without module support)")
		return 0
	}
	fmt.Fprintln(io.out, cli.VersionLine(bi))
	return 0
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
