package dispatch

import (
	"debug/dwarf"
	"slices"

	"fmt"
	"sort"
	"strings"

	"github.com/go-delve/delve/pkg/dwarf/godwarf"

	"github.com/jsprof/jsprof/wasmcore"
)

func customSection(m *wasmcore.Module, name string) []byte {
	for _, c := range m.Customs {
		if c.Name == name {
			return c.Data
		}
	}
	return nil
}

func hasDWARF(m *wasmcore.Module) bool {
	return customSection(m, ".debug_info") != nil
}

// dwarfOpcodeNames returns the regular opcodes of the OPCodeEnum
// enumeration in the module's DWARF (value = index), nil when there is none.
// The enumeration's type is read with delve's godwarf, which decodes C
// types from DWARF (enumerators with their values, here).
func dwarfOpcodeNames(m *wasmcore.Module) (names []string, err error) {
	d, err := m.DWARF()
	if d == nil || err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			names, err = nil, fmt.Errorf("dispatch: DWARF .debug_info: malformed (%v)", r)
		}
	}()
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			return nil, fmt.Errorf("dispatch: DWARF .debug_info: %w", err)
		}
		if e == nil {
			return nil, nil
		}
		if e.Tag == dwarf.TagCompileUnit || e.Tag == 0 {
			continue
		}
		if e.Tag == dwarf.TagEnumerationType && e.Children {
			if n, _ := e.Val(dwarf.AttrName).(string); n == "OPCodeEnum" {
				t, err := godwarf.ReadType(d, 0, e.Offset, map[dwarf.Offset]godwarf.Type{})
				if err != nil {
					return nil, fmt.Errorf("dispatch: DWARF OPCodeEnum at %#x: %w", e.Offset, err)
				}
				enum, ok := t.(*godwarf.EnumType)
				if !ok {
					return nil, fmt.Errorf("dispatch: DWARF OPCodeEnum at %#x is a %T, not an enumeration", e.Offset, t)
				}
				return enumOpcodeNames(enum.Val), nil
			}
		}
		if e.Children {
			r.SkipChildren()
		}
	}
}

// enumOpcodeNames orders the regular opcodes of OPCodeEnum by value: those
// declared before OP_COUNT (the temporary opcodes follow it).
func enumOpcodeNames(vals []*godwarf.EnumValue) []string {
	byVal := map[int64]string{}
	count := int64(-1)
	for _, v := range vals {
		if v.Name == "OP_COUNT" {
			count = v.Val
			break
		}
		if _, dup := byVal[v.Val]; !dup {
			byVal[v.Val] = strings.TrimPrefix(v.Name, "OP_")
		}
	}
	if count <= 0 || count > 1024 {
		return nil
	}
	names := make([]string, count)
	for v, n := range byVal {
		if v >= 0 && v < count {
			names[v] = n
		}
	}
	return names
}

// identifyEngine combines the opcode_info fingerprint, DWARF and the name
// section.
func (an *analyzer) identifyEngine(dwarfNames []string) Engine {
	e := Engine{Family: FamilyUnknown, Releases: []string{}, Tables: []TableRef{}, Match: MatchNone,
		OpcodeNamesSource: NamesNone, OpcodeNames: []string{}, UncertainOpcodes: []UncertainOpcode{}, Evidence: []string{}}
	ev := func(format string, args ...any) { e.Evidence = append(e.Evidence, fmt.Sprintf(format, args...)) }
	if an.m.Names != nil {
		var idx []uint32
		for i, n := range an.m.Names.Funcs {
			if n == jsCallInternal {
				idx = append(idx, i)
			}
		}
		if len(idx) > 0 {
			sort.Slice(idx, func(a, b int) bool { return idx[a] < idx[b] })
			e.JSCallInternal = &idx[0]
			ev("the name section names function %d %s", idx[0], jsCallInternal)
		}
	}
	if fp := an.fp; fp != nil {
		var variants []*tableVariant
		for _, g := range fp.groups {
			variants = append(variants, g.variants...)
		}
		e.Tables, e.Releases, e.Family = tableRefs(variants)
		e.OpcodeInfo = &OpcodeInfo{Address: fp.run.addr + uint64(fp.aln.runFirst*fp.run.stride), Stride: fp.run.stride,
			Records: fp.aln.runLast - fp.aln.runFirst + 1}
		e.OpcodeCount = len(fp.opNames)
		e.OpcodeNames = fp.opNames
		e.UncertainOpcodes = append(e.UncertainOpcodes, fp.uncertain...)
		e.Similarity = round3(fp.similarity)
		if fp.exact {
			e.Match = MatchExact
			e.OpcodeNamesSource = NamesTable
			ev("opcode_info[] at %#x (%d records, stride %d) equals table %s", e.OpcodeInfo.Address, e.OpcodeInfo.Records, e.OpcodeInfo.Stride, joinIDs(variants))
		} else {
			e.Match = MatchAligned
			e.OpcodeNamesSource = NamesAligned
			ev("opcode_info[] at %#x (%d records, stride %d) is nearest to table %s: %d records match, %d differ, %d extra, %d missing",
				e.OpcodeInfo.Address, e.OpcodeInfo.Records, e.OpcodeInfo.Stride, joinIDs(variants),
				fp.aln.matches, fp.aln.mismatches, fp.aln.inserted, fp.aln.missing)
		}
		if fp.binaryNames {
			e.OpcodeNamesSource = NamesBinary
			ev("opcode names read through the name pointers of opcode_info[]")
		}
		for _, n := range fp.notes {
			ev("%s", n)
		}
	}
	if dwarfNames != nil {
		ev("DWARF has OPCodeEnum with %d opcodes", len(dwarfNames))
		if e.Match == MatchNone {
			var variants []*tableVariant
			for _, v := range an.cat.variants {
				if slices.Equal(v.opNames, dwarfNames) {
					variants = append(variants, v)
				}
			}
			e.Match = MatchDWARF
			e.OpcodeCount = len(dwarfNames)
			if len(variants) > 0 {
				e.Tables, e.Releases, e.Family = tableRefs(variants)
				ev("its opcode names equal table %s", joinIDs(variants))
			}
		} else if !slices.Equal(e.OpcodeNames, dwarfNames) {
			ev("DWARF OPCodeEnum names differ from the opcode_info[] match; using DWARF's")
			e.UncertainOpcodes = e.UncertainOpcodes[:0]
			e.OpcodeCount = len(dwarfNames)
		}
		e.OpcodeNames = dwarfNames
		e.OpcodeNamesSource = NamesDWARF
	}
	if e.Match == MatchNone && e.JSCallInternal != nil {
		e.Match = MatchNames
		ev("no opcode table identifies the release")
	}
	if e.Match == MatchNone {
		ev("no opcode_info[] of a known QuickJS table in the data segments, no DWARF OPCodeEnum, no %s in a name section", jsCallInternal)
	}
	return e
}

func round3(x float64) float64 { return float64(int(x*1000+0.5)) / 1000 }

func joinIDs(vs []*tableVariant) string {
	var ids []string
	for _, v := range vs {
		ids = append(ids, v.ID())
	}
	return strings.Join(ids, " = ")
}

// tableRefs lists the variants' tables, the union of their releases (in
// catalog order) and their family (unknown when they disagree).
func tableRefs(vs []*tableVariant) ([]TableRef, []string, string) {
	refs := []TableRef{}
	releases := []string{}
	seenRel := map[string]bool{}
	fams := map[string]bool{}
	for _, v := range vs {
		t := v.table
		refs = append(refs, TableRef{ID: v.ID(), Engine: t.Engine, FirstDate: t.FirstDate, FirstCommit: t.FirstCommit,
			ShippedIn: t.ShippedIn, OpCount: len(v.opNames)})
		for _, r := range t.ShippedIn {
			if !seenRel[r] {
				seenRel[r] = true
				releases = append(releases, r)
			}
		}
		fams[family(t.Engine)] = true
	}
	sort.Slice(releases, func(a, b int) bool { return releaseLess(releases[a], releases[b]) })
	fam := FamilyUnknown
	if len(fams) == 1 {
		for f := range fams {
			fam = f
		}
	}
	return refs, releases, fam
}

// releaseLess orders "release 2024-01-13" by date and "v0.10.0" by version.
func releaseLess(a, b string) bool {
	va, oka := parseVersion(a)
	vb, okb := parseVersion(b)
	if oka && okb {
		for i := range va {
			if va[i] != vb[i] {
				return va[i] < vb[i]
			}
		}
		return false
	}
	return a < b
}

func parseVersion(s string) ([3]int, bool) {
	var v [3]int
	if !strings.HasPrefix(s, "v") {
		return v, false
	}
	n, err := fmt.Sscanf(s, "v%d.%d.%d", &v[0], &v[1], &v[2])
	return v, err == nil && n == 3
}
