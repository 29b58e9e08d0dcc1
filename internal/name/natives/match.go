package natives

import "sort"

// span is a stretch of a run that catalogued array versions match exactly.
type span struct {
	start, n int
	versions []*catVersion
	// at[v][k] is the index, in versions[v].entries, of the catalogue
	// entry that entry start+k matched.
	at [][]int
}

// align matches version v against the entries from i on and returns the
// catalogue index each entry matched; nil when v does not match there.
// Optional entries (under a preprocessor condition) may be absent.
func align(v *catVersion, es []rawEntry, i int) []int {
	k := i
	var at []int
	for j := range v.entries {
		c := &v.entries[j]
		if k < len(es) && c.matches(&es[k]) {
			at = append(at, j)
			k++
			continue
		}
		if !c.optional {
			return nil
		}
	}
	return at
}

// spansAt returns the spans starting at entry i, one per length.
func (c *catalog) spansAt(es []rawEntry, i int) []span {
	var out []span
	add := func(v *catVersion) {
		at := align(v, es, i)
		if len(at) == 0 {
			return
		}
		for k := range out {
			if out[k].n == len(at) {
				for _, x := range out[k].versions {
					if x == v {
						return
					}
				}
				out[k].versions = append(out[k].versions, v)
				out[k].at = append(out[k].at, at)
				return
			}
		}
		out = append(out, span{start: i, n: len(at), versions: []*catVersion{v}, at: [][]int{at}})
	}
	for _, v := range c.byName[es[i].name] {
		add(v)
	}
	for _, v := range c.wild {
		add(v)
	}
	return out
}

// optimalSpans returns every span that lies on some segmentation of the
// run covering the most entries. Several segmentations may be optimal
// (the same entries read as [A B][C] or [A][B C]); keeping all of them lets
// an entry's owner count as certain only when every one agrees.
func (c *catalog) optimalSpans(es []rawEntry) []span {
	n := len(es)
	at := make([][]span, n)
	for i := range es {
		at[i] = c.spansAt(es, i)
	}
	// suf[i]: most entries of es[i:] covered; pre[i]: of es[:i].
	suf := make([]int, n+1)
	for i := n - 1; i >= 0; i-- {
		suf[i] = suf[i+1]
		for _, s := range at[i] {
			suf[i] = max(suf[i], s.n+suf[i+s.n])
		}
	}
	pre := make([]int, n+1)
	for i := 0; i < n; i++ {
		pre[i+1] = max(pre[i+1], pre[i])
		for _, s := range at[i] {
			pre[i+s.n] = max(pre[i+s.n], pre[i]+s.n)
		}
	}
	var out []span
	for i := range at {
		for _, s := range at[i] {
			if pre[i]+s.n+suf[i+s.n] == suf[0] {
				out = append(out, s)
			}
		}
	}
	return out
}

// epoch is the engine the catalogued versions say the module embeds: for
// the family most spans agree with (both, when they agree equally), the
// commit dates at which the most spans have a version.
type epoch struct {
	dates map[string][]string // family → sorted dates
	score int
}

// family returns the epoch's family, "" when none or both.
func (e *epoch) family() string {
	if len(e.dates) != 1 {
		return ""
	}
	for f := range e.dates {
		return f
	}
	return ""
}

// alive reports whether v existed in an epoch family at one of its dates.
func (e *epoch) alive(v *catVersion) bool {
	ds := e.dates[v.array.family]
	i := sort.SearchStrings(ds, v.first)
	return i < len(ds) && ds[i] <= v.last
}

// inferEpoch finds the family and dates most spans agree with. family
// restricts the choice when the dispatch analysis identified it. A span
// counts once at a date when any of its versions existed then: the date
// scores are summed over each span's merged version intervals, so the
// work follows the number of versions matched, not spans × dates.
func inferEpoch(spans []span, family string) epoch {
	fams := []string{"quickjs", "quickjs-ng"}
	if family == "quickjs" || family == "quickjs-ng" {
		fams = []string{family}
	}
	best := epoch{dates: map[string][]string{}}
	for _, f := range fams {
		set := map[string]bool{}
		for _, s := range spans {
			for _, v := range s.versions {
				if v.array.family == f {
					set[v.first], set[v.last] = true, true
				}
			}
		}
		ds := sortedKeys(set)
		if len(ds) == 0 {
			continue
		}
		diff := make([]int, len(ds)+1)
		type iv struct{ lo, hi int }
		var ivs []iv
		for _, s := range spans {
			ivs = ivs[:0]
			for _, v := range s.versions {
				if v.array.family == f {
					ivs = append(ivs, iv{sort.SearchStrings(ds, v.first), sort.SearchStrings(ds, v.last)})
				}
			}
			sort.Slice(ivs, func(a, b int) bool { return ivs[a].lo < ivs[b].lo })
			for k := 0; k < len(ivs); {
				lo, hi := ivs[k].lo, ivs[k].hi
				for k++; k < len(ivs) && ivs[k].lo <= hi+1; k++ {
					hi = max(hi, ivs[k].hi)
				}
				diff[lo]++
				diff[hi+1]--
			}
		}
		top, run := 0, 0
		scores := make([]int, len(ds))
		for i := range ds {
			run += diff[i]
			scores[i] = run
			top = max(top, run)
		}
		if top == 0 || top < best.score {
			continue
		}
		if top > best.score {
			best = epoch{dates: map[string][]string{}, score: top}
		}
		for i, d := range ds {
			if scores[i] == top {
				best.dates[f] = append(best.dates[f], d)
			}
		}
	}
	return best
}

// narrow keeps the versions of a span that the epoch says the engine has,
// when there are any: two arrays of one shape (Boolean.prototype and an
// early BigDecimal.prototype, both {toString, valueOf}) are told apart by
// which of them existed when the rest of the engine did.
func (e *epoch) narrow(s span) span {
	var keep span
	keep.start, keep.n = s.start, s.n
	for i, v := range s.versions {
		if e.alive(v) {
			keep.versions = append(keep.versions, v)
			keep.at = append(keep.at, s.at[i])
		}
	}
	if len(keep.versions) == 0 {
		return s
	}
	return keep
}
