package dispatch

import (
	"encoding/binary"
	"fmt"
	"sort"
)

// An infoRun is a maximal sequence of plausible opcode_info[] records in the
// memory image: 4-byte records (size, n_pop, n_push, fmt) back to back, or
// 8-byte records whose second word is such a record (a name pointer first,
// as in builds with bytecode dumps compiled in).
type infoRun struct {
	addr   uint64 // address of the first record (of its name pointer, stride 8)
	stride int
	packed []uint32
}

// recordAt returns the address of record i's 4 record bytes.
func (r *infoRun) recordAt(i int) uint64 {
	return r.addr + uint64(i*r.stride+r.stride-4)
}

// minRunRecords is the shortest run worth aligning: every known table has
// more than 250 records, and a match needs most of them.
const minRunRecords = 200

// maxRunRecords bounds the runs aligned (longer ones are not tables).
const maxRunRecords = 4096

func (c *catalog) plausible(p uint32) bool {
	size, pop, push, f := uint8(p), uint8(p>>8), uint8(p>>16), uint8(p>>24)
	return size >= 1 && size <= c.maxSize+4 && pop <= c.maxPop+2 && push <= c.maxPush+2 && f <= c.maxFmt+2
}

// findInfoRuns scans the image for runs of plausible records.
func (c *catalog) findInfoRuns(img *memImage) []infoRun {
	var runs []infoRun
	type span struct{ lo, hi uint64 }
	var spans4 []span
	for _, stride := range []int{4, 8} {
		for _, ch := range img.Chunks {
			data := ch.Data
			for phase := 0; phase < stride; phase++ {
				start, n := -1, 0
				flush := func(end int) {
					if n >= minRunRecords && n <= maxRunRecords {
						lo := ch.Base + uint64(start)
						hi := ch.Base + uint64(end)
						covered := false
						if stride == 8 {
							for _, s := range spans4 {
								if s.lo <= lo+4 && hi <= s.hi+4 {
									covered = true
								}
							}
						}
						if !covered {
							r := infoRun{addr: lo, stride: stride, packed: make([]uint32, n)}
							for i := range n {
								p := start + i*stride + stride - 4
								r.packed[i] = binary.LittleEndian.Uint32(data[p:])
							}
							runs = append(runs, r)
							if stride == 4 {
								spans4 = append(spans4, span{lo, hi})
							}
						}
					}
					start, n = -1, 0
				}
				pos := phase
				for ; pos+stride <= len(data); pos += stride {
					p := binary.LittleEndian.Uint32(data[pos+stride-4:])
					if c.plausible(p) {
						if start < 0 {
							start = pos
						}
						n++
					} else if start >= 0 {
						flush(pos)
					}
				}
				if start >= 0 {
					flush(pos)
				}
			}
		}
	}
	return runs
}

// Alignment of a run (the binary's records) with a table: global in the
// table, free at both ends of the run.
type alignKind byte

const (
	alignMatch    alignKind = 'M' // same record
	alignMismatch alignKind = 'X' // both present, records differ
	alignInserted alignKind = 'I' // record of the binary absent from the table
	alignMissing  alignKind = 'D' // record of the table absent from the binary
)

type alignStep struct {
	kind   alignKind
	ri, ti int // -1 when absent
}

type alignment struct {
	score                                  int
	matches, mismatches, inserted, missing int
	steps                                  []alignStep
	runFirst, runLast                      int // aligned span of the run
}

const (
	scoreMatch    = 1
	scoreMismatch = -1
	scoreGap      = -1
)

// alignScore returns the best score only, in O(len(tab)) memory.
func alignScore(run, tab []uint32) int {
	n := len(run)
	prev := make([]int32, n+1)
	cur := make([]int32, n+1)
	for j := 1; j <= len(tab); j++ {
		cur[0] = int32(j * scoreGap)
		t := tab[j-1]
		for i := 1; i <= n; i++ {
			d := prev[i-1] + scoreMismatch
			if run[i-1] == t {
				d = prev[i-1] + scoreMatch
			}
			if v := prev[i] + scoreGap; v > d {
				d = v
			}
			if v := cur[i-1] + scoreGap; v > d {
				d = v
			}
			cur[i] = d
		}
		prev, cur = cur, prev
	}
	best := prev[0]
	for _, v := range prev {
		best = max(best, v)
	}
	return int(best)
}

// alignTrace computes the full alignment.
func alignTrace(run, tab []uint32) alignment {
	n, m := len(run), len(tab)
	w := n + 1
	S := make([]int32, (m+1)*w)
	for j := 1; j <= m; j++ {
		S[j*w] = int32(j * scoreGap)
		t := tab[j-1]
		for i := 1; i <= n; i++ {
			d := S[(j-1)*w+i-1] + scoreMismatch
			if run[i-1] == t {
				d = S[(j-1)*w+i-1] + scoreMatch
			}
			if v := S[(j-1)*w+i] + scoreGap; v > d {
				d = v
			}
			if v := S[j*w+i-1] + scoreGap; v > d {
				d = v
			}
			S[j*w+i] = d
		}
	}
	bi := 0
	for i := 0; i <= n; i++ {
		if S[m*w+i] > S[m*w+bi] {
			bi = i
		}
	}
	a := alignment{score: int(S[m*w+bi])}
	i, j := bi, m
	for j > 0 {
		cell := S[j*w+i]
		switch {
		case i > 0 && run[i-1] == tab[j-1] && cell == S[(j-1)*w+i-1]+scoreMatch:
			a.steps = append(a.steps, alignStep{alignMatch, i - 1, j - 1})
			a.matches++
			i--
			j--
		case i > 0 && run[i-1] != tab[j-1] && cell == S[(j-1)*w+i-1]+scoreMismatch:
			a.steps = append(a.steps, alignStep{alignMismatch, i - 1, j - 1})
			a.mismatches++
			i--
			j--
		case cell == S[(j-1)*w+i]+scoreGap:
			a.steps = append(a.steps, alignStep{alignMissing, -1, j - 1})
			a.missing++
			j--
		default:
			a.steps = append(a.steps, alignStep{alignInserted, i - 1, -1})
			a.inserted++
			i--
		}
	}
	for l, r := 0, len(a.steps)-1; l < r; l, r = l+1, r-1 {
		a.steps[l], a.steps[r] = a.steps[r], a.steps[l]
	}
	// Trim inserted steps at the ends (free end gaps never produce them,
	// but keep the span tight).
	a.runFirst, a.runLast = -1, -1
	for _, s := range a.steps {
		if s.ri >= 0 && s.kind != alignInserted {
			if a.runFirst < 0 {
				a.runFirst = s.ri
			}
			a.runLast = s.ri
		}
	}
	return a
}

// indexExact returns where tab occurs in run, or -1.
func indexExact(run, tab []uint32) int {
	if len(tab) == 0 || len(tab) > len(run) {
		return -1
	}
outer:
	for s := 0; s+len(tab) <= len(run); s++ {
		for k, t := range tab {
			if run[s+k] != t {
				continue outer
			}
		}
		return s
	}
	return -1
}

// fpMatch is the best correspondence between a run and the catalog.
type fpMatch struct {
	run        infoRun
	groups     []*fpGroup // equally good groups, best first
	exact      bool
	aln        alignment // against groups[0]
	similarity float64   // matched records / records of the table

	opNames     []string // regular opcode value -> name ("" unknown)
	uncertain   []UncertainOpcode
	binaryNames bool // names read through the records' name pointers
	notes       []string
}

// minSimilarity is the share of a table's records a run must match for the
// engine to be identified by alignment.
const minSimilarity = 0.9

// matchFingerprint finds the opcode_info[] table of the image, if any. It
// gives up, returning nil, once mt (nil: never) sees its context done.
func (c *catalog) matchFingerprint(img *memImage, mt *meter) *fpMatch {
	runs := c.findInfoRuns(img)
	var best *fpMatch
	bestScore := 0
	for ri := range runs {
		// Each run costs up to an alignment with every table.
		if mt != nil && !mt.check() {
			return nil
		}
		run := &runs[ri]
		// Exact occurrences first.
		var exact []*fpGroup
		for _, g := range c.groups {
			if indexExact(run.packed, g.packed) < 0 {
				continue
			}
			switch {
			case len(exact) == 0 || len(g.packed) > len(exact[0].packed):
				exact = []*fpGroup{g}
			case len(g.packed) == len(exact[0].packed):
				exact = append(exact, g)
			}
		}
		if len(exact) > 0 {
			score := len(exact[0].packed)
			if best == nil || !best.exact || score > bestScore {
				best = &fpMatch{run: *run, groups: exact, exact: true, similarity: 1}
				bestScore = score
			}
			continue
		}
		if best != nil && best.exact {
			continue
		}
		// Alignment with every group whose records the run mostly shares.
		have := map[uint32]int{}
		for _, p := range run.packed {
			have[p]++
		}
		type scored struct {
			g     *fpGroup
			score int
		}
		var sc []scored
		for _, g := range c.groups {
			if !sharesRecords(have, g.packed) {
				continue
			}
			sc = append(sc, scored{g, alignScore(run.packed, g.packed)})
		}
		sort.SliceStable(sc, func(a, b int) bool { return sc[a].score > sc[b].score })
		if len(sc) == 0 || sc[0].score <= bestScore {
			continue
		}
		m := &fpMatch{run: *run}
		for _, s := range sc {
			if s.score == sc[0].score {
				m.groups = append(m.groups, s.g)
			}
		}
		m.aln = alignTrace(run.packed, m.groups[0].packed)
		m.similarity = float64(m.aln.matches) / float64(len(m.groups[0].packed))
		if m.similarity < minSimilarity {
			continue
		}
		best, bestScore = m, sc[0].score
	}
	if best == nil {
		return nil
	}
	if best.exact {
		at := indexExact(best.run.packed, best.groups[0].packed)
		a := alignment{score: len(best.groups[0].packed), matches: len(best.groups[0].packed), runFirst: at, runLast: at + len(best.groups[0].packed) - 1}
		for k := range best.groups[0].packed {
			a.steps = append(a.steps, alignStep{alignMatch, at + k, k})
		}
		best.aln = a
	}
	sortGroups(best.groups)
	c.nameOpcodes(img, best)
	return best
}

// sharesRecords is a cheap filter: most of the table's record values occur
// in the run.
func sharesRecords(have map[uint32]int, tab []uint32) bool {
	n := 0
	for _, p := range tab {
		if have[p] > 0 {
			n++
		}
	}
	return float64(n) >= minSimilarity*float64(len(tab))
}

// sortGroups puts groups with releases first, then newer tables first.
func sortGroups(gs []*fpGroup) {
	key := func(g *fpGroup) (bool, string) {
		shipped := false
		date := ""
		for _, v := range g.variants {
			shipped = shipped || len(v.table.ShippedIn) > 0
			date = max(date, v.table.FirstDate)
		}
		return shipped, date
	}
	sort.SliceStable(gs, func(a, b int) bool {
		sa, da := key(gs[a])
		sb, db := key(gs[b])
		if sa != sb {
			return sa
		}
		return da > db
	})
}

// nameOpcodes derives the regular opcodes of the binary from the alignment:
// which records are temporary opcodes, the name of each opcode value, and
// which names are uncertain.
func (c *catalog) nameOpcodes(img *memImage, m *fpMatch) {
	g := m.groups[0]
	v0 := g.variants[0]
	a := m.aln
	// Temporary block of the run, as aligned.
	tFirst, tLast := -1, -1
	for _, s := range a.steps {
		if s.ti >= 0 && s.ri >= 0 && v0.records[s.ti].temp {
			if tFirst < 0 {
				tFirst = s.ri
			}
			tLast = s.ri
		}
	}
	var binNames []string
	if m.run.stride == 8 {
		binNames = readNamePointers(img, &m.run)
		m.binaryNames = binNames != nil
	}
	for _, s := range a.steps {
		if s.ri < 0 {
			name := v0.records[s.ti].name
			kind := "opcode"
			if v0.records[s.ti].temp {
				kind = "temporary opcode"
			}
			m.notes = append(m.notes, fmt.Sprintf("%s %s of table %s has no record in the binary", kind, name, v0.ID()))
			continue
		}
		if s.ri < a.runFirst || s.ri > a.runLast {
			continue
		}
		var temp bool
		name := ""
		reason := ""
		switch s.kind {
		case alignMatch:
			temp = v0.records[s.ti].temp
			name = v0.records[s.ti].name
		case alignMismatch:
			temp = v0.records[s.ti].temp
			name = v0.records[s.ti].name
			reason = fmt.Sprintf("record %s differs from table %s's %s", recordString(m.run.packed[s.ri]), v0.ID(), recordString(v0.packed[s.ti]))
		case alignInserted:
			temp = tFirst >= 0 && s.ri > tFirst && s.ri < tLast
			if !temp && tLast >= 0 && (s.ri == tLast+1 || s.ri == tFirst-1) {
				nb := tLast
				if s.ri == tFirst-1 {
					nb = tFirst
				}
				temp = m.run.packed[s.ri] == m.run.packed[nb]
			}
			reason = fmt.Sprintf("record %s at %#x is not in table %s", recordString(m.run.packed[s.ri]), m.run.recordAt(s.ri), v0.ID())
		}
		if binNames != nil && binNames[s.ri] != "" {
			if name != "" && name != binNames[s.ri] && reason == "" {
				m.notes = append(m.notes, fmt.Sprintf("binary names %s where table %s has %s", binNames[s.ri], v0.ID(), name))
			}
			name = binNames[s.ri]
			reason = ""
		}
		if temp {
			if s.kind == alignInserted {
				m.notes = append(m.notes, "extra temporary (compiler-only) opcode: "+reason)
			}
			continue
		}
		op := len(m.opNames)
		if reason == "" && len(m.groups) > 1 {
			// Tied tables may name this opcode differently.
			alts := map[string]bool{name: true}
			for _, og := range m.groups[1:] {
				for _, ov := range og.variants {
					if op < len(ov.opNames) {
						alts[ov.opNames[op]] = true
					}
				}
			}
			if len(alts) > 1 {
				var names []string
				for n := range alts {
					names = append(names, n)
				}
				sort.Strings(names)
				reason = fmt.Sprintf("equally matching tables name it %v", names)
			}
		}
		m.opNames = append(m.opNames, name)
		if reason != "" {
			m.uncertain = append(m.uncertain, UncertainOpcode{Opcode: op, Name: name, Reason: reason})
		}
	}
}

// readNamePointers reads the name of every record of a stride-8 run; nil
// unless nearly all are identifiers.
func readNamePointers(img *memImage, r *infoRun) []string {
	names := make([]string, len(r.packed))
	good := 0
	for i := range r.packed {
		p, _ := img.readUint(r.addr+uint64(i*r.stride), 4)
		s, ok := img.cstring(p, 64)
		if ok && isIdent(s) {
			names[i] = s
			good++
		}
	}
	if good*100 < len(r.packed)*95 {
		return nil
	}
	return names
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func recordString(p uint32) string {
	return fmt.Sprintf("{size %d, n_pop %d, n_push %d, fmt %d}", uint8(p), uint8(p>>8), uint8(p>>16), uint8(p>>24))
}
