package wasmcore

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func dwarfModule(t testing.TB) *Module {
	m, err := Decode(mustRead(t, "testdata/dwarf/dwarf4.wasm"))
	require.NoError(t, err)
	return m
}

func TestSymbolizerNames(t *testing.T) {
	m := dwarfModule(t)
	s, err := NewSymbolizer(m)
	require.NoError(t, err)
	require.True(t, s.HasDWARF())
	require.NoError(t, s.DWARFError())
	for i, want := range []string{"accumulate", "run", "helper"} {
		assert.Equal(t, want, s.FuncName(uint32(i)))
	}
	assert.Equal(t, "wasm-function[7]", s.FuncName(7))

	// Without the name section, names come from DWARF subprograms.
	m.Names = nil
	s, err = NewSymbolizer(m)
	require.NoError(t, err)
	for i, want := range []string{"accumulate", "run", "helper"} {
		assert.Equal(t, want, s.FuncName(uint32(i)))
	}

	// Without either, export names, then the wasm-function[N] fallback.
	var customs []CustomSection
	for _, c := range m.Customs {
		if !strings.HasPrefix(c.Name, ".debug") {
			customs = append(customs, c)
		}
	}
	m.Customs = customs
	s, err = NewSymbolizer(m)
	require.NoError(t, err)
	assert.False(t, s.HasDWARF())
	assert.Equal(t, "run", s.FuncName(1), "exported as run")
	assert.Equal(t, "wasm-function[2]", s.FuncName(2))
}

func TestSymbolizerLookup(t *testing.T) {
	m := dwarfModule(t)
	s, err := NewSymbolizer(m)
	require.NoError(t, err)
	// DWARF addresses code relative to the code section payload: a
	// function's low_pc is its body entry after the size field.
	f0 := m.src.funcs[0]
	assert.Equal(t, uint32(2), uint32(f0.offset)+1-m.CodeSectionOffset())

	cases := []struct {
		off  uint64
		file string
		line int
		fn   string
		ok   bool
	}{
		{0x02, "/src/main.c", 5, "accumulate", true},
		{0x0b, "/src/main.c", 7, "accumulate", true},
		{0x0d, "/src/main.c", 7, "accumulate", true}, // between rows: the row before
		{0x46, "/src/main.c", 14, "run", true},
		{0x5e, "/src/helper.c", 2, "helper", true},
		{0x6a, "/src/helper.c", 6, "helper", true},
		{0x01, "", 0, "accumulate", true}, // size field: in the function, before any row
		{0x00, "", 0, "", false},          // the function count
		{0x1000, "", 0, "", false},        // past the code
	}
	for _, c := range cases {
		file, line, fn, ok := s.Lookup(c.off)
		assert.Equal(t, c.file, file, "%#x", c.off)
		assert.Equal(t, c.line, line, "%#x", c.off)
		assert.Equal(t, c.fn, fn, "%#x", c.off)
		assert.Equal(t, c.ok, ok, "%#x", c.off)
	}
}

var (
	reDumpRow     = regexp.MustCompile(`^0x([0-9a-f]+)\s+(\d+)\s+\d+\s+(\d+)\s.*?(end_sequence)?\s*$`)
	reDumpVersion = regexp.MustCompile(`^\s+version: (\d+)`)
)

type dumpRow struct {
	line int
	file string // base name
}

// parseDwarfdumpLines reads `llvm-dwarfdump --debug-line` output into the
// row of each address (the last row there), keeping only sequences that
// start inside the code (dead code keeps sequences at tombstone
// addresses).
func parseDwarfdumpLines(t *testing.T, text []byte, codeSize uint64) map[uint64]dumpRow {
	want := map[uint64]dumpRow{}
	var files []string // file names of the current line table
	version := 4
	type pending struct {
		addr uint64
		row  dumpRow
	}
	var seq []pending
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "debug_line[") {
			files = nil
			continue
		}
		if m := reDumpVersion.FindStringSubmatch(line); m != nil {
			version, _ = strconv.Atoi(m[1])
			continue
		}
		if _, name, ok := strings.Cut(line, "name: "); ok && strings.HasPrefix(strings.TrimSpace(line), "name:") {
			name = strings.Trim(strings.TrimSpace(name), `"`)
			files = append(files, name[strings.LastIndex(name, "/")+1:])
			continue
		}
		m := reDumpRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		addr, _ := strconv.ParseUint(m[1], 16, 64)
		if m[4] != "" {
			if len(seq) > 0 && seq[0].addr > 0 && seq[0].addr < codeSize {
				for _, p := range seq {
					want[p.addr] = p.row
				}
			}
			seq = seq[:0]
			continue
		}
		ln, _ := strconv.Atoi(m[2])
		fileNo, _ := strconv.Atoi(m[3])
		if version < 5 {
			fileNo-- // 1-based before DWARF 5
		}
		if fileNo < 0 || fileNo >= len(files) { // a plain check: one per row
			t.Fatalf("file %d of %d: %s", fileNo, len(files), line)
		}
		seq = append(seq, pending{addr, dumpRow{ln, files[fileNo]}})
	}
	require.NoError(t, sc.Err())
	return want
}

func checkLinesAgainstDump(t *testing.T, s *Symbolizer, want map[uint64]dumpRow) {
	require.NotEmpty(t, want)
	// Plain checks, failing at the first difference: there is a row for
	// every address of the code.
	for addr, w := range want {
		file, line, _, ok := s.Lookup(addr)
		switch {
		case !ok:
			t.Fatalf("%#x: no row", addr)
		case line != w.line:
			t.Fatalf("%#x: line %d, llvm-dwarfdump says %d", addr, line, w.line)
		case !strings.HasSuffix(file, "/"+w.file) && file != w.file:
			t.Fatalf("%#x: %s is not %s", addr, file, w.file)
		}
	}
}

func codeSize(m *Module) uint64 {
	sp := m.src.secs[SectionCode]
	return uint64(sp.end - m.src.codePayload)
}

// TestSymbolizerMatchesDwarfdump checks every row of the line table against
// llvm-dwarfdump's (a golden file, regenerated with -update when the tool
// is installed).
func TestSymbolizerMatchesDwarfdump(t *testing.T) {
	golden := "testdata/dwarf/dwarf4.debug_line.txt"
	if *update {
		if tool, err := exec.LookPath("llvm-dwarfdump"); err == nil {
			out, err := exec.Command(tool, "--debug-line", "testdata/dwarf/dwarf4.wasm").Output()
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(golden, out, 0o644))
		}
	}
	m := dwarfModule(t)
	s, err := NewSymbolizer(m)
	require.NoError(t, err)
	checkLinesAgainstDump(t, s, parseDwarfdumpLines(t, mustRead(t, golden), codeSize(m)))
}

// TestSymbolizerAllInputs loads DWARF from every input that has it (our
// interpreters under fixtures/interp are built with -g) and, when
// llvm-dwarfdump is installed, checks every line row against it.
func TestSymbolizerAllInputs(t *testing.T) {
	tool, _ := exec.LookPath("llvm-dwarfdump")
	for _, in := range allInputs(t) {
		m, err := Decode(in.data)
		require.NoError(t, err)
		hasInfo := false
		for _, c := range m.Customs {
			hasInfo = hasInfo || c.Name == ".debug_info"
		}
		if !hasInfo {
			continue
		}
		t.Run(in.name, func(t *testing.T) {
			s, err := NewSymbolizer(m)
			require.NoError(t, err)
			require.NoError(t, s.DWARFError())
			require.True(t, s.HasDWARF())
			// Every defined function has a name.
			for i := range m.Functions {
				idx := m.NumImportedFuncs() + uint32(i)
				require.NotEmpty(t, s.FuncName(idx))
			}
			if tool == "" {
				return
			}
			p := filepath.Join(t.TempDir(), "m.wasm")
			require.NoError(t, os.WriteFile(p, in.data, 0o644))
			out, err := exec.Command(tool, "--debug-line", p).Output()
			require.NoError(t, err)
			checkLinesAgainstDump(t, s, parseDwarfdumpLines(t, out, codeSize(m)))
		})
	}
}

// TestSymbolizerMalformedDWARF corrupts each DWARF section in many ways:
// NewSymbolizer must neither panic nor fail, and names still come from the
// name section.
func TestSymbolizerMalformedDWARF(t *testing.T) {
	base := dwarfModule(t)
	for ci, c := range base.Customs {
		if !strings.HasPrefix(c.Name, ".debug") {
			continue
		}
		mutations := map[string]func([]byte) []byte{
			"empty":     func([]byte) []byte { return nil },
			"truncated": func(b []byte) []byte { return b[:len(b)/2] },
			"one byte":  func(b []byte) []byte { return b[:1] },
			"ones":      func(b []byte) []byte { return bytes.Repeat([]byte{0xFF}, len(b)) },
			"zeros":     func(b []byte) []byte { return make([]byte, len(b)) },
		}
		for i := 0; i < 64; i++ {
			pos := i * 7919 % max(len(c.Data), 1)
			mutations["flip "+strconv.Itoa(pos)] = func(b []byte) []byte {
				b = bytes.Clone(b)
				if len(b) > 0 {
					b[pos] ^= 0xA5
				}
				return b
			}
		}
		for name, mut := range mutations {
			t.Run(c.Name+"/"+name, func(t *testing.T) {
				m := *base
				m.Customs = append([]CustomSection(nil), base.Customs...)
				m.Customs[ci].Data = mut(c.Data)
				s, err := NewSymbolizer(&m)
				require.NoError(t, err)
				assert.Equal(t, "run", s.FuncName(1))
				for off := uint64(0); off < 0x70; off++ {
					s.Lookup(off)
				}
			})
		}
	}
}
