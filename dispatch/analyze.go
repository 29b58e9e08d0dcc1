package dispatch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/jsprof/jsprof/wasmcore"
)

// minEntries is the fewest br_table entries (default excluded) considered:
// a bytecode interpreter has more opcodes than that.
const minEntries = 16

// Thresholds of the choice (see docs/analyze.md).
const (
	minConfidence = 0.5  // a dispatch needs at least this confidence
	minMargin     = 0.15 // over the best candidate in another function
)

// maxOtherCandidates bounds the candidates listed whose selector does not
// come from a byte load (the largest are listed, to show why they lost).
const maxOtherCandidates = 5

// Analyze looks for a QuickJS-style interpreter in m: its dispatch
// br_table, how opcode bytes reach it, the engine release, and the module's
// Javy shape. A module without an interpreter is not an error: the report's
// Dispatch is nil and Reason says why.
//
// The analysis takes a budget of steps linear in the module's size (see
// budget.go and docs/analyze.md) and stops promptly, with an error
// wrapping ctx.Err(), once ctx is done.
func Analyze(ctx context.Context, m *wasmcore.Module) (*Report, error) {
	rep, _, err := analyze(ctx, m, nil)
	return rep, err
}

// analysisStats is what an analysis cost, for tests and benchmarks.
type analysisStats struct {
	steps     int64    // steps of the whole analysis
	phases    [2]int64 // of them, interpreting and tracing
	maxSteps  int64    // most steps taken by one function
	maxShare  float64  // largest share of its budget a function took
	functions int      // functions interpreted
	exhausted []uint32 // functions whose budget ran out
}

// analyze is Analyze with its cost; onCheck, if not nil, is called at every
// look at the context with the steps taken so far.
func analyze(ctx context.Context, m *wasmcore.Module, onCheck func(steps int64)) (*Report, analysisStats, error) {
	if m == nil {
		return nil, analysisStats{}, errors.New("dispatch: Analyze: nil module")
	}
	cat, err := loadCatalog()
	if err != nil {
		return nil, analysisStats{}, err
	}
	code := 0
	for _, f := range m.Functions {
		code += len(f.Body)
	}
	an := &analyzer{m: m, cat: cat, nImports: m.NumImportedFuncs(), meter: newMeter(ctx, code, onCheck)}
	rep, err := an.run()
	an.stats.steps, an.stats.phases = an.meter.steps, an.meter.phase
	return rep, an.stats, err
}

type analyzer struct {
	m        *wasmcore.Module
	cat      *catalog
	nImports uint32
	img      memImage
	fp       *fpMatch
	rep      *Report
	sizeRank map[uint32]int // function index -> rank by body size (1 = largest)
	warnings []string
	// noByteLoad lists the functions with large br_tables but no byte load
	// at all, which are not analysed further.
	noByteLoad []funcScan
	meter      *meter
	async      asyncifyState
	stats      analysisStats
}

type funcScan struct {
	index      uint32
	maxEntries int
	maxOffset  uint32 // file offset of the largest br_table
}

func (an *analyzer) run() (*Report, error) {
	m := an.m
	rep := &Report{Candidates: []Candidate{}}
	an.rep = rep
	rep.Module = Module{Functions: len(m.Functions), ImportedFunctions: int(an.nImports), DataSegments: len(m.Data), NameSection: m.Names != nil}
	for _, f := range m.Functions {
		rep.Module.CodeBytes += len(f.Body)
	}
	rep.Module.DWARF = hasDWARF(m)

	// Engine fingerprint.
	an.img = newMemImage(m.Data)
	an.fp = an.cat.matchFingerprint(&an.img, an.meter)
	dwarfNames, dwErr := dwarfOpcodeNames(m)
	if dwErr != nil {
		an.warnings = append(an.warnings, dwErr.Error())
	}
	rep.Engine = an.identifyEngine(dwarfNames)
	if !an.meter.check() {
		return nil, an.meter.cancelled()
	}

	// Candidate search.
	scans, err := an.scanFunctions()
	if err != nil {
		return nil, err
	}
	var cands []Candidate
	var others []Candidate
	for _, s := range scans {
		if !an.meter.check() {
			return nil, an.meter.cancelled()
		}
		fa, err := analyzeFunction(m, s.index, an.meter, an.async)
		if cerr := an.meter.cancelled(); cerr != nil {
			return nil, cerr
		}
		if err != nil {
			an.warnings = append(an.warnings, err.Error())
			continue
		}
		an.stats.functions++
		for i := range fa.brTables {
			bt := &fa.brTables[i]
			if len(bt.labels)-1 < minEntries {
				continue
			}
			c := an.evaluate(fa, bt)
			if c.Selector == "other" {
				others = append(others, c)
			} else {
				cands = append(cands, c)
			}
		}
		if err := an.meter.cancelled(); err != nil {
			return nil, err
		}
		an.account(fa)
	}
	for _, s := range an.noByteLoad {
		name := m.FuncName(s.index)
		others = append(others, Candidate{FunctionIndex: s.index, FunctionName: name, BrTableOffset: s.maxOffset, Entries: s.maxEntries,
			Selector: "other", PCStrides: []int64{}, FunctionSize: len(m.Function(s.index).Body), SizeRank: an.sizeRank[s.index],
			Evidence: []string{"the function loads no byte at all, so no selector of it derives from one"}})
	}
	sortCandidates(cands)
	sort.SliceStable(others, func(a, b int) bool { return others[a].Entries > others[b].Entries })
	an.choose(cands, others)
	if err := an.meter.cancelled(); err != nil {
		return nil, err
	}
	if rep.Dispatch != nil {
		// Building the dispatch traced the chosen function further.
		for _, c := range cands {
			if c.FunctionIndex == rep.Dispatch.FunctionIndex {
				an.account(c.fn)
				break
			}
		}
	}
	an.explainBudget()
	an.detectJavy()
	if len(an.warnings) > 0 {
		rep.Engine.Evidence = append(rep.Engine.Evidence, an.warnings...)
	}
	return rep, nil
}

func sortCandidates(cs []Candidate) {
	sort.SliceStable(cs, func(a, b int) bool {
		if cs[a].score != cs[b].score {
			return cs[a].score > cs[b].score
		}
		if cs[a].Entries != cs[b].Entries {
			return cs[a].Entries > cs[b].Entries
		}
		return cs[a].BrTableOffset < cs[b].BrTableOffset
	})
}

// account records the budget a function used (once exhausted, always so).
func (an *analyzer) account(fa *funcAnalysis) {
	an.stats.maxSteps = max(an.stats.maxSteps, fa.steps)
	an.stats.maxShare = max(an.stats.maxShare, fa.budgetShare())
	if fa.exhausted && !slices.Contains(an.stats.exhausted, fa.index) {
		an.stats.exhausted = append(an.stats.exhausted, fa.index)
	}
}

// explainBudget tells, in the reason, which functions ran out of budget:
// their candidates may lack evidence, or be missing.
func (an *analyzer) explainBudget() {
	ex := an.stats.exhausted
	if len(ex) == 0 {
		return
	}
	const show = 5
	list := make([]string, 0, show)
	for _, f := range ex[:min(len(ex), show)] {
		list = append(list, fmt.Sprint(f))
	}
	more := ""
	if len(ex) > show {
		more = fmt.Sprintf(" and %d more", len(ex)-show)
	}
	an.rep.Reason += fmt.Sprintf("; the analysis budget (%d steps per byte of a function, %d per byte of the module) ran out in function %s%s: what follows in them was read as unknown, so their evidence may be incomplete",
		stepsPerByte, moduleStepsPerByte, strings.Join(list, ", "), more)
}

// scanFunctions finds the functions with a br_table of at least minEntries
// entries and ranks every function by size.
func (an *analyzer) scanFunctions() ([]funcScan, error) {
	m := an.m
	type sz struct {
		idx  uint32
		size int
	}
	sizes := make([]sz, len(m.Functions))
	var out []funcScan
	var async asyncifyScan
	var first []wasmcore.Instr
	scanned := 0
	for i := range m.Functions {
		f := &m.Functions[i]
		// A look at the context every 64 KiB of code or 256 functions.
		if scanned += len(f.Body); scanned >= 1<<16 || i%256 == 0 {
			scanned = 0
			if !an.meter.check() {
				return nil, an.meter.cancelled()
			}
		}
		idx := an.nImports + uint32(i)
		sizes[i] = sz{idx, len(f.Body)}
		maxE, byteLoads := 0, 0
		var maxOff uint32
		first = first[:0]
		ir := wasmcore.NewInstrReader(f.Body)
		for {
			in, ok, err := ir.Next()
			if err != nil {
				an.warnings = append(an.warnings, fmt.Sprintf("function %d: %v", idx, err))
				break
			}
			if !ok {
				break
			}
			if len(first) < 4 {
				first = append(first, in)
				if len(first) == 4 {
					async.observe(first)
				}
			}
			switch in.Op {
			case wasmcore.OpBrTable:
				if len(in.Labels)-1 > maxE {
					maxE, maxOff = len(in.Labels)-1, f.BodyOffset+in.Offset
				}
			case wasmcore.OpI32Load8U, wasmcore.OpI32Load8S, wasmcore.OpI64Load8U, wasmcore.OpI64Load8S:
				byteLoads++
			}
		}
		switch {
		case maxE >= minEntries && byteLoads > 0:
			out = append(out, funcScan{idx, maxE, maxOff})
		case maxE >= minEntries:
			// No selector of this function can come from a byte load.
			an.noByteLoad = append(an.noByteLoad, funcScan{idx, maxE, maxOff})
		}
	}
	an.async = async.result(m)
	sort.SliceStable(sizes, func(a, b int) bool { return sizes[a].size > sizes[b].size })
	an.sizeRank = make(map[uint32]int, len(out))
	want := map[uint32]bool{}
	for _, s := range out {
		want[s.index] = true
	}
	for _, s := range an.noByteLoad {
		want[s.index] = true
	}
	for r, s := range sizes {
		if want[s.idx] {
			an.sizeRank[s.idx] = r + 1
		}
	}
	return out, nil
}
