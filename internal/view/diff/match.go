package diff

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/jsprof/jsprof/internal/view/report"
)

// Values of Diff.Changed: what differs between the two runs, from the
// engine code and program bytecode their profiles record
// (jsprofile.EngineInfo.Code, jsprofile.Meta.Program).
const (
	ChangedProgram = "program" // the same engine, another program
	ChangedEngine  = "engine"  // another engine, the same program bytecode
	// ChangedEngineBytecode: another engine, and other bytecode, which
	// each engine compiles its own: whether the JS changed too is not
	// known.
	ChangedEngineBytecode = "engine (and bytecode)"
	ChangedNothing        = "nothing" // the same engine and program: the input or the run differ
	ChangedUnknown        = "unknown" // a profile does not say (earlier jsprof)
)

// changed says what differs between base and new (Changed*).
// Profiles that do not record the engine code (earlier jsprof) still
// name the engine's family and releases: engines named apart changed.
func changed(base, new Side) string {
	switch {
	case base.Engine.Code == "" || new.Engine.Code == "":
		if base.Engine.Family != new.Engine.Family || !slices.Equal(base.Engine.Releases, new.Engine.Releases) {
			return ChangedEngineBytecode
		}
		return ChangedUnknown
	case base.Engine.Code == new.Engine.Code:
		switch {
		case base.Program == "" || new.Program == "":
			return ChangedUnknown
		case base.Program == new.Program:
			return ChangedNothing
		}
		return ChangedProgram
	case base.Program != "" && base.Program == new.Program:
		return ChangedEngine
	}
	return ChangedEngineBytecode
}

// changedText is the summary's sentence on what changed; "" when the
// profiles do not say.
func (df *Diff) changedText() string {
	short := func(h string) string { return h[:12] }
	engines := func() string {
		if df.Base.Engine.Code == "" || df.New.Engine.Code == "" {
			return "" // named in the next sentence
		}
		return fmt.Sprintf(" (code sha256 %s… → %s…)", short(df.Base.Engine.Code), short(df.New.Engine.Code))
	}
	switch df.Changed {
	case ChangedProgram:
		return fmt.Sprintf("The program changed, not the engine: both ran the same engine code (sha256 %s…), with different bytecode.", short(df.Base.Engine.Code))
	case ChangedEngine:
		return fmt.Sprintf("The engine changed%s, not the program: both ran the same bytecode.", engines())
	case ChangedEngineBytecode:
		what := "and the bytecode with it: each engine compiles the JS its own way, so whether the JS changed too cannot be told from it"
		if df.Base.Program == "" || df.New.Program == "" {
			what = "and the profiles do not record the program's bytecode (earlier jsprof): whether the JS changed too is not known"
		}
		return fmt.Sprintf("The engine changed%s, %s.", engines(), what)
	case ChangedNothing:
		return "Both ran the same engine code and the same program bytecode: what differs is the input or the run."
	}
	return ""
}

// runner names what ran each profile in the summary's sentences: the
// engine when it changed, the build when only the program did.
func (df *Diff) runner() string {
	switch df.Changed {
	case ChangedProgram, ChangedNothing:
		return "build"
	case ChangedUnknown:
		return "profile"
	}
	return "engine"
}

// plainName is a function's name without the address an anonymous
// function's name may carry (anonymous@0x148ac4), as report's Key drops
// it where the file and line say which function it is.
func plainName(name, file string, line int) string {
	if i := strings.LastIndex(name, "@0x"); i > 0 && file != "" && line > 0 {
		return name[:i]
	}
	return name
}

// maxPairs bounds the pairs of one name and file matchMoved weighs after
// the functions that kept their line and shape: beyond it (an edit that
// moved thousands of closures of a bundle), those left are matched at
// their first line, or not at all.
const maxPairs = 100_000

// minShape is how alike two functions' shapes (the opcodes they ran) must
// be to match them when their name and file leave a choice.
const minShape = 0.5

// movable says whether a function is matched across profiles by
// matchMoved: a JS function with a file and first line.
func movable(f *report.FunctionStats) bool {
	return f.Kind == report.FunctionJS && f.File != "" && f.Line > 0
}

// matchMoved matches the JS functions of the base with those of the new
// (movable: New keeps them apart, one row a side) that are the same
// function, whether or not an edit moved it: the same name and file, then,
// in turn, the same first line and a like shape (the opcodes each ran:
// shapes, per side and key, at least minShape alike), the most alike
// shape then the nearest line, the same first line, and what is left of
// a name and file, one in each. The new's row is folded into the base's,
// which takes its NewLine when it moved; order, without the new's keys,
// is returned.
func matchMoved(fns map[string]*Function, order []string, shapes [2]map[string]map[string]bool) []string {
	type group struct{ base, new []string }
	groups := map[string]*group{}
	var names []string
	for _, k := range order {
		fd := fns[k]
		if fd.Kind != report.FunctionJS || fd.Base != nil && fd.New != nil || fd.File == "" || fd.Line <= 0 {
			continue
		}
		g := plainName(fd.Name, fd.File, fd.Line) + "\x00" + fd.File
		if groups[g] == nil {
			groups[g] = &group{}
			names = append(names, g)
		}
		switch {
		case fd.New == nil:
			groups[g].base = append(groups[g].base, k)
		case fd.Base == nil:
			groups[g].new = append(groups[g].new, k)
		}
	}
	gone := map[string]bool{}
	for _, name := range names {
		g := groups[name]
		if len(g.base) == 0 || len(g.new) == 0 {
			continue
		}
		used := map[string]bool{}
		match := func(b, n string) {
			used[b], used[n] = true, true
			gone[n] = fold(fns[b], fns[n])
		}
		left := func(keys []string) []string {
			return slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return used[k] })
		}
		// What did not move and kept its shape, without pairing every
		// function with every other (a bundle has thousands of closures).
		atLine := map[int][]string{}
		for _, n := range g.new {
			atLine[fns[n].Line] = append(atLine[fns[n].Line], n)
		}
		sameLine := func(like float64) {
			for _, b := range left(g.base) {
				for _, n := range atLine[fns[b].Line] {
					if !used[n] && alike(shapes[0][b], shapes[1][n]) >= like {
						match(b, n)
						break
					}
				}
			}
		}
		sameLine(minShape)
		type pair struct {
			b, n  string
			alike float64
			dist  int
		}
		var pairs []pair
		if lb, ln := left(g.base), left(g.new); len(lb)*len(ln) <= maxPairs {
			for _, b := range lb {
				for _, n := range ln {
					pairs = append(pairs, pair{b, n, alike(shapes[0][b], shapes[1][n]), abs(fns[n].Line - fns[b].Line)})
				}
			}
		}
		sort.SliceStable(pairs, func(i, j int) bool {
			if pairs[i].alike != pairs[j].alike {
				return pairs[i].alike > pairs[j].alike
			}
			return pairs[i].dist < pairs[j].dist
		})
		for _, p := range pairs {
			if !used[p.b] && !used[p.n] && p.alike >= minShape {
				match(p.b, p.n)
			}
		}
		sameLine(0)
		// One of each left: the same function, however it changed.
		if b, n := left(g.base), left(g.new); len(b) == 1 && len(n) == 1 {
			match(b[0], n[0])
		}
	}
	kept := order[:0]
	for _, k := range order {
		if gone[k] {
			delete(fns, k)
			continue
		}
		kept = append(kept, k)
	}
	return kept
}

// fold makes the base's row of a function the new's too, and says so.
func fold(base, new *Function) bool {
	base.New = new.New
	if new.Line != base.Line {
		base.NewLine = new.Line
	}
	return true
}

// alike is how alike two shapes are: the opcodes both ran over those
// either ran (1 when neither ran any).
func alike(a, b map[string]bool) float64 {
	union := len(a)
	both := 0
	for op := range b {
		if a[op] {
			both++
		} else {
			union++
		}
	}
	if union == 0 {
		return 1
	}
	return float64(both) / float64(union)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// LineSide is a JS line's cost in one profile.
type LineSide struct {
	Line                  int    `json:"line"`
	Executions            uint64 `json:"executions"`
	SelfWasmInstructions  uint64 `json:"self_wasm_instructions"`
	TotalWasmInstructions uint64 `json:"total_wasm_instructions"`
}

// Line is one line of a JS function in both profiles (jsprof diff --by
// line), aligned across an edit that moved it (alignLines).
type Line struct {
	Function              string    `json:"function"`
	File                  string    `json:"file"`
	Base                  *LineSide `json:"base"`
	New                   *LineSide `json:"new"`
	Only                  string    `json:"only,omitempty"`
	DeltaWasmInstructions int64     `json:"delta_self_wasm_instructions"`
}

// Label reads src/run.ts:50, or src/run.ts:50→52 for a line that moved.
func (l *Line) Label() string {
	file := l.File
	if file == "" {
		file = "?"
	}
	at := func(s *LineSide) string {
		if s.Line == 0 {
			return "?"
		}
		return fmt.Sprint(s.Line)
	}
	switch {
	case l.Base == nil:
		return file + ":" + at(l.New)
	case l.New == nil || l.Base.Line == l.New.Line:
		return file + ":" + at(l.Base)
	}
	return file + ":" + at(l.Base) + "→" + at(l.New)
}

// Moved says whether the line is at another line in the new.
func (l *Line) Moved() bool { return l.Base != nil && l.New != nil && l.Base.Line != l.New.Line }

// alignLines aligns the lines of both profiles by function name, file
// and line, a line of the new taken back to where it was in the base: by
// the shift of the nearest function at or above it in its file that is
// in both (fns; its NewLine when it moved). An edit that moved a closure
// down two lines moves the lines below it as far, in whatever function.
// Lines of one key (anonymous functions of one line) add up their self
// instructions and keep the largest total.
func alignLines(base, new []report.LineStats, fns []Function) []Line {
	type anchor struct{ base, new int }
	anchors := map[string][]anchor{} // by file, by first line in the new
	for _, f := range fns {
		if f.Kind == report.FunctionJS && f.Base != nil && f.New != nil && f.File != "" && f.Line > 0 {
			anchors[f.File] = append(anchors[f.File], anchor{f.Line, cmp.Or(f.NewLine, f.Line)})
		}
	}
	for _, a := range anchors {
		slices.SortFunc(a, func(x, y anchor) int { return cmp.Compare(x.new, y.new) })
	}
	inBase := func(file string, line int) int {
		a := anchors[file]
		i, found := slices.BinarySearchFunc(a, line, func(x anchor, l int) int { return cmp.Compare(x.new, l) })
		if !found {
			i--
		}
		if i < 0 || line == 0 {
			return line
		}
		return line - (a[i].new - a[i].base)
	}
	rows := map[string]*Line{}
	var order []string
	add := func(l report.LineStats, isBase bool) {
		line := l.Line
		if !isBase {
			line = inBase(l.File, l.Line)
		}
		name := plainName(l.Function, l.File, l.FunctionLine)
		k := fmt.Sprintf("%s\x00%s\x00%d", name, l.File, line)
		r := rows[k]
		if r == nil {
			r = &Line{Function: name, File: l.File}
			rows[k] = r
			order = append(order, k)
		}
		into := &r.New
		if isBase {
			into = &r.Base
		}
		if *into == nil {
			*into = &LineSide{Line: l.Line}
		}
		(*into).Executions += l.Executions
		(*into).SelfWasmInstructions += l.SelfWasmInstructions
		(*into).TotalWasmInstructions = max((*into).TotalWasmInstructions, l.TotalWasmInstructions)
	}
	for _, l := range base {
		add(l, true)
	}
	for _, l := range new {
		add(l, false)
	}
	out := make([]Line, 0, len(order))
	for _, k := range order {
		r := rows[k]
		var b, n LineSide
		b, n, r.Only = sides(r.Base, r.New)
		r.DeltaWasmInstructions = deltaOf(b.SelfWasmInstructions, n.SelfWasmInstructions)
		out = append(out, *r)
	}
	sort.SliceStable(out, func(i, j int) bool {
		wi := bothSides(out[i].Base, out[i].New, func(s *LineSide) uint64 { return s.SelfWasmInstructions })
		wj := bothSides(out[j].Base, out[j].New, func(s *LineSide) uint64 { return s.SelfWasmInstructions })
		return byChange(out[i].DeltaWasmInstructions, out[j].DeltaWasmInstructions, wi, wj, out[i].Label(), out[j].Label())
	})
	return out
}
