package main

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/jsprof/jsprof/internal/term"
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
	if bi, ok := debug.ReadBuildInfo(); ok {
		fmt.Fprintln(io.out, term.Version(bi))
	}
	return 0
}
