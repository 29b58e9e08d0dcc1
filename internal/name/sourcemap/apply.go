package sourcemap

import (
	"bytes"
	"errors"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// Applied is what Apply did.
type Applied struct {
	// Functions are the JS functions of the generated file, Renamed those
	// the map gave another name (a minifier's), Split those whose lines
	// are in several original files.
	Functions, Renamed, Split int
	// Locations are the JS locations of the generated file, Unmapped
	// those the map has no position for (they keep the bundle's).
	Locations, Unmapped int
}

// ErrMapped: the profile's positions were named after a map already.
var ErrMapped = errors.New("the profile's JS positions are named after a source map already")

// Apply names the positions of the profile's JS functions of the
// generated file g (functions whose filename is g.Name) after the map's
// original files: each function's file, first line and name (the map's
// name at the function's name, where a minifier renamed it), each
// location's line and column. The bundle's positions stay in the
// functions' system names (jsprofile.JSName: its first line and column,
// and each original line's first generated line), and the profile's
// comments say which map named them (jsprofile.MarkSourceMapped). A
// function whose lines are in several original files (a bundle's module
// code) becomes one pprof function per file, parts of one JS function
// (jsprofile.JSName.Part, Whole), its own file's first; locations the map has no
// position for keep the bundle's, in a function of the generated file.
// The map should have passed Check against g: Apply trusts its positions.
func Apply(p *profile.Profile, l Loaded, g *Generated) (Applied, error) {
	if jsprofile.SourceMapped(p) {
		return Applied{}, ErrMapped
	}
	var a Applied
	type located struct {
		loc  *profile.Location
		line *profile.Line
	}
	byFn := map[*profile.Function][]located{}
	var order []*profile.Function
	for _, loc := range p.Location {
		for i := range loc.Line {
			ln := &loc.Line[i]
			fn := ln.Function
			if fn == nil || fn.Filename != g.Name || !strings.HasPrefix(fn.SystemName, "js:") {
				continue
			}
			if _, ok := byFn[fn]; !ok {
				order = append(order, fn)
			}
			byFn[fn] = append(byFn[fn], located{loc, ln})
		}
	}
	nextID := uint64(0)
	for _, fn := range p.Function {
		nextID = max(nextID, fn.ID)
	}
	for _, fn := range order {
		jn, ok := jsprofile.ParseJSName(fn.SystemName)
		if !ok {
			continue
		}
		a.Functions++
		def, defOK, name := l.definition(g, fn, jn)
		if name != fn.Name {
			a.Renamed++
		}
		// Group the function's locations by original file; -1: unmapped.
		type group struct {
			fn    *profile.Function
			lines map[int64]int64 // original line → first generated line
			start int64           // the first original line
			first [2]int64        // its first generated line and column
		}
		groups := map[int]*group{}
		var groupOrder []int
		locs := byFn[fn]
		srcOf := make([]int, len(locs))
		for i, at := range locs {
			a.Locations++
			genLine := at.line.Line
			pos, ok := l.Original(g, int(genLine), int(at.line.Column))
			src := -1
			if ok {
				src = pos.Source
			} else {
				a.Unmapped++
			}
			srcOf[i] = src
			gr := groups[src]
			if gr == nil {
				gr = &group{lines: map[int64]int64{}}
				groups[src] = gr
				groupOrder = append(groupOrder, src)
			}
			if !ok {
				continue // keeps the bundle's position
			}
			if g := [2]int64{genLine, at.line.Column}; gr.first == [2]int64{} || g[0] < gr.first[0] || g[0] == gr.first[0] && g[1] < gr.first[1] {
				gr.first = g
			}
			at.line.Line, at.line.Column = int64(pos.Line), int64(pos.Column)
			if g0, seen := gr.lines[int64(pos.Line)]; !seen || genLine < g0 {
				gr.lines[int64(pos.Line)] = genLine
			}
			if gr.start == 0 || int64(pos.Line) < gr.start {
				gr.start = int64(pos.Line)
			}
		}
		// The function's own file first: where the map puts its
		// definition, else that of its first mapped position (a bundle's
		// module code starts with the bundler's unmapped helpers), else
		// the bundle's.
		home := groupOrder[0]
		for _, src := range groupOrder {
			if f, h := groups[src].first, groups[home].first; src >= 0 && (home < 0 || f[0] < h[0] || f[0] == h[0] && f[1] < h[1]) {
				home = src
			}
		}
		if _, ok := groups[def.Source]; defOK && ok {
			home = def.Source
		}
		if len(groups) > 1 {
			a.Split++
		}
		gen := &jsprofile.GeneratedPos{Line: int(fn.StartLine), Column: jn.Column}
		bundleStart := fn.StartLine
		part := 0
		for _, src := range append([]int{home}, groupOrder...) {
			gr := groups[src]
			if gr.fn != nil {
				continue
			}
			n := jsprofile.JSName{Name: jn.Name, Address: jn.Address, Column: jn.Column, Generated: gen, Lines: gr.lines}
			target := fn // the function keeps its id, as its own file's
			if src != home {
				part++
				nextID++
				n.Part = part
				target = &profile.Function{ID: nextID}
				p.Function = append(p.Function, target)
			}
			target.Name = name
			switch {
			case src < 0:
				target.Filename, target.StartLine = g.Name, bundleStart
				n.Lines = nil
			case src == home && defOK && def.Source == src:
				target.Filename, target.StartLine = l.Map.Sources[src].Path, int64(def.Line)
			default:
				target.Filename, target.StartLine = l.Map.Sources[src].Path, gr.start
			}
			target.SystemName = n.String()
			gr.fn = target
		}
		for i, at := range locs {
			at.line.Function = groups[srcOf[i]].fn
		}
	}
	jsprofile.MarkSourceMapped(p, l.From, g.Name)
	return a, nil
}

// Original is the original position of a generated line and
// column (1-based, as QuickJS counts: bytes). Without a column (an engine
// that keeps none), the line's first segment's, when every segment of the
// line maps to that one original line; none otherwise (a minified line),
// rather than a guess.
func (l Loaded) Original(g *Generated, line, column int) (Position, bool) {
	if column <= 0 {
		return l.Map.lineOnly(line)
	}
	return l.Map.Lookup(line, g.UTF16Column(line, column))
}

// definition finds a function's original definition and name: at its
// name in the generated text (from its first column, or on its first line
// when the engine keeps no columns), the segment that starts there gives
// both, its name where a minifier renamed it. Otherwise the definition is
// the map's position of the function's first column, and the name stays.
func (l Loaded) definition(g *Generated, fn *profile.Function, jn jsprofile.JSName) (Position, bool, string) {
	line := int(fn.StartLine)
	text := g.Line(line)
	from := 0
	if jn.Column > 0 {
		from = jn.Column - 1
	}
	if short := shortName(fn.Name); short != "" && from <= len(text) {
		// The name is near the function's start: after it for a
		// declaration (QuickJS dates it at its keyword), before it for an
		// arrow function or method assigned to a name. The nearest
		// occurrence a segment starts at wins.
		lo, hi := max(0, from-maxNameBefore), min(len(text), from+maxNameAfter)
		best, bestDist := Position{}, -1
		for off := lo; off < hi; {
			i := bytes.Index(text[off:hi], []byte(short))
			if i < 0 {
				break
			}
			at := off + i
			off = at + len(short)
			if identAt(text, at) != short {
				continue
			}
			dist := max(at-from, from-at)
			if bestDist >= 0 && dist >= bestDist {
				continue
			}
			if pos, ok := l.Map.At(line, g.utf16Prefix(line, at)); ok {
				best, bestDist = pos, dist
			}
		}
		if bestDist >= 0 {
			name := fn.Name
			if best.Name != "" && best.Name != short {
				name = strings.TrimSuffix(fn.Name, short) + best.Name
			}
			return best, true, name
		}
	}
	pos, ok := l.Original(g, line, jn.Column)
	return pos, ok, fn.Name
}

// How far after and before a function's first column its name is looked
// for, in bytes.
const (
	maxNameAfter  = 256
	maxNameBefore = 64
)

// shortName is the identifier a display name ends with: norm for
// Point.norm, x for get x; "" for <anonymous> and names that are no
// identifier.
func shortName(display string) string {
	s := display
	if i := strings.LastIndexAny(s, ". "); i >= 0 {
		s = s[i+1:]
	}
	if s == "" || identAt([]byte(s), 0) != s {
		return ""
	}
	return s
}
