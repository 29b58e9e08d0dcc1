package htmlview

import (
	"fmt"
	"html/template"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/jsprof/jsprof/internal/printable"
	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/internal/view/costfmt"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// The annotated source of the HTML report: each JS file of the profile,
// line by line, with the cost the profile charged to the line.

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
func MatchSources(d *report.Tables, sources []javy.SourceFile) (map[string]javy.SourceFile, []javy.SourceFile) {
	files := profileFiles(d)
	matched := map[string]javy.SourceFile{}
	var left []javy.SourceFile
	for _, same := range []func(f, s string) bool{
		func(f, s string) bool { return f == s }, // src/run.ts apart from node_modules/…/run.ts
		func(f, s string) bool { return filepath.Base(f) == filepath.Base(s) },
	} {
		var rest []javy.SourceFile
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

// UnmatchedSources are the sources MatchSources cannot place with a JS
// file of the profile (d, its tables; meta, its facts), but the bundle a
// profile named after a source map no longer names, all of whose lines
// the map named after other files: each is said to name no JS file.
func UnmatchedSources(d *report.Tables, sources []javy.SourceFile, meta jsprofile.Meta) (left []javy.SourceFile) {
	_, unmatched := MatchSources(d, sources)
	for _, s := range unmatched {
		if meta.SourceMap == "" || filepath.Base(s.Name) != filepath.Base(meta.GeneratedFile) {
			left = append(left, s)
		}
	}
	return left
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
func sourceViews(d *report.Tables, sources map[string]javy.SourceFile) (views []sourceView, missing []string) {
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
		v := sourceView{ID: fmt.Sprintf("src-%d", i), File: file, From: printable.String(src.From)}
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
