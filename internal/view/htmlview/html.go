package htmlview

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/internal/view/costfmt"
	"github.com/jsprof/jsprof/internal/view/diff"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// The HTML pages are self-contained: inline CSS and JS, bars drawn with
// CSS, the flame graph drawn by the page's own script from data in the
// page; no font, image, link or script that would reach the network.

// htmlFuncs are the helpers of the templates (templates.go).
func htmlFuncs() template.FuncMap {
	return template.FuncMap{
		"human":  costfmt.Human,
		"signed": costfmt.HumanSigned,
		"saving": report.HumanSaving,
		"size":   report.HumanSize,
		"exact":  func(n uint64) string { return groupDigits(strconv.FormatUint(n, 10)) },
		"exactSigned": func(n int64) string {
			if n < 0 {
				return "-" + groupDigits(strconv.FormatInt(-n, 10))
			}
			return "+" + groupDigits(strconv.FormatInt(n, 10))
		},
		"pct":        func(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) },
		"perExec":    func(o report.OpcodeStats) string { return costfmt.PerExecution(o.Executions, o.PerExecution) },
		"lineLabel":  func(l report.LineStats) string { return l.Label() },
		"engine":     costfmt.EngineLabel,
		"changePct":  func(base, new uint64) string { return costfmt.SignedPercent(float64(base), float64(new)) },
		"onlyText":   diff.OnlyText,
		"barWidth":   barWidth,
		"calls":      func(n uint64) string { return costfmt.CountNoun(n, "call", "calls") },
		"failed":     func(code *int) bool { return code != nil && *code != 0 },
		"share":      func(n, total uint64) float64 { return costfmt.Share(n, float64(total)) },
		"deltaClass": deltaClass,
		"sideExec": func(o *diff.OpcodeSide) string {
			if o == nil {
				return "-"
			}
			return costfmt.Human(o.Executions)
		},
		"sidePerExec": func(o *diff.OpcodeSide) string {
			if o == nil {
				return "-"
			}
			return costfmt.PerExecution(o.Executions, o.PerExecution)
		},
		"sideInstr": func(o *diff.OpcodeSide) string {
			if o == nil {
				return "-"
			}
			return costfmt.Human(o.WasmInstructions)
		},
		"fnCalls": func(f *diff.FunctionSide) string {
			if f == nil {
				return "-"
			}
			return costfmt.Human(f.Calls)
		},
		"fnInstr": func(f *diff.FunctionSide) string {
			if f == nil {
				return "-"
			}
			return costfmt.Human(f.SelfWasmInstructions)
		},
		"flameScript": func() template.JS { return template.JS(flameScript) },
		"foldedWasm":  func() string { return FoldedWasmName },
		"flameData":   func(f *Flame) template.JS { return template.JS(f.flameJSON()) },
		"clip":        clip,
		// wasmRows lists the Wasm functions, then the Wasm view's buckets.
		"wasmRows": func(fns, buckets []report.WasmFunctionStats) []report.WasmFunctionStats {
			return append(append([]report.WasmFunctionStats(nil), fns...), buckets...)
		},
	}
}

// clip shortens a line of source for a heading: at most n characters,
// leading space trimmed.
func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// barWidth is the CSS width of a bar of n (a count or a delta) where max
// fills the cell.
func barWidth(n any, max float64) (template.CSS, error) {
	var f float64
	switch n := n.(type) {
	case uint64:
		f = float64(n)
	case int64:
		f = math.Abs(float64(n))
	case float64:
		f = math.Abs(n)
	default:
		return "", fmt.Errorf("barWidth of a %T", n)
	}
	w := 0.0
	if max > 0 {
		w = 100 * f / max
	}
	return template.CSS(fmt.Sprintf("width: %.2f%%", w)), nil
}

func deltaClass(d int64) string {
	switch {
	case d > 0:
		return "up"
	case d < 0:
		return "down"
	}
	return "same"
}

// groupDigits writes 1234567 as 1,234,567.
func groupDigits(s string) string {
	if len(s) <= 3 {
		return s
	}
	head := len(s) % 3
	out := s[:head]
	for i := head; i < len(s); i += 3 {
		if out != "" {
			out += ","
		}
		out += s[i : i+3]
	}
	return out
}

// parseTemplate parses a page with the shared style.
func parseTemplate(name, page string) (*template.Template, error) {
	t, err := template.New(name).Funcs(htmlFuncs()).Parse(page)
	if err != nil {
		return nil, err
	}
	if t, err = t.Parse(htmlStyle); err != nil {
		return nil, err
	}
	return t.Parse(reportParts)
}

// htmlReport is what reportPage reads.
type htmlReport struct {
	Title      string
	Source     string
	Function   string
	Data       *report.Tables
	Opcodes    []report.OpcodeStats
	MoreOps    int
	MaxOpcode  float64
	MaxPhase   float64
	Functions  []report.FunctionStats
	MoreFns    int
	MaxFn      float64
	Lines      []report.LineStats
	MoreLines  int
	MaxLine    float64
	MaxBucket  float64
	Uncertain  bool
	UncertainW string
	// Wasm are the Wasm functions (rows of --by wasm, each with its
	// callers cut to the view's few), WasmBuckets the view's buckets.
	Wasm        []report.WasmFunctionStats
	MoreWasm    int
	WasmBuckets []report.WasmFunctionStats
	MaxWasm     float64

	Flame        *Flame
	FlameView    flameView
	Hot          hotSpots
	Natives      []NativeCost
	MaxNative    float64
	Sources      []sourceView
	NoSource     []string // files with costly lines and no source
	NoSourceMore int
	Details      []htmlDetail // the functions whose opcodes are listed
	DetailsCut   bool
	Unplaced     []javy.SourceFile
	InputCost    []report.InputCost
}

// flameView is what the flame graph's template reads: the graph, and in a
// diff how to name its two runs.
type flameView struct {
	F         *Flame
	Base, New string
}

// Bounds of the report page, so that it opens at once whatever the
// profile: rows of each table when --top is not given (the "… N more"
// row says what is left out; CSV and JSON have every row), functions
// whose opcodes are listed, files named as having no source.
const (
	htmlMaxRows      = 300
	htmlMaxDetails   = 50
	htmlMaxDetailOps = 25
	maxNoSource      = 10
)

// htmlDetail is a function whose opcodes the page lists.
type htmlDetail struct {
	report.FunctionStats
	MoreOps int
}

// hotSpots are what the page's first screen names: the costliest line,
// JS function, opcode and native.
type hotSpots struct {
	Line *report.LineStats
	// Through is the outermost line Line was found under (hottestLine):
	// the entry line that runs nearly everything; "" when none.
	Through  string
	LineText string // the line's source, when given
	LineID   string // the line's id in the source view
	Function *report.FunctionStats
	Opcode   *report.OpcodeStats
	Native   *NativeCost
}

// ReportOptions add to a report's page what its tables do not hold. The
// zero value makes the page of the tables alone.
type ReportOptions struct {
	// Flame is the profile's flame graph (NewFlame); nil: the page has
	// none (nor script), and its natives come from the tables.
	Flame *Flame
	// Sources are the JS files to annotate line by line (MatchSources
	// places them); the page names the profile's files without one.
	Sources []javy.SourceFile
	// InputCost is what each field path of each input cost to decode
	// (jsprof run --input-cost): a section of the page when set.
	InputCost []report.InputCost
}

// WriteReport writes r as one self-contained HTML page: first the hot
// spots (the costliest line, native, function and opcode) and, with
// o.Flame, the flame graph, then the annotated source (o.Sources), the
// natives, and the tables of every view of r (the per-opcode cost bars,
// the JS functions each with its opcodes, the lines, the Wasm
// functions), cut to r's Top rows (0: all, up to htmlMaxRows).
func WriteReport(w io.Writer, r *report.Report, o ReportOptions) error {
	t, err := parseTemplate("report", reportPage+inputCostSection)
	if err != nil {
		return err
	}
	d, opts := r.Data(), r.Options()
	v := htmlReport{Source: opts.Source, Function: opts.Function, Data: d, UncertainW: costfmt.UncertainWhy(d.Engine), Flame: o.Flame,
		FlameView: flameView{F: o.Flame}, InputCost: o.InputCost}
	matched, unplaced := MatchSources(d, o.Sources)
	v.Sources, v.NoSource = sourceViews(d, matched)
	v.Unplaced = unplaced
	v.Natives = nativesOf(d, o.Flame)
	v.Hot = hottest(d, v.Natives, v.Sources)
	for _, n := range v.Natives {
		v.MaxNative = math.Max(v.MaxNative, float64(n.TotalWasmInstructions))
	}
	v.Title = "jsprof report"
	if v.Source != "" {
		v.Title += ": " + v.Source
	}
	if len(v.NoSource) > maxNoSource {
		v.NoSourceMore = len(v.NoSource) - maxNoSource
		v.NoSource = v.NoSource[:maxNoSource]
	}
	top := opts.Top
	if top == 0 {
		top = htmlMaxRows
	}
	v.Opcodes, v.MoreOps = costfmt.FirstN(d.Opcodes, top)
	v.Functions, v.MoreFns = costfmt.FirstN(d.Functions, top)
	v.Functions = append([]report.FunctionStats(nil), v.Functions...) // cut below, not d's
	for i := range v.Functions {
		v.Functions[i].Opcodes, _ = costfmt.FirstN(v.Functions[i].Opcodes, top)
	}
	for _, f := range v.Functions {
		if len(v.Details) == htmlMaxDetails {
			v.DetailsCut = true
			break
		}
		if isNativeFunction(f) {
			continue // no opcodes
		}
		opTop := opts.Top
		if opTop == 0 {
			opTop = htmlMaxDetailOps
		}
		var more int
		f.Opcodes, more = costfmt.FirstN(f.Opcodes, opTop)
		v.Details = append(v.Details, htmlDetail{FunctionStats: f, MoreOps: more})
	}
	v.Lines, v.MoreLines = costfmt.FirstN(d.Lines, top)
	wasm, moreWasm := costfmt.FirstN(d.WasmFunctions, top)
	v.Wasm, v.MoreWasm = report.CutCallers(wasm, report.WasmCallersTop), moreWasm
	v.WasmBuckets = report.CutCallers(d.WasmBuckets, report.WasmCallersTop)
	for _, f := range append(append([]report.WasmFunctionStats(nil), d.WasmFunctions...), d.WasmBuckets...) {
		v.MaxWasm = math.Max(v.MaxWasm, float64(f.SelfWasmInstructions))
	}
	for _, o := range d.Opcodes {
		v.MaxOpcode = math.Max(v.MaxOpcode, float64(o.WasmInstructions))
		v.Uncertain = v.Uncertain || o.UncertainName
	}
	for _, p := range d.Phases {
		v.MaxPhase = math.Max(v.MaxPhase, float64(p.WasmInstructions))
	}
	for _, b := range d.Buckets {
		v.MaxOpcode = math.Max(v.MaxOpcode, float64(b.WasmInstructions))
	}
	for _, f := range d.Functions {
		v.MaxFn = math.Max(v.MaxFn, float64(f.SelfWasmInstructions))
	}
	for _, b := range d.Buckets {
		v.MaxFn = math.Max(v.MaxFn, float64(b.WasmInstructions))
	}
	for _, l := range d.Lines {
		v.MaxLine = math.Max(v.MaxLine, float64(l.TotalWasmInstructions))
	}
	return t.ExecuteTemplate(w, "report", v)
}

// htmlDiff is what diffPage reads.
type htmlDiff struct {
	Title     string
	Diff      *diff.Diff
	Opcodes   []diff.Opcode
	MoreOps   int
	MoreOpsD  int64
	Functions []diff.Function
	MoreFns   int
	MoreFnsD  int64
	MaxDelta  float64
	MaxFn     float64
	MaxInstr  float64
	Uncertain bool
	Flame     *Flame
	FlameView flameView
}

// DiffOptions add to a diff's page what its tables do not hold.
type DiffOptions struct {
	Top int // rows of each table (0: all)
	// Flame is both profiles' flame graph (NewFlameDiff), drawn as the
	// base's graph beside new's, coloured by change; nil: none.
	Flame *Flame
}

// sideLabel names one run of a diff above its flame graph: its engine and
// its profile.
func sideLabel(s diff.Side) string {
	l := costfmt.EngineLabel(s.Engine)
	if s.Profile != "" {
		l += " (" + s.Profile + ")"
	}
	return l
}

// WriteDiff writes df as one self-contained HTML page: the totals, the
// summary, with o.Flame the two runs' flame graphs side by side, coloured
// by change, then the change per opcode as bars either side of zero, the
// opcodes side by side, and the change per JS function: o.Top rows of
// each table (0: all).
func WriteDiff(w io.Writer, df *diff.Diff, o DiffOptions) error {
	t, err := parseTemplate("diff", diffPage)
	if err != nil {
		return err
	}
	top := o.Top
	v := htmlDiff{Diff: df, Title: "jsprof diff", Flame: o.Flame,
		FlameView: flameView{F: o.Flame, Base: sideLabel(df.Base), New: sideLabel(df.New)}}
	v.Opcodes, v.MoreOps = costfmt.FirstN(df.Opcodes, top)
	for _, o := range df.Opcodes[len(v.Opcodes):] {
		v.MoreOpsD += o.DeltaWasmInstructions
	}
	v.Functions, v.MoreFns = costfmt.FirstN(df.Functions, top)
	for _, f := range df.Functions[len(v.Functions):] {
		v.MoreFnsD += f.DeltaWasmInstructions
	}
	if df.Base.Profile != "" || df.New.Profile != "" {
		v.Title += ": " + df.Base.Profile + " → " + df.New.Profile
	}
	for _, o := range df.Opcodes {
		v.MaxDelta = math.Max(v.MaxDelta, math.Abs(float64(o.DeltaWasmInstructions)))
		v.Uncertain = v.Uncertain || o.Uncertain()
		if o.Base != nil {
			v.MaxInstr = math.Max(v.MaxInstr, float64(o.Base.WasmInstructions))
		}
		if o.New != nil {
			v.MaxInstr = math.Max(v.MaxInstr, float64(o.New.WasmInstructions))
		}
	}
	for _, b := range df.Buckets {
		v.MaxDelta = math.Max(v.MaxDelta, math.Abs(float64(b.DeltaWasmInstructions)))
	}
	for _, f := range df.Functions {
		v.MaxFn = math.Max(v.MaxFn, math.Abs(float64(f.DeltaWasmInstructions)))
	}
	for _, b := range df.Buckets {
		v.MaxFn = math.Max(v.MaxFn, math.Abs(float64(b.DeltaWasmInstructions)))
	}
	return t.ExecuteTemplate(w, "diff", v)
}

// nativesOf lists the natives, from the flame graph's stacks when there is
// one, else from the tables (the native functions, and the (native
// functions) bucket).
func nativesOf(d *report.Tables, f *Flame) []NativeCost {
	if f != nil {
		return f.Natives
	}
	m := map[string]*NativeCost{}
	for _, fn := range d.Functions {
		if !isNativeFunction(fn) {
			continue
		}
		name := strings.TrimSuffix(fn.Name, report.NativeSuffix)
		n := m[name]
		if n == nil {
			n = &NativeCost{Name: name, Named: true}
			m[name] = n
		}
		n.SelfWasmInstructions += fn.SelfWasmInstructions
		n.TotalWasmInstructions += fn.TotalWasmInstructions
		n.Calls += fn.Calls
	}
	for _, b := range d.Buckets {
		if b.Name == jsprofile.BucketNative && b.WasmInstructions > 0 {
			m[b.Name] = &NativeCost{Name: b.Name, SelfWasmInstructions: b.WasmInstructions, TotalWasmInstructions: b.WasmInstructions}
		}
	}
	return sortNatives(m, d.TotalWasmInstructions)
}

// isNativeFunction tells a native function of the tables.
func isNativeFunction(f report.FunctionStats) bool {
	return f.Kind == report.FunctionNative || strings.HasSuffix(f.Name, report.NativeSuffix)
}

// hottestLine is the line the first screen names: the costliest by total
// (lines come sorted so), past each line that passes nearly all of its
// cost (90%) on to the next, a line of another function: the entry line
// (run(userFunction?.default), which every Shopify Function has, runs
// 99% of the run) says nothing of where the cost goes. through is the
// first line passed, "" when none was.
func hottestLine(lines []report.LineStats) (hot *report.LineStats, through string) {
	i := slices.IndexFunc(lines, func(l report.LineStats) bool { return l.TotalWasmInstructions > 0 })
	if i < 0 {
		return nil, ""
	}
	for ; i+1 < len(lines); i++ {
		cur, next := &lines[i], &lines[i+1]
		if next.TotalWasmInstructions < cur.TotalWasmInstructions/10*9 || (next.Function == cur.Function && next.File == cur.File) {
			break
		}
		if through == "" {
			through = cur.Label()
		}
	}
	return &lines[i], through
}

// hottest finds the hot spots of the first screen.
func hottest(d *report.Tables, natives []NativeCost, sources []sourceView) hotSpots {
	var h hotSpots
	h.Line, h.Through = hottestLine(d.Lines)
	if h.Line != nil {
		for _, v := range sources {
			if v.File != h.Line.File {
				continue
			}
			h.LineID = fmt.Sprintf("%s-L%d", v.ID, h.Line.Line)
			for _, b := range v.Blocks {
				for _, l := range b.Lines {
					if l.N == h.Line.Line {
						h.LineText = l.Text
					}
				}
			}
		}
	}
	for i := range d.Functions {
		if !isNativeFunction(d.Functions[i]) {
			h.Function = &d.Functions[i]
			break
		}
	}
	if len(d.Opcodes) > 0 {
		h.Opcode = &d.Opcodes[0]
	}
	for i := range natives {
		if natives[i].TotalWasmInstructions > 0 {
			h.Native = &natives[i]
			break
		}
	}
	return h
}
