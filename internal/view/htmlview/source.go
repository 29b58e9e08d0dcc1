package htmlview

import (
	"errors"
	"fmt"
	"html/template"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/jsprof/jsprof/internal/fileio"
	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/internal/view/costfmt"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/wasmcore"
)

// The annotated source of the HTML report: each JS file of the profile,
// line by line, with the cost the profile charged to the line.

// SourceFile is the text of a JS file, to annotate.
type SourceFile struct {
	// Name is the file's name; its base name is matched to the profile's
	// JS file names.
	Name string
	Text []byte
	// From says where the text came from, for the page: "--source
	// index.js", "index.wasm (javy_source)".
	From string
}

// JavySourceSection is where the Javy CLI and jsprof build embed the
// program's JS (internal/run/javy owns it: javy.ReadSource reads it).
const JavySourceSection = javy.JavySourceSection

// ErrNoModuleSource: the module carries no JS source.
var ErrNoModuleSource = javy.ErrNoSource

// ModuleSource reads the JS a Javy module carries (javy.ReadSource). The
// file is named as jsprof build recorded it when it did, else name. A
// module without the section returns ErrNoModuleSource, and the file's
// name without its text (what jsprof build recorded before it embedded
// the JS).
func ModuleSource(wasm []byte, name string) (SourceFile, error) {
	m, err := wasmcore.Decode(wasm)
	if err != nil {
		return SourceFile{}, err
	}
	recorded, text, err := javy.ReadSource(m)
	if recorded != "" {
		name = recorded
	}
	switch {
	case errors.Is(err, javy.ErrNoSource):
		return SourceFile{Name: name}, err
	case err != nil:
		return SourceFile{}, err
	}
	return SourceFile{Name: name, Text: text, From: JavySourceSection}, nil
}

// ModuleFileSource reads the JS the module read from the file module
// carries, or the JS file it names from beside it (a module an earlier
// jsprof build made records only its JS file's name); nil and why when
// there is neither.
func ModuleFileSource(wasm []byte, module string) (src *SourceFile, note string, err error) {
	s, err := ModuleSource(wasm, "")
	switch {
	case err == nil:
		s.From = module + " (" + s.From + ")"
		return &s, "", nil
	case !errors.Is(err, ErrNoModuleSource):
		return nil, "", err
	case s.Name != "":
		beside := filepath.Join(filepath.Dir(module), filepath.Base(s.Name))
		if text, err := fileio.ReadRegular(beside, MaxFoundBytes); err == nil {
			return &SourceFile{Name: s.Name, Text: text, From: beside + " (named by " + module + ")"}, "", nil
		}
		return nil, fmt.Sprintf("it was built from %s and carries no JS source, and %s is not beside it", s.Name, s.Name), nil
	}
	return nil, err.Error(), nil
}

// MaxFoundBytes bounds a file read because a profile or a module names
// it, rather than the user: such a name may be anything (a FIFO from a
// bundle unpacked from a tar blocked jsprof report --html for ever), so
// only a regular file is read, without blocking, and only so much of it
// (internal/fileio).
const MaxFoundBytes = 512 << 20

// ReadSources reads the JS files given (jsprof report --source), and the
// JS the module file module carries (--module; ModuleFileSource): note
// says why that module annotates nothing, when it does not.
func ReadSources(files []string, module string) (srcs []SourceFile, note string, err error) {
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			return nil, "", fmt.Errorf("--source: %w", err)
		}
		srcs = append(srcs, SourceFile{Name: f, Text: text, From: "--source " + f})
	}
	if module == "" {
		return srcs, "", nil
	}
	wasm, err := os.ReadFile(module)
	if err != nil {
		return nil, "", fmt.Errorf("--module: %w", err)
	}
	src, note, err := ModuleFileSource(wasm, module)
	switch {
	case err != nil:
		return nil, "", fmt.Errorf("--module %s: %w", module, err)
	case src != nil:
		srcs = append(srcs, *src)
	}
	return srcs, note, nil
}

// ProfileModuleSource is the JS of the module a profile was made of, when
// nothing else says where the JS is: the profile names its module (by its
// file's name), and the module is looked for beside the profile, then in
// the current directory, where jsprof build and jsprof run leave it. A
// module not found, or without JS, annotates nothing; the page says how
// to give the JS.
func ProfileModuleSource(profilePath, module string) []SourceFile {
	if module == "" {
		return nil
	}
	name := filepath.Base(module) // the profile names a file, not a path to follow
	for _, p := range []string{filepath.Join(filepath.Dir(profilePath), name), name} {
		wasm, err := fileio.ReadRegular(p, MaxFoundBytes)
		if err != nil {
			continue
		}
		if src, _, err := ModuleFileSource(wasm, p); err == nil && src != nil {
			return []SourceFile{*src}
		}
	}
	return nil
}

// profileFiles lists the JS files of the profile's lines, heaviest first.
func profileFiles(d *report.Tables) []string {
	cost := map[string]uint64{}
	for _, l := range d.Lines {
		if l.File != "" {
			cost[l.File] += l.SelfWasmInstructions
		}
	}
	for _, f := range d.Functions {
		if _, ok := cost[f.File]; !ok && f.File != "" {
			cost[f.File] = 0
		}
	}
	files := make([]string, 0, len(cost))
	for f := range cost {
		files = append(files, f)
	}
	sort.Slice(files, func(i, j int) bool {
		if cost[files[i]] != cost[files[j]] {
			return cost[files[i]] > cost[files[j]]
		}
		return files[i] < files[j]
	})
	return files
}

// MatchSources pairs the sources with the profile's JS files: by name,
// then by base name, then, when one file and one source are left, with
// each other (Javy compiles every program as function.mjs, whatever the
// file's name). It returns the sources by profile file, and those it
// could not place.
func MatchSources(d *report.Tables, sources []SourceFile) (map[string]SourceFile, []SourceFile) {
	files := profileFiles(d)
	matched := map[string]SourceFile{}
	var left []SourceFile
	for _, same := range []func(f, s string) bool{
		func(f, s string) bool { return f == s }, // src/run.ts apart from node_modules/…/run.ts
		func(f, s string) bool { return filepath.Base(f) == filepath.Base(s) },
	} {
		var rest []SourceFile
		for _, s := range sources {
			placed := false
			for _, f := range files {
				if _, done := matched[f]; !done && same(f, s.Name) {
					matched[f], placed = s, true
					break
				}
			}
			if !placed {
				rest = append(rest, s)
			}
		}
		sources = rest
	}
	left = sources
	var free []string
	for _, f := range files {
		if _, ok := matched[f]; !ok {
			free = append(free, f)
		}
	}
	if len(free) == 1 && len(left) == 1 {
		matched[free[0]] = left[0]
		left = nil
	}
	return matched, left
}

// Source view bounds: a file of more lines shows only the lines near its
// costly ones; lines are cut to so many characters.
const (
	sourceFullLines = 5000
	sourceContext   = 3
	sourceLineChars = 400
)

// sourceView is one file of the page's source section.
type sourceView struct {
	ID           string // the HTML id prefix of its lines
	File         string
	From         string // where its text came from; "" when not given
	Instructions uint64 // its lines' cost
	Share        float64
	Hottest      int // its costliest line, by total
	Blocks       []sourceBlock
	LineCount    int
}

// sourceBlock is a run of lines, shown, or folded away when cold.
type sourceBlock struct {
	Cold    bool
	Omitted int // cold lines whose text is left out (a long file)
	Lines   []sourceLine
}

type sourceLine struct {
	N            int
	Text         string
	Instructions uint64 // in the line's own opcodes
	Total        uint64 // with what it called
	Executions   uint64
	Share        float64
	TotalShare   float64
	Functions    string
	Heat         template.CSS
}

// lineCost is the cost of one line of a file, over the functions on it:
// its own opcodes' (instr) and, a sample counted once, everything that ran
// while it was on the stack (total).
type lineCost struct {
	instr, total, execs uint64
	functions           []string
}

// sourceViews annotates the profile's files that have a source, and
// lists those that do not (their lines are in the page's line table).
func sourceViews(d *report.Tables, sources map[string]SourceFile) (views []sourceView, missing []string) {
	costs := map[string]map[int]*lineCost{}
	var maxLine uint64
	for _, l := range d.Lines {
		if l.File == "" || l.Line <= 0 {
			continue
		}
		m := costs[l.File]
		if m == nil {
			m = map[int]*lineCost{}
			costs[l.File] = m
		}
		c := m[l.Line]
		if c == nil {
			c = &lineCost{}
			m[l.Line] = c
		}
		c.instr += l.SelfWasmInstructions
		c.execs += l.Executions
		c.total = d.SourceLineTotals[report.SourceLine{File: l.File, Line: l.Line}]
		c.functions = append(c.functions, l.Function)
		maxLine = max(maxLine, c.total)
	}
	total := float64(d.TotalWasmInstructions)
	for i, file := range profileFiles(d) {
		m := costs[file]
		src, ok := sources[file]
		if !ok {
			if len(m) > 0 {
				missing = append(missing, file)
			}
			continue
		}
		v := sourceView{ID: fmt.Sprintf("src-%d", i), File: file, From: src.From}
		var lines []sourceLine
		text := strings.ReplaceAll(string(src.Text), "\r\n", "\n")
		text = strings.TrimSuffix(text, "\n")
		for n, t := range strings.Split(text, "\n") {
			if len(t) > sourceLineChars {
				t = truncateUTF8(t, sourceLineChars) + " …"
			}
			lines = append(lines, sourceLine{N: n + 1, Text: t})
		}
		for k := range lines {
			l := &lines[k]
			c := m[l.N]
			if c == nil {
				continue
			}
			l.Instructions, l.Total, l.Executions = c.instr, c.total, c.execs
			l.Share, l.TotalShare = costfmt.Share(c.instr, total), costfmt.Share(c.total, total)
			l.Functions = strings.Join(dedupe(c.functions), ", ")
			l.Heat = heat(c.total, maxLine)
		}
		// Costs on lines past the end of the text: the source is not the
		// profile's; show them anyway, at the end.
		var extra []int
		for n := range m {
			if n > len(lines) {
				extra = append(extra, n)
			}
		}
		sort.Ints(extra)
		for _, n := range extra {
			c := m[n]
			lines = append(lines, sourceLine{N: n, Text: "(past the end of the source given)", Instructions: c.instr, Total: c.total, Executions: c.execs,
				Share: costfmt.Share(c.instr, total), TotalShare: costfmt.Share(c.total, total), Functions: strings.Join(dedupe(c.functions), ", "), Heat: heat(c.total, maxLine)})
		}
		var hot uint64
		for _, l := range lines {
			v.Instructions += l.Instructions
			if l.Total > hot {
				hot, v.Hottest = l.Total, l.N
			}
		}
		v.Share = costfmt.Share(v.Instructions, total)
		v.LineCount = len(lines)
		v.Blocks = foldCold(lines)
		views = append(views, v)
	}
	return views, missing
}

// foldCold groups lines into runs, folding the cold runs away from the
// costly lines (every line of a short file is kept in the page; a long
// file's far cold lines are left out).
func foldCold(lines []sourceLine) []sourceBlock {
	if len(lines) <= 40 {
		return []sourceBlock{{Lines: lines}}
	}
	near := make([]bool, len(lines))
	for i, l := range lines {
		if l.Total == 0 {
			continue
		}
		for k := max(0, i-sourceContext); k <= min(len(lines)-1, i+sourceContext); k++ {
			near[k] = true
		}
	}
	var blocks []sourceBlock
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && near[j] == near[i] {
			j++
		}
		b := sourceBlock{Cold: !near[i], Lines: lines[i:j]}
		if b.Cold && j-i <= 2*sourceContext {
			b.Cold = false // a short gap: shown
		}
		if b.Cold && len(lines) > sourceFullLines {
			b.Omitted, b.Lines = j-i, nil
		}
		if n := len(blocks); n > 0 && !b.Cold && !blocks[n-1].Cold {
			blocks[n-1].Lines = append(blocks[n-1].Lines[:len(blocks[n-1].Lines):len(blocks[n-1].Lines)], b.Lines...)
		} else {
			blocks = append(blocks, b)
		}
		i = j
	}
	return blocks
}

// heat is a line's background: from pale yellow to orange red, by its cost
// against the costliest line's (square root, so that lines of a few
// percent still show), light enough to read the line on.
func heat(n, max uint64) template.CSS {
	if n == 0 || max == 0 {
		return ""
	}
	t := math.Sqrt(float64(n) / float64(max))
	return template.CSS(fmt.Sprintf("background: hsl(%d, 95%%, %d%%)", int(math.Round(52-44*t)), int(math.Round(93-27*t))))
}

func dedupe(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// truncateUTF8 cuts s to at most n bytes, on a character boundary.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
