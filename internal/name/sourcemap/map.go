package sourcemap

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Map is a source map read: the original sources, the names, and every
// mapped segment, ordered by generated position.
type Map struct {
	// File is the generated file the map says it maps ("function.js");
	// "" when it does not say.
	File    string
	Sources []Source
	Names   []string
	// segs are the segments of every section, by generated line, then
	// column.
	segs []segment
}

// Source is one original source of a map.
type Source struct {
	// Name is the source as the map names it, sourceRoot applied
	// ("../src/run.ts", "webpack://app/./src/run.ts").
	Name string
	// Path is where the file is: Name resolved against the map's
	// directory ("src/run.ts" for a map in dist/); what profiles show.
	Path string
	// Content is the map's sourcesContent for it, when HasContent.
	Content    string
	HasContent bool
}

// segment is one mapping: from a generated position (0-based line and
// UTF-16 column) to an original one (0-based), src -1 when the segment
// maps to no source; name -1 when it names nothing.
type segment struct {
	genLine, genCol int32
	src             int32
	line, col       int32
	name            int32
}

// Position is an original position.
type Position struct {
	Source int    // index in Map.Sources
	File   string // Map.Sources[Source].Path
	Line   int    // 1-based
	Column int    // 1-based
	Name   string // the original name the segment gives, "" when none
}

// Bounds on what a map may ask for: generated and original lines and
// columns fit jsprof's int32 positions, and an index map's sections are
// few enough to check one by one.
const (
	maxPosition = 1<<31 - 1
	maxSections = 1 << 16
)

// document is a Source Map v3 document, or an index map (Sections).
type document struct {
	Version        int       `json:"version"`
	File           string    `json:"file"`
	SourceRoot     string    `json:"sourceRoot"`
	Sources        []*string `json:"sources"`
	SourcesContent []*string `json:"sourcesContent"`
	Names          []string  `json:"names"`
	Mappings       *string   `json:"mappings"`
	Sections       []section `json:"sections"`
}

// section is one section of an index map.
type section struct {
	Offset *struct {
		Line   int64 `json:"line"`
		Column int64 `json:"column"`
	} `json:"offset"`
	Map json.RawMessage `json:"map"`
	URL *string         `json:"url"`
}

// Parse reads a source map. dir is the directory its sources are relative
// to (the map file's, or for an inline map the generated file's); a
// source that is a URL is kept as written, but for file: URLs (their
// path) and webpack:// URLs (the path after the namespace, relative to
// the directory jsprof runs in, as webpack's context is the project's).
// Its work is linear in data's size, and it gives up with ctx's cause
// when ctx is done (the user's signal), within a few thousand segments.
func Parse(ctx context.Context, data []byte, dir string) (*Map, error) {
	var d document
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("not a source map: %w", err)
	}
	if d.Version != 3 {
		return nil, fmt.Errorf("source map version %d, want 3", d.Version)
	}
	m := &Map{File: d.File}
	if d.Sections == nil {
		if err := m.add(ctx, &d, dir, 0, 0); err != nil {
			return nil, err
		}
		return m, nil
	}
	if d.Mappings != nil {
		return nil, errors.New("an index map (sections) with mappings of its own")
	}
	if len(d.Sections) > maxSections {
		return nil, fmt.Errorf("%d sections, more than %d", len(d.Sections), maxSections)
	}
	var prevLine, prevCol int64 = -1, -1
	for i, s := range d.Sections {
		switch {
		case s.URL != nil:
			return nil, fmt.Errorf("section %d: a section given by url is not supported, only embedded maps", i)
		case s.Offset == nil || len(s.Map) == 0:
			return nil, fmt.Errorf("section %d: want an offset and a map", i)
		case s.Offset.Line < 0 || s.Offset.Column < 0 || s.Offset.Line > maxPosition || s.Offset.Column > maxPosition:
			return nil, fmt.Errorf("section %d: offset %d:%d out of range", i, s.Offset.Line, s.Offset.Column)
		case s.Offset.Line < prevLine || (s.Offset.Line == prevLine && s.Offset.Column <= prevCol):
			return nil, fmt.Errorf("section %d: offset %d:%d is not after the previous section's", i, s.Offset.Line, s.Offset.Column)
		}
		prevLine, prevCol = s.Offset.Line, s.Offset.Column
		var sd document
		if err := json.Unmarshal(s.Map, &sd); err != nil {
			return nil, fmt.Errorf("section %d: %w", i, err)
		}
		d.Sections[i].Map = nil // decoded: not held beside its segments
		switch {
		case sd.Version != 3:
			return nil, fmt.Errorf("section %d: source map version %d, want 3", i, sd.Version)
		case sd.Sections != nil:
			return nil, fmt.Errorf("section %d: an index map inside an index map", i)
		}
		first := len(m.segs)
		if err := m.add(ctx, &sd, dir, int32(s.Offset.Line), int32(s.Offset.Column)); err != nil {
			return nil, fmt.Errorf("section %d: %w", i, err)
		}
		// A section ends where the next begins: segments past that are
		// the next section's business (the spec leaves them undefined).
		if i+1 < len(d.Sections) && d.Sections[i+1].Offset != nil {
			next := d.Sections[i+1].Offset
			kept := m.segs[:first]
			for _, g := range m.segs[first:] {
				if int64(g.genLine) < next.Line || (int64(g.genLine) == next.Line && int64(g.genCol) < next.Column) {
					kept = append(kept, g)
				}
			}
			m.segs = kept
		}
	}
	return m, nil
}

// add adds one (non-index) map's sources, names and segments, its
// generated positions moved by the section's offset (the column only on
// the section's first line).
func (m *Map) add(ctx context.Context, d *document, dir string, offLine, offCol int32) error {
	if d.Mappings == nil {
		return errors.New("no mappings")
	}
	if len(d.SourcesContent) > len(d.Sources) {
		return fmt.Errorf("%d sourcesContent for %d sources", len(d.SourcesContent), len(d.Sources))
	}
	srcBase, nameBase := int32(len(m.Sources)), int32(len(m.Names))
	for i, s := range d.Sources {
		var src Source
		if s != nil {
			src.Name = *s
			if d.SourceRoot != "" {
				src.Name = joinRoot(d.SourceRoot, *s)
			}
			src.Path = resolve(src.Name, dir)
		}
		if i < len(d.SourcesContent) && d.SourcesContent[i] != nil {
			src.Content, src.HasContent = *d.SourcesContent[i], true
		}
		m.Sources = append(m.Sources, src)
	}
	m.Names = append(m.Names, d.Names...)
	start := len(m.segs)
	segs, err := decodeMappings(ctx, *d.Mappings, int32(len(d.Sources)), int32(len(d.Names)), m.segs)
	if err != nil {
		return err
	}
	d.Mappings = nil // decoded: not held beside its segments
	for i := start; i < len(segs); i++ {
		g := &segs[i]
		if g.genLine == 0 {
			if int64(g.genCol)+int64(offCol) > maxPosition {
				return fmt.Errorf("mappings: column %d past the section's offset overflows", g.genCol)
			}
			g.genCol += offCol
		}
		if int64(g.genLine)+int64(offLine) > maxPosition {
			return fmt.Errorf("mappings: line %d past the section's offset overflows", g.genLine)
		}
		g.genLine += offLine
		if g.src >= 0 {
			g.src += srcBase
		}
		if g.name >= 0 {
			g.name += nameBase
		}
	}
	// Segments are in order within a line by the spec; sorting makes it so
	// for maps that are not.
	byPosition := func(a, b segment) int {
		if a.genLine != b.genLine {
			return int(a.genLine - b.genLine)
		}
		return int(a.genCol - b.genCol)
	}
	if !slices.IsSortedFunc(segs[start:], byPosition) {
		slices.SortStableFunc(segs[start:], byPosition)
	}
	m.segs = segs
	return nil
}

// joinRoot puts a source under the map's sourceRoot.
func joinRoot(root, src string) string {
	if isURL(src) || path.IsAbs(src) {
		return src
	}
	if !strings.HasSuffix(root, "/") {
		root += "/"
	}
	return root + src
}

// isURL says whether s starts with a URL scheme (webpack://, file:).
func isURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && len(u.Scheme) > 1 // a one-letter scheme is a Windows drive
}

// resolve is where a source is: file: URLs by their path, webpack://
// URLs by the path after their namespace, relative paths against dir.
func resolve(name, dir string) string {
	if isURL(name) {
		u, _ := url.Parse(name)
		switch u.Scheme {
		case "file":
			return filepath.FromSlash(u.Path)
		case "webpack":
			// webpack://NAMESPACE/./src/x.ts, webpack:///./src/x.ts
			return filepath.Clean(filepath.FromSlash(strings.TrimPrefix(u.Path, "/")))
		}
		return name
	}
	p := filepath.FromSlash(name)
	if filepath.IsAbs(p) || dir == "" {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// Lookup returns the original position of a generated one: line 1-based,
// column 0-based in UTF-16 code units (the map's units). The segment that
// applies is the last one on that line at or before the column; a
// position before the line's first segment, on a line without segments,
// or in a segment that maps to no source has none.
func (m *Map) Lookup(line, column int) (Position, bool) {
	i, found := m.search(line, column)
	// i is the first segment after (line, column), or at it.
	if found {
		return m.position(m.segs[i])
	}
	if i == 0 || m.segs[i-1].genLine != int32(line-1) {
		return Position{}, false
	}
	return m.position(m.segs[i-1])
}

// At returns the original position of the segment that starts exactly at
// a generated position (line 1-based, column 0-based UTF-16), if one does.
func (m *Map) At(line, column int) (Position, bool) {
	i, found := m.search(line, column)
	if !found {
		return Position{}, false
	}
	return m.position(m.segs[i])
}

// search finds the segment at a generated position (line 1-based, column
// 0-based UTF-16) in the sorted segments: its index and true, or the
// index of the first segment after it and false.
func (m *Map) search(line, column int) (int, bool) {
	return slices.BinarySearchFunc(m.segs, [2]int64{int64(line - 1), int64(column)}, func(g segment, t [2]int64) int {
		if c := cmp.Compare(int64(g.genLine), t[0]); c != 0 {
			return c
		}
		return cmp.Compare(int64(g.genCol), t[1])
	})
}

func (m *Map) position(g segment) (Position, bool) {
	if g.src < 0 {
		return Position{}, false
	}
	p := Position{Source: int(g.src), File: m.Sources[g.src].Path, Line: int(g.line) + 1, Column: int(g.col) + 1}
	if g.name >= 0 {
		p.Name = m.Names[g.name]
	}
	return p, true
}

// Segments is how many segments the map has.
func (m *Map) Segments() int { return len(m.segs) }

// lineOnly is the original position of a generated line's first
// segment, when all its segments that map somewhere map to that one
// original line.
func (m *Map) lineOnly(line int) (Position, bool) {
	i, _ := slices.BinarySearchFunc(m.segs, int64(line-1), func(g segment, t int64) int {
		return cmp.Compare(int64(g.genLine), t)
	})
	var first *segment
	for ; i < len(m.segs) && int(m.segs[i].genLine) == line-1; i++ {
		g := &m.segs[i]
		switch {
		case g.src < 0:
		case first == nil:
			first = g
		case g.src != first.src || g.line != first.line:
			return Position{}, false
		}
	}
	if first == nil {
		return Position{}, false
	}
	return m.position(*first)
}
