package diff

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// fn is a JS function of a test's tables, with the opcodes it ran.
func fn(name string, line int, self uint64, ops ...string) report.FunctionStats {
	f := report.FunctionStats{Name: name, Kind: report.FunctionJS, File: "run.ts", Line: line, Calls: 1,
		SelfWasmInstructions: self, TotalWasmInstructions: self}
	for _, o := range ops {
		f.Opcodes = append(f.Opcodes, report.OpcodeStats{Name: o})
	}
	return f
}

// TestMatchMoved: functions only in one profile are matched with those
// only in the other by name and file, then shape (the opcodes they ran)
// and distance; functions of other names never are (the negative
// control), nor two of one name the shapes tell apart when more than one
// of each is left.
func TestMatchMoved(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		base, new []report.FunctionStats
		want      map[string][2]int // label → base line, new line (0: none)
	}{
		{"moved down two lines",
			[]report.FunctionStats{fn("<anonymous>", 49, 500, "get_loc", "add")},
			[]report.FunctionStats{fn("<anonymous>", 51, 100, "get_loc")},
			map[string][2]int{"<anonymous> (run.ts:49→51)": {49, 51}}},
		{"another name is another function",
			[]report.FunctionStats{fn("a", 49, 500, "get_loc")},
			[]report.FunctionStats{fn("b", 51, 500, "get_loc")},
			map[string][2]int{"a (run.ts:49)": {49, 0}, "b (run.ts:51)": {0, 51}}},
		{"two closures, paired by shape, not by order",
			[]report.FunctionStats{fn("<anonymous>", 10, 5, "add", "get_loc"), fn("<anonymous>", 12, 5, "call1", "get_field")},
			[]report.FunctionStats{fn("<anonymous>", 13, 5, "add", "get_loc"), fn("<anonymous>", 15, 5, "call1", "get_field")},
			map[string][2]int{"<anonymous> (run.ts:10→13)": {10, 13}, "<anonymous> (run.ts:12→15)": {12, 15}}},
		{"two closures, the second rewritten: the one left is matched",
			[]report.FunctionStats{fn("<anonymous>", 10, 5, "add", "get_loc"), fn("<anonymous>", 12, 5, "call1", "get_field", "mul")},
			[]report.FunctionStats{fn("<anonymous>", 12, 5, "add", "get_loc"), fn("<anonymous>", 14, 5, "push_i32")},
			map[string][2]int{"<anonymous> (run.ts:10→12)": {10, 12}, "<anonymous> (run.ts:12→14)": {12, 14}}},
		{"unshaped, more than one of each: left apart",
			[]report.FunctionStats{fn("<anonymous>", 10, 5, "add"), fn("<anonymous>", 12, 5, "mul")},
			[]report.FunctionStats{fn("<anonymous>", 20, 5, "call1"), fn("<anonymous>", 22, 5, "push_i32")},
			map[string][2]int{"<anonymous> (run.ts:10)": {10, 0}, "<anonymous> (run.ts:12)": {12, 0}, "<anonymous> (run.ts:20)": {0, 20}, "<anonymous> (run.ts:22)": {0, 22}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			df := New(&report.Tables{Mode: jsprofile.ModeExact, Functions: tt.base}, &report.Tables{Mode: jsprofile.ModeExact, Functions: tt.new}, "b", "n")
			got := map[string][2]int{}
			for _, f := range df.Functions {
				var lines [2]int
				if f.Base != nil {
					lines[0] = f.Line
				}
				if f.New != nil {
					lines[1] = f.Line
					if f.NewLine != 0 {
						lines[1] = f.NewLine
					}
				}
				got[f.Label()] = lines
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestChanged: what changed, from the engine code and program bytecode
// both profiles record, or the engines they name when they record none.
func TestChanged(t *testing.T) {
	t.Parallel()
	a, b := strings.Repeat("1", 64), strings.Repeat("2", 64)
	side := func(code, program, family string) Side {
		return Side{Engine: jsprofile.EngineInfo{Code: code, Family: family}, Program: program}
	}
	tests := []struct {
		name      string
		base, new Side
		want      string
	}{
		{"program", side(a, a, "q"), side(a, b, "q"), ChangedProgram},
		{"engine", side(a, a, "q"), side(b, a, "q"), ChangedEngine},
		{"engine and bytecode", side(a, a, "q"), side(b, b, "q"), ChangedEngineBytecode},
		{"nothing", side(a, b, "q"), side(a, b, "q"), ChangedNothing},
		{"not recorded", side("", "", "q"), side("", "", "q"), ChangedUnknown},
		{"not recorded, engines named apart", side("", "", "q"), side("", "", "ng"), ChangedEngineBytecode},
		{"one program not recorded", side(a, "", "q"), side(a, b, "q"), ChangedUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, changed(tt.base, tt.new))
			df := &Diff{Base: tt.base, New: tt.new, Changed: tt.want}
			if tt.want == ChangedUnknown {
				assert.Empty(t, df.changedText())
			} else {
				assert.NotEmpty(t, df.changedText())
			}
		})
	}
}

// TestMatchMovedMany: a bundle's thousands of closures of one name are
// matched at their line without weighing every pair; past maxPairs, those
// that moved stay apart rather than cost pairs² work.
func TestMatchMovedMany(t *testing.T) {
	t.Parallel()
	const n = 2000 // n² pairs: 40 × maxPairs
	var base, kept, moved []report.FunctionStats
	for i := range n {
		base = append(base, fn("<anonymous>", 10+2*i, 5, "add"))
		kept = append(kept, fn("<anonymous>", 10+2*i, 6, "add"))
		moved = append(moved, fn("<anonymous>", 11+2*i, 6, "add"))
	}
	df := New(&report.Tables{Mode: jsprofile.ModeExact, Functions: base}, &report.Tables{Mode: jsprofile.ModeExact, Functions: kept}, "b", "n")
	require.Len(t, df.Functions, n, "each matched at its line")
	for _, f := range df.Functions {
		require.Empty(t, f.Only)
	}
	df = New(&report.Tables{Mode: jsprofile.ModeExact, Functions: base}, &report.Tables{Mode: jsprofile.ModeExact, Functions: moved}, "b", "n")
	assert.Len(t, df.Functions, 2*n, "moved, past maxPairs: apart")
}
