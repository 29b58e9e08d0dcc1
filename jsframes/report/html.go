package report

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
)

// The HTML pages are self-contained: inline CSS, bars drawn with CSS, no
// script, no font, image or link that would reach the network.

// htmlFuncs are the helpers of the templates (html_tmpl.go).
func htmlFuncs() template.FuncMap {
	return template.FuncMap{
		"human":  Human,
		"signed": humanSigned,
		"exact":  func(n uint64) string { return groupDigits(strconv.FormatUint(n, 10)) },
		"exactSigned": func(n int64) string {
			if n < 0 {
				return "-" + groupDigits(strconv.FormatInt(-n, 10))
			}
			return "+" + groupDigits(strconv.FormatInt(n, 10))
		},
		"pct":        func(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) },
		"perExec":    perExec,
		"lineLabel":  lineLabel,
		"engine":     engineLabel,
		"changePct":  func(base, new uint64) string { return signedPercent(float64(base), float64(new)) },
		"onlyText":   onlyText,
		"barWidth":   barWidth,
		"calls":      func(n uint64) string { return countNoun(n, "call", "calls") },
		"failed":     func(code *int) bool { return code != nil && *code != 0 },
		"share":      func(n, total uint64) float64 { return shareOf(n, float64(total)) },
		"deltaClass": deltaClass,
		"sideExec": func(o *OpcodeSide) string {
			if o == nil {
				return "-"
			}
			return Human(o.Executions)
		},
		"sidePerExec": func(o *OpcodeSide) string {
			if o == nil || o.Executions == 0 {
				return "-"
			}
			return fmt.Sprintf("%.1f", o.PerExecution)
		},
		"sideInstr": func(o *OpcodeSide) string {
			if o == nil {
				return "-"
			}
			return Human(o.WasmInstructions)
		},
		"fnCalls": func(f *FunctionSide) string {
			if f == nil {
				return "-"
			}
			return Human(f.Calls)
		},
		"fnInstr": func(f *FunctionSide) string {
			if f == nil {
				return "-"
			}
			return Human(f.SelfWasmInstructions)
		},
	}
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
	return t.Parse(htmlStyle)
}

// htmlReport is what reportPage reads.
type htmlReport struct {
	Title      string
	Source     string
	Function   string
	Data       *Tables
	Opcodes    []OpcodeStats
	MoreOps    int
	MaxOpcode  float64
	Functions  []FunctionStats
	MoreFns    int
	MaxFn      float64
	Lines      []LineStats
	MoreLines  int
	MaxLine    float64
	MaxBucket  float64
	Uncertain  bool
	UncertainW string
}

// WriteHTML writes the report as one self-contained HTML page: the
// per-opcode cost bars, the JS functions (each with its opcodes) and the
// source lines — every view, cut to ReportOptions.Top rows (0: all).
func (r *Report) WriteHTML(w io.Writer) error {
	t, err := parseTemplate("report", reportPage)
	if err != nil {
		return err
	}
	d := r.data
	v := htmlReport{Source: r.opts.Source, Function: r.opts.Function, Data: d, UncertainW: uncertainWhy(d.Engine)}
	v.Title = "jsprof report"
	if v.Source != "" {
		v.Title += ": " + v.Source
	}
	v.Opcodes, v.MoreOps = firstN(d.Opcodes, r.opts.Top)
	v.Functions, v.MoreFns = firstN(d.Functions, r.opts.Top)
	for i := range v.Functions {
		v.Functions[i].Opcodes, _ = firstN(v.Functions[i].Opcodes, r.opts.Top)
	}
	v.Lines, v.MoreLines = firstN(d.Lines, r.opts.Top)
	for _, o := range d.Opcodes {
		v.MaxOpcode = math.Max(v.MaxOpcode, float64(o.WasmInstructions))
		v.Uncertain = v.Uncertain || o.UncertainName
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
		v.MaxLine = math.Max(v.MaxLine, float64(l.WasmInstructions))
	}
	return t.ExecuteTemplate(w, "report", v)
}

// htmlDiff is what diffPage reads.
type htmlDiff struct {
	Title     string
	Diff      *Diff
	Opcodes   []OpcodeDiff
	MoreOps   int
	MoreOpsD  int64
	Functions []FunctionDiff
	MoreFns   int
	MoreFnsD  int64
	MaxDelta  float64
	MaxFn     float64
	MaxInstr  float64
	Uncertain bool
}

// WriteHTML writes the diff as one self-contained HTML page: the totals,
// the summary, the change per opcode as bars either side of zero, the
// opcodes side by side, and the change per JS function: top rows of each
// table (0: all).
func (df *Diff) WriteHTML(w io.Writer, top int) error {
	t, err := parseTemplate("diff", diffPage)
	if err != nil {
		return err
	}
	v := htmlDiff{Diff: df, Title: "jsprof diff"}
	v.Opcodes, v.MoreOps = firstN(df.Opcodes, top)
	for _, o := range df.Opcodes[len(v.Opcodes):] {
		v.MoreOpsD += o.DeltaWasmInstructions
	}
	v.Functions, v.MoreFns = firstN(df.Functions, top)
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
