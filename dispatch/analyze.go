package dispatch

import (
	"context"
	"errors"
	"fmt"
	"sort"

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
func Analyze(ctx context.Context, m *wasmcore.Module) (*Report, error) {
	if m == nil {
		return nil, errors.New("dispatch: Analyze: nil module")
	}
	cat, err := loadCatalog()
	if err != nil {
		return nil, err
	}
	an := &analyzer{ctx: ctx, m: m, cat: cat, nImports: m.NumImportedFuncs()}
	return an.run()
}

type analyzer struct {
	ctx      context.Context
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
	an.fp = an.cat.matchFingerprint(&an.img)
	dwarfNames, dwErr := dwarfOpcodeNames(m)
	if dwErr != nil {
		an.warnings = append(an.warnings, dwErr.Error())
	}
	rep.Engine = an.identifyEngine(dwarfNames)
	if err := an.ctx.Err(); err != nil {
		return nil, fmt.Errorf("dispatch: analysis cancelled: %w", err)
	}

	// Candidate search.
	scans, err := an.scanFunctions()
	if err != nil {
		return nil, err
	}
	var cands []Candidate
	var others []Candidate
	for _, s := range scans {
		if err := an.ctx.Err(); err != nil {
			return nil, fmt.Errorf("dispatch: analysis cancelled: %w", err)
		}
		fa, err := analyzeFunction(m, s.index)
		if err != nil {
			an.warnings = append(an.warnings, err.Error())
			continue
		}
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
	for i := range m.Functions {
		if i%256 == 0 {
			if err := an.ctx.Err(); err != nil {
				return nil, fmt.Errorf("dispatch: analysis cancelled: %w", err)
			}
		}
		f := &m.Functions[i]
		idx := an.nImports + uint32(i)
		sizes[i] = sz{idx, len(f.Body)}
		maxE, byteLoads := 0, 0
		var maxOff uint32
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
