package bytecode

import (
	"fmt"
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
	// Layout names the layout the release writes (LayoutByName): its
	// family, its releases' names and whether it was verified.
	Layout string
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
			if l, ok := LayoutByName(r.Layout); ok && l.Debug.format() == format {
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

// releases is the registry. Each Bellard version byte of 1/2 is the same
// layout without and with CONFIG_BIGNUM.
var releases = []Release{
	{Layout: "B2019a", Versions: []byte{1, 2}, Tested: "fuzz only (no opcode table identifies 2019 engines)"},
	{Layout: "B2019b", Versions: []byte{1, 2}, Tested: "fuzz only"},
	{Layout: "B2019c", Versions: []byte{1, 2}, Tested: "fuzz only"},
	{Layout: "B2020a", Versions: []byte{1, 2},
		Tables: map[string][]byte{b20200906a: {1, 2}, b20200906b: {1, 2}, b20200906c: {1, 2}, b20200906d: {1, 2}},
		Tested: golden("`testdata/releases/bellard-2020-09-06-*` (version 2)") + "; fuzz; selection"},
	{Layout: "B2020", Versions: []byte{1, 2},
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
	{Layout: "B2rq", Versions: []byte{1, 2}, Tables: map[string][]byte{b20201108: {1, 2}}, Tested: "fuzz; selection"},
	{Layout: "B2024", Versions: []byte{1, 2},
		Tables: map[string][]byte{b20231213: {1, 2}, b20240102: {1, 2}, b20240106: {1, 2}, b20240109: {1, 2}, b20240210: {1, 2}},
		Tested: golden("`testdata/releases/bellard-2024-01-13-*` (version 2)") + "; fuzz; selection"},
	// The two 2024 tables have identical opcode_info[] bytes, and the
	// engines of 2024-02-18 to 2025-03-17 (version 3) match them.
	{Layout: "B3", Versions: []byte{3, 0x43}, Tables: map[string][]byte{b20240109: {3, 0x43}, b20240210: {3, 0x43}},
		Tested: golden("`testdata/releases/bellard-2024-03-23-3b45d155-*` (commit 3b45d155, 0x43; its opcodes are catalog table `bellard-2024-02-10-1e182125`'s)") + "; fuzz; selection"},
	{Layout: "B3rq", Versions: []byte{0x43}, Tables: map[string][]byte{b20240109: {0x43}, b20240210: {0x43}},
		Memory: &Memory{Tables: []string{b20240109}, Engine: "javy-plugin-1.1.0",
			Buf: 20, Length: 24, Name: 28, File: 64, Line: 68, Column: 72, PC2LineLen: 80, PC2ColLen: 84, PC2Line: 88, PC2Col: 92},
		Tested: "`javy-plugin-1.1.0` (bytecode, names, lines, memory, profile)"},
	{Layout: "B4a", Versions: []byte{4}, Tables: map[string][]byte{b20250318: {4}}, Tested: "fuzz only"},
	{Layout: "B4b", Versions: []byte{4}, Tables: map[string][]byte{b20250318: {4}, b20250328: {4}}, Tested: "fuzz only"},
	{Layout: "B4c", Versions: []byte{4}, Tables: map[string][]byte{b20250412: {4}}, Tested: "fuzz only"},
	{Layout: "B4", Versions: []byte{4}, Tables: map[string][]byte{b20250412: {4}, b20250416: {4}},
		Tested: golden("`testdata/releases/bellard-2025-04-26-*`") + "; fuzz; selection"},
	{Layout: "B5a", Versions: []byte{5}, Tables: map[string][]byte{b20250416: {5}, b20250430: {5}}, Tested: "fuzz only"},
	// A table shipped in a release maps to that release's layout: the
	// 2025-05-20 table also covers the unreleased B5a commits of
	// 2025-05-20 to 05-23, which differ only for modules that import.
	{Layout: "B5b", Versions: []byte{5}, Tables: map[string][]byte{b20250520: {5}, b20251003: {5}},
		Tested: golden("`testdata/releases/bellard-2025-09-13-*`") + "; fuzz; selection"},
	{Layout: "B5c", Versions: []byte{5}, Tables: map[string][]byte{b20251103: {5}}, Tested: "fuzz only"},
	{Layout: "B5d", Versions: []byte{5}, Tables: map[string][]byte{b20251103: {5}, b20251222: {5}},
		Tested: golden("`testdata/releases/bellard-2025-12-22-f1139494-*` (commit f1139494 of 2025-12-22, table `bellard-2025-12-22-7b98ddf0`)") + "; fuzz; selection"},

	{Layout: "NG01", Versions: []byte{2}, Tables: map[string][]byte{ng20231113: {2}}, Tested: golden("`testdata/releases/quickjs-ng-v0.1.0-*`") + "; fuzz; selection"},
	{Layout: "NG02", Versions: []byte{3}, Tables: map[string][]byte{ng20231129: {3}}, Tested: golden("`testdata/releases/quickjs-ng-v0.2.0-*`") + "; fuzz"},
	{Layout: "NG03", Versions: []byte{8}, Tables: map[string][]byte{ng20231207: {8}, ng20231211: {8}, ng20231214: {8}},
		Tested: golden("`testdata/releases/quickjs-ng-v0.4.1-*`") + "; fuzz"},
	{Layout: "NG05", Versions: []byte{12, 14}, Tables: map[string][]byte{ng20240327: {12}, ng20240913: {14}},
		Tested: golden("`testdata/releases/quickjs-ng-v0.5.0-*` and `quickjs-ng-v0.6.0-*`") + "; fuzz"},
	{Layout: "NG061", Versions: []byte{16, 19}, Tables: map[string][]byte{ng20240924: {16, 19}, ng20250105: {19}},
		Tested: golden("`testdata/releases/quickjs-ng-v0.6.1-*` and `quickjs-ng-v0.8.0-*` (v0.8.0 writes no entry for fib's line 2, below)") + "; fuzz"},
	{Layout: "NG09", Versions: []byte{19}, Tables: map[string][]byte{ng20250206: {19}}, Tested: golden("`testdata/releases/quickjs-ng-v0.9.0-*`") + "; fuzz; selection"},
	{Layout: "NG10", Versions: []byte{20, 21}, Tables: map[string][]byte{ng20250402: {20, 21}},
		Memory: ngMemory("javy-plugin-1.7.0", ng20250402),
		Tested: "`javy-plugin-1.7.0` (0x15: bytecode, names, lines, memory, profile); " + golden("`testdata/releases/quickjs-ng-v0.10.1-*` (0x14)")},
	{Layout: "NG12", Versions: []byte{23}, Tables: map[string][]byte{ng20260108: {23}, ng20260129: {23}},
		Memory: ngMemory("quickjs-wasi 2.0.0", ng20260129),
		Tested: "npm `quickjs-wasi@2.0.0` (v0.12.1): bytecode, names, lines, metered names (fib line 1, 21891 calls; classes, generators)"},
	{Layout: "NG13", Versions: []byte{24, 25, 26, 27, 28}, Tables: map[string][]byte{ng20260129: {24, 25}, ng20260517: {26, 27, 28}},
		Memory: ngMemory("quickjs-wasi 3.0.0, shopify_functions_javy_v4", ng20260129, ng20260517),
		Tested: golden("`testdata/releases/quickjs-ng-v0.13.0-*`, `quickjs-ng-v0.14.0-*` and `quickjs-ng-v0.16.2-*` (0x1b)") +
			"; fuzz; selection; `shopify_functions_javy_v4` (0x1a): bytecode, names, lines, memory, profile (fib line 1, 21891 calls); `quickjs-wasi@3.0.0` (v0.15.0) and `quickjs-wasi@3.6.2` (next, 0x1c): bytecode, names, lines, metered names (fib, classes, generators)"},
}

// tableLayouts maps each catalog opcode table to the layouts its version
// bytes announce, from the registry. Where a table spans a format change
// that left the version byte alone, both layouts are listed and the
// choice is refused (ambiguous).
var tableLayouts = func() map[string]map[byte][]string {
	out := map[string]map[byte][]string{}
	for _, r := range releases {
		for table, versions := range r.Tables {
			if out[table] == nil {
				out[table] = map[byte][]string{}
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
		l, _ := LayoutByName(r.Layout)
		versions := make([]string, len(r.Versions))
		for i, v := range r.Versions {
			versions[i] = fmt.Sprint(v)
			if v >= 0x40 {
				versions[i] = fmt.Sprintf("%#x", v)
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", l.Releases, strings.Join(versions, ", "), r.Layout, r.Tested)
	}
	return b.String()
}
