package bytecode

import (
	"fmt"
	"github.com/jsprof/jsprof/dispatch"
	"slices"
	"strings"
)

// Release is the registry's record of one engine release, or run of
// releases and commits, that writes one serialization layout: everything
// jsprof knows of it, in one place. Layout selection (SelectLayout), the
// engine's memory offsets (naming), and the release table of
// docs/naming.md (ReleaseTable) are read from the records; a test
// (TestReleaseRegistryComplete) fails when a release known anywhere else
// — an opcode table of dispatch's catalog, a golden of
// testdata/releases — has no complete record.
type Release struct {
	// Layout is the layout the release writes, its own: its name, family,
	// releases' names and whether it was verified.
	*Layout
	// Versions are the version bytes its bytecode starts with.
	Versions []byte
	// Tables are the opcode tables of dispatch's catalog its engines are
	// identified by, each with the version bytes it writes in this layout
	// (a table that spans a format change without a new version byte is
	// in both releases: SelectLayout then refuses to guess). None: no
	// opcode table identifies the release's engines.
	Tables map[string][]byte
	// Memory is where an engine of the release keeps a function's
	// bytecode object (wasm32), checked on a real engine; nil: naming
	// calibrates it at run time.
	Memory *Memory
	// Tested says which tests read the release (docs/naming.md).
	Tested string
}

// Memory is the layout of an engine's JSFunctionBytecode in wasm32, as
// naming reads it: byte offsets of the fields, -1 for a field the engine
// does not have.
type Memory struct {
	// Tables are the opcode tables whose engines were checked with this
	// layout (the debug encoding they write is their release's layout's).
	Tables []string
	// Engine names the engine it was checked on.
	Engine string

	Buf, Length, Name, File, Line, Column  int
	PC2LineLen, PC2Line, PC2ColLen, PC2Col int
}

// MemoryOf returns the memory layout checked for an engine of the opcode
// table (a "/variant" suffix ignored) writing format.
func MemoryOf(table string, format Format) (Memory, bool) {
	table, _, _ = strings.Cut(table, "/")
	for _, r := range releases {
		if m := r.Memory; m != nil && slices.Contains(m.Tables, table) {
			if r.Debug.format() == format {
				return *m, true
			}
		}
	}
	return Memory{}, false
}

// Releases returns the registry's records, oldest first in each family.
func Releases() []Release { return slices.Clone(releases) }

// Catalog opcode tables by family and date, shortened.
const (
	b20200906a = "bellard-2020-09-06-230f6e47"
	b20200906b = "bellard-2020-09-06-387363c3"
	b20200906c = "bellard-2020-09-06-57f6969b"
	b20200906d = "bellard-2020-09-06-cc514e55"
	b20201108  = "bellard-2020-11-08-c731a14a"
	b20231207  = "bellard-2023-12-07-15a9fce6"
	b20231213  = "bellard-2023-12-13-55e9809e"
	b20240102  = "bellard-2024-01-02-f471907c"
	b20240106  = "bellard-2024-01-06-e032a44f"
	b20240109  = "bellard-2024-01-09-6d2d6e9f"
	b20240210  = "bellard-2024-02-10-1e182125"
	b20250318  = "bellard-2025-03-18-02ef4a78"
	b20250328  = "bellard-2025-03-28-17448d70"
	b20250412  = "bellard-2025-04-12-bd7a63b6"
	b20250416  = "bellard-2025-04-16-f20fb110"
	b20250430  = "bellard-2025-04-30-e721e170"
	b20250520  = "bellard-2025-05-20-814a7cba"
	b20251003  = "bellard-2025-10-03-86c3ec40"
	b20251103  = "bellard-2025-11-03-d9385213"
	b20251222  = "bellard-2025-12-22-7b98ddf0"
	ng20231113 = "quickjs-ng-2023-11-13-8063c530"
	ng20231129 = "quickjs-ng-2023-11-29-bec75d76"
	ng20231207 = "quickjs-ng-2023-12-07-e06d52c4"
	ng20231211 = "quickjs-ng-2023-12-11-7312c5a1"
	ng20231214 = "quickjs-ng-2023-12-14-fb55c55c"
	ng20240327 = "quickjs-ng-2024-03-27-0681e926"
	ng20240913 = "quickjs-ng-2024-09-13-38206298"
	ng20240924 = "quickjs-ng-2024-09-24-09dacb3e"
	ng20250105 = "quickjs-ng-2025-01-05-fb5394c5"
	ng20250206 = "quickjs-ng-2025-02-06-42c3faee"
	ng20250402 = "quickjs-ng-2025-04-02-bd5be754"
	ng20260108 = "quickjs-ng-2026-01-08-8ea427a4"
	ng20260129 = "quickjs-ng-2026-01-29-909fd718"
	ng20260517 = "quickjs-ng-2026-05-17-ec2a5ad9"
)

// ngMemory is QuickJS-NG v0.10-v0.16's function object (javy-plugin-1.7.0,
// quickjs-wasi 2.0.0 and 3.0.0, shopify_functions_javy_v4). The
// unreleased next (quickjs-wasi 3.6.2) shares v0.16's opcode table but
// moved every field 8 bytes down: there calibration decides.
func ngMemory(engine string, tables ...string) *Memory {
	return &Memory{Tables: tables, Engine: engine,
		Buf: 20, Length: 24, Name: 28, File: 64, Line: 68, Column: 72, PC2LineLen: 80, PC2Line: 84, PC2ColLen: -1, PC2Col: -1}
}

// golden is the tested-by text of a release read from the goldens
// fixtures/engines/goldens/build.sh built from its source.
func golden(names string) string {
	return "golden " + names + " built by `fixtures/engines/goldens/build.sh` from the release's source: bytecode, names, lines"
}

// releases is the registry: each release with its layout. Each layout
// derives from an earlier one by the differences between consecutive
// formats (docs/naming.md, "Formats"); each Bellard version byte of 1/2
// is the same layout without and with CONFIG_BIGNUM.
var releases = func() []Release {
	add := func(l Layout) *Layout { return &l }
	from := func(base *Layout, name, releases string, verified bool, change func(l *Layout)) *Layout {
		l := *base
		l.Name, l.Releases, l.Verified = name, releases, verified
		change(&l)
		return add(l)
	}
	fq, fng := dispatch.FamilyQuickJS, dispatch.FamilyQuickJSNG
	b2019a := add(Layout{Name: "B2019a", Family: fq, Releases: "Bellard 2019-07-09 - 2019-07-28", Verified: true,
		Tags: tags2019, HasDebugBit: 9, FlagBits: 10, BigNum: bigNum2019, VarDef: varDefs2019a,
		Debug: debugLayout{Line: true}})
	b2019b := from(b2019a, "B2019b", "Bellard 2019-08-10 - 2019-10-27", false, func(l *Layout) {
		l.HasDebugBit, l.FlagBits, l.VarDef = 10, 11, varDefs2019
	})
	b2019c := from(b2019b, "B2019c", "Bellard 2019-12-21", true, func(l *Layout) { l.FlagBits = 12 })
	b2020a := from(b2019c, "B2020a", "Bellard 2020-01-05 - 2020-09-06", true, func(l *Layout) {
		l.Tags, l.BigNum = tags2020, bigNumLibbf
	})
	b2020 := from(b2020a, "B2020", "Bellard 2020-11-08 - 2023-12-09", true, func(l *Layout) { l.VarDef = varDefs })
	b2rq := from(b2020, "B2rq", "rquickjs 0.4-0.5 (Bellard 2021-03-27 + error_column_number.patch)", false, func(l *Layout) {
		l.Debug.SeparateColumns, l.RQuickJS = true, true
	})
	b2024 := from(b2020, "B2024", "Bellard 2024-01-13, 2024-02-14", true, func(l *Layout) {
		l.FlagBits, l.Module.HasTLA = 13, true
	})
	b3 := from(b2024, "B3", "Bellard 2024-02-18 - 2025-03-17 (unreleased)", true, func(l *Layout) { l.Tags = tagsB3 })
	b3rq := from(b3, "B3rq", "rquickjs 0.6 (Bellard 2024-03-23 + error_column_number.patch)", true, func(l *Layout) {
		l.Debug.SeparateColumns, l.RQuickJS = true, true
	})
	b4a := from(b3, "B4a", "Bellard 2025-03-18 - 2025-03-19 (unreleased)", false, func(l *Layout) {
		l.Tags, l.BigNum = tagsB4, bigNumTwos
	})
	b4b := from(b4a, "B4b", "Bellard 2025-03-20 - 2025-04-11 (unreleased)", false, func(l *Layout) { l.FlagBits = 12 })
	b4c := from(b4b, "B4c", "Bellard 2025-04-12 - 2025-04-13 (unreleased)", false, func(l *Layout) { l.Debug.Source = true })
	b4 := from(b4b, "B4", "Bellard 2025-04-14 - 2025-04-28 (release 2025-04-26)", true, func(l *Layout) {
		l.Debug = debugLayout{PC2LineHeader: true, ColumnDeltas: true, Source: true}
	})
	b5a := from(b4, "B5a", "Bellard 2025-04-29 - 2025-05-23 (unreleased)", false, func(l *Layout) { l.Module.ImportIsStar = true })
	b5b := from(b5a, "B5b", "Bellard 2025-05-24 - 2025-11-02 (release 2025-09-13)", true, func(l *Layout) { l.Module.ReqAttributes = true })
	b5c := from(b5b, "B5c", "Bellard 2025-11-03 - 2025-11-14 (unreleased)", false, func(l *Layout) { l.Closure = closureU16 })
	b5d := from(b5c, "B5d", "Bellard 2025-11-15 and later (unreleased)", true, func(l *Layout) {
		l.VarRefCount = true
		l.VarDef = varDefLayout{RefIdx: varRefIdxAlways, KindBits: 4, ConstBit: 4, LexicalBit: 5, CapturedBit: 6}
	})

	ng01 := from(b2020, "NG01", "QuickJS-NG v0.1.0", true, func(l *Layout) { l.Family, l.Tags = fng, tagsNG })
	ng02 := from(ng01, "NG02", "QuickJS-NG v0.2.0", true, func(l *Layout) { l.IC = icInDebug })
	ng03 := from(ng01, "NG03", "QuickJS-NG v0.3.0 - v0.4.1", true, func(l *Layout) {
		l.HasDebugBit, l.FlagBits, l.IC = -1, 11, icAfterDebug
		l.Debug = debugLayout{Line: true, ColumnAfterLine: true, ColumnDeltas: true, Source: true}
	})
	ng05 := from(ng03, "NG05", "QuickJS-NG v0.5.0 - v0.6.0", true, func(l *Layout) {
		l.HasDebugBit, l.FlagBits, l.SignExtendedFlags, l.IC = 11, 12, true, icNone
		l.CpoolFirst, l.Module.HasTLA = true, true
	})
	ng061 := from(ng05, "NG061", "QuickJS-NG v0.6.1 - v0.8.0", true, func(l *Layout) { l.TypedAtoms = true })
	ng09 := from(ng061, "NG09", "QuickJS-NG v0.9.0", true, func(l *Layout) { l.SignExtendedFlags = false })
	ng10 := from(ng09, "NG10", "QuickJS-NG v0.10.0 - v0.11.0", true, func(l *Layout) { l.BigNum = bigNumTwos })
	ng12 := from(ng10, "NG12", "QuickJS-NG v0.12.0 - v0.12.1", true, func(l *Layout) {
		l.VarRefCount, l.VarDef.RefIdx, l.Closure = true, varRefIdxIfCaptured, closureLEB
	})
	ng13 := from(ng12, "NG13", "QuickJS-NG v0.13.0 - v0.16.2 and next", true, func(l *Layout) { l.Checksum = true })

	return []Release{
		{Layout: b2019a, Versions: []byte{1, 2}, Tested: "fuzz only (no opcode table identifies 2019 engines)"},
		{Layout: b2019b, Versions: []byte{1, 2}, Tested: "fuzz only"},
		{Layout: b2019c, Versions: []byte{1, 2}, Tested: "fuzz only"},
		{Layout: b2020a, Versions: []byte{1, 2},
			Tables: map[string][]byte{b20200906a: {1, 2}, b20200906b: {1, 2}, b20200906c: {1, 2}, b20200906d: {1, 2}},
			Tested: golden("`testdata/releases/bellard-2020-09-06-*` (version 2)") + "; fuzz; selection"},
		{Layout: b2020, Versions: []byte{1, 2},
			// Commits between 2023-12-09 and 2024-01-13 changed the function
			// flags and the module record without a new version byte.
			Tables: map[string][]byte{b20201108: {1, 2}, b20231207: {1, 2}, b20231213: {1, 2}, b20240102: {1, 2}, b20240106: {1, 2}},
			Memory: &Memory{Tables: []string{b20231207, b20201108}, Engine: "javy_quickjs_provider_v1, qjsrunner-2021-03-27",
				// debug.{filename, line_num, source_len, pc2line_len,
				// pc2line_buf}, no column. The engine frees the module
				// function after running it and reuses its memory, so samples
				// disagree more often than calibration alone accepts.
				Buf: 20, Length: 24, Name: 28, File: 64, Line: 68, Column: -1, PC2LineLen: 76, PC2Line: 80, PC2ColLen: -1, PC2Col: -1},
			Tested: "`javy_quickjs_provider_v1` (2023-12-09): bytecode, names, lines, profile (fib line 1, 21891 calls); `qjsrunner-2021-03-27` (our runner, sources of npm `qjsc@0.3.0`): bytecode, names, lines, metered names (fib line 1, 21891 calls; classes, generators)"},
		{Layout: b2rq, Versions: []byte{1, 2}, Tables: map[string][]byte{b20201108: {1, 2}}, Tested: "fuzz; selection"},
		{Layout: b2024, Versions: []byte{1, 2},
			Tables: map[string][]byte{b20231213: {1, 2}, b20240102: {1, 2}, b20240106: {1, 2}, b20240109: {1, 2}, b20240210: {1, 2}},
			Tested: golden("`testdata/releases/bellard-2024-01-13-*` (version 2)") + "; fuzz; selection"},
		// The two 2024 tables have identical opcode_info[] bytes, and the
		// engines of 2024-02-18 to 2025-03-17 (version 3) match them.
		{Layout: b3, Versions: []byte{3, 0x43}, Tables: map[string][]byte{b20240109: {3, 0x43}, b20240210: {3, 0x43}},
			Tested: golden("`testdata/releases/bellard-2024-03-23-3b45d155-*` (commit 3b45d155, 0x43; its opcodes are catalog table `bellard-2024-02-10-1e182125`'s)") + "; fuzz; selection"},
		{Layout: b3rq, Versions: []byte{0x43}, Tables: map[string][]byte{b20240109: {0x43}, b20240210: {0x43}},
			Memory: &Memory{Tables: []string{b20240109}, Engine: "javy-plugin-1.1.0",
				Buf: 20, Length: 24, Name: 28, File: 64, Line: 68, Column: 72, PC2LineLen: 80, PC2ColLen: 84, PC2Line: 88, PC2Col: 92},
			Tested: "`javy-plugin-1.1.0` (bytecode, names, lines, memory, profile)"},
		{Layout: b4a, Versions: []byte{4}, Tables: map[string][]byte{b20250318: {4}}, Tested: "fuzz only"},
		{Layout: b4b, Versions: []byte{4}, Tables: map[string][]byte{b20250318: {4}, b20250328: {4}}, Tested: "fuzz only"},
		{Layout: b4c, Versions: []byte{4}, Tables: map[string][]byte{b20250412: {4}}, Tested: "fuzz only"},
		{Layout: b4, Versions: []byte{4}, Tables: map[string][]byte{b20250412: {4}, b20250416: {4}},
			Tested: golden("`testdata/releases/bellard-2025-04-26-*`") + "; fuzz; selection"},
		{Layout: b5a, Versions: []byte{5}, Tables: map[string][]byte{b20250416: {5}, b20250430: {5}}, Tested: "fuzz only"},
		// A table shipped in a release maps to that release's layout: the
		// 2025-05-20 table also covers the unreleased B5a commits of
		// 2025-05-20 to 05-23, which differ only for modules that import.
		{Layout: b5b, Versions: []byte{5}, Tables: map[string][]byte{b20250520: {5}, b20251003: {5}},
			Tested: golden("`testdata/releases/bellard-2025-09-13-*`") + "; fuzz; selection"},
		{Layout: b5c, Versions: []byte{5}, Tables: map[string][]byte{b20251103: {5}}, Tested: "fuzz only"},
		{Layout: b5d, Versions: []byte{5}, Tables: map[string][]byte{b20251103: {5}, b20251222: {5}},
			Tested: golden("`testdata/releases/bellard-2025-12-22-f1139494-*` (commit f1139494 of 2025-12-22, table `bellard-2025-12-22-7b98ddf0`)") + "; fuzz; selection"},

		{Layout: ng01, Versions: []byte{2}, Tables: map[string][]byte{ng20231113: {2}}, Tested: golden("`testdata/releases/quickjs-ng-v0.1.0-*`") + "; fuzz; selection"},
		{Layout: ng02, Versions: []byte{3}, Tables: map[string][]byte{ng20231129: {3}}, Tested: golden("`testdata/releases/quickjs-ng-v0.2.0-*`") + "; fuzz"},
		{Layout: ng03, Versions: []byte{8}, Tables: map[string][]byte{ng20231207: {8}, ng20231211: {8}, ng20231214: {8}},
			Tested: golden("`testdata/releases/quickjs-ng-v0.4.1-*`") + "; fuzz"},
		{Layout: ng05, Versions: []byte{12, 14}, Tables: map[string][]byte{ng20240327: {12}, ng20240913: {14}},
			Tested: golden("`testdata/releases/quickjs-ng-v0.5.0-*` and `quickjs-ng-v0.6.0-*`") + "; fuzz"},
		{Layout: ng061, Versions: []byte{16, 19}, Tables: map[string][]byte{ng20240924: {16, 19}, ng20250105: {19}},
			Tested: golden("`testdata/releases/quickjs-ng-v0.6.1-*` and `quickjs-ng-v0.8.0-*` (v0.8.0 writes no entry for fib's line 2, below)") + "; fuzz"},
		{Layout: ng09, Versions: []byte{19}, Tables: map[string][]byte{ng20250206: {19}}, Tested: golden("`testdata/releases/quickjs-ng-v0.9.0-*`") + "; fuzz; selection"},
		{Layout: ng10, Versions: []byte{20, 21}, Tables: map[string][]byte{ng20250402: {20, 21}},
			Memory: ngMemory("javy-plugin-1.7.0", ng20250402),
			Tested: "`javy-plugin-1.7.0` (0x15: bytecode, names, lines, memory, profile); " + golden("`testdata/releases/quickjs-ng-v0.10.1-*` (0x14)")},
		{Layout: ng12, Versions: []byte{23}, Tables: map[string][]byte{ng20260108: {23}, ng20260129: {23}},
			Memory: ngMemory("quickjs-wasi 2.0.0", ng20260129),
			Tested: "npm `quickjs-wasi@2.0.0` (v0.12.1): bytecode, names, lines, metered names (fib line 1, 21891 calls; classes, generators)"},
		{Layout: ng13, Versions: []byte{24, 25, 26, 27, 28}, Tables: map[string][]byte{ng20260129: {24, 25}, ng20260517: {26, 27, 28}},
			Memory: ngMemory("quickjs-wasi 3.0.0, shopify_functions_javy_v4", ng20260129, ng20260517),
			Tested: golden("`testdata/releases/quickjs-ng-v0.13.0-*`, `quickjs-ng-v0.14.0-*` and `quickjs-ng-v0.16.2-*` (0x1b)") +
				"; fuzz; selection; `shopify_functions_javy_v4` (0x1a): bytecode, names, lines, memory, profile (fib line 1, 21891 calls); `quickjs-wasi@3.0.0` (v0.15.0) and `quickjs-wasi@3.6.2` (next, 0x1c): bytecode, names, lines, metered names (fib, classes, generators)"},
	}
}()

// tableLayouts maps each catalog opcode table to the layouts its version
// bytes announce, from the registry. Where a table spans a format change
// that left the version byte alone, both layouts are listed and the
// choice is refused (ambiguous).
var tableLayouts = func() map[string]map[byte][]*Layout {
	out := map[string]map[byte][]*Layout{}
	for _, r := range releases {
		for table, versions := range r.Tables {
			if out[table] == nil {
				out[table] = map[byte][]*Layout{}
			}
			for _, v := range versions {
				out[table][v] = append(out[table][v], r.Layout)
			}
		}
	}
	return out
}()

// ReleaseTable is docs/naming.md's release table, generated from the
// registry (TestReleaseTableInDocs keeps the doc equal to it).
func ReleaseTable() string {
	var b strings.Builder
	b.WriteString("| release | version | layout | tested by |\n|---|---|---|---|\n")
	for _, r := range releases {
		versions := make([]string, len(r.Versions))
		for i, v := range r.Versions {
			versions[i] = fmt.Sprint(v)
			if v >= 0x40 {
				versions[i] = fmt.Sprintf("%#x", v)
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.Releases, strings.Join(versions, ", "), r.Name, r.Tested)
	}
	return b.String()
}
