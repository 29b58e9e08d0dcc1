package term

import (
	"runtime/debug"
	"strings"
)

// UseColor says whether jsprof's own warnings and OVER THE LIMIT are
// coloured: only on a terminal, and never when NO_COLOR is set to
// anything (no-color.org) or TERM is dumb.
func UseColor(terminal bool, getenv func(string) string) bool {
	return terminal && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

// ANSI colours of Paint.
const (
	Red    = "1;31"
	Yellow = "33"
)

// Paint wraps s in the ANSI colour code when on (UseColor).
func Paint(on bool, code, s string) string {
	if !on {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// Version reads the build information as one line: the module's
// version, the revision with its time and whether the tree was modified,
// and the Go release.
func Version(bi *debug.BuildInfo) string {
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
