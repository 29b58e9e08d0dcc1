package profiler

import (
	"strings"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/wasmcore"
)

// Every static Javy module built with one plugin carries the same
// interpreter and a different program. jsprof prepares and compiles the
// module with its program detached (wasmcore.DetachSegment), so that a
// program never seen before, built with a plugin seen before, finds its
// analysis, its instrumented module and its compiled code in the caches,
// and the caches hold one entry per plugin, not one per program. The
// program's bytes go back into the instance before it runs.

// detachProgram returns m without its program, to prepare and compile in
// its place, if m's program is a passive segment jsprof can detach: a copy
// of m without it and without the custom sections that vary by program
// (the recorded source, say), and d, what was detached; nil and nil when
// nothing was. Failing to detach is no error: the module is then prepared
// as it is.
func detachProgram(m *wasmcore.Module) (c *wasmcore.Module, d *wasmcore.DetachedSegment) {
	seg := dispatch.ProgramSegment(m)
	if seg < 0 {
		return nil, nil
	}
	// A copy: m stays as it was, for naming. DetachSegment replaces the
	// bodies it rewrites and appends to the module's lists, so a clone,
	// which shares m's bytes, does: decoding the module again would cost
	// as much as the rest of the run's preparation.
	c = m.Clone()
	d, err := c.DetachSegment(uint32(seg))
	if err != nil {
		return nil, nil
	}
	c.Customs = engineSections(c.Customs)
	return c, d
}

// engineSections keeps the custom sections that describe the engine (names,
// DWARF, the toolchain, a plugin's namespace, the detached segment): the
// same for every program. The rest, a program's source above all, varies
// by program; naming reads it from the module as it was.
func engineSections(cs []wasmcore.CustomSection) []wasmcore.CustomSection {
	var keep []wasmcore.CustomSection
	for _, c := range cs {
		switch {
		case c.Name == "name", c.Name == "producers", c.Name == "target_features",
			c.Name == "import_namespace", c.Name == wasmcore.DetachedSection,
			strings.HasPrefix(c.Name, ".debug_"):
			keep = append(keep, c)
		}
	}
	return keep
}
