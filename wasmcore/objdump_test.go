package wasmcore

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata from wasm-objdump")

// objdumpAliases maps wabt 1.0.32's names to the spec's final ones.
var objdumpAliases = map[string]string{
	"i16x8.dot_i8x16_i7x16_s":     "i16x8.relaxed_dot_i8x16_i7x16_s",
	"i32x4.dot_i8x16_i7x16_add_s": "i32x4.relaxed_dot_i8x16_i7x16_add_s",
}

type dumpedInstr struct {
	off      uint32 // file offset
	mnemonic string
}

var reFuncHeader = regexp.MustCompile(`^([0-9a-f]+) func\[(\d+)\]`)

// instrLine matches an instruction line of `wasm-objdump -d` as the
// regexp `^ ([0-9a-f]+): [0-9a-f ]*\|(.*)$` would, returning its two
// groups, the file offset and the text: a regexp, on each of the hundreds
// of thousands of lines of a real engine's disassembly, costs a second.
func instrLine(line string) (off, text string, ok bool) {
	isHex := func(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' }
	if len(line) == 0 || line[0] != ' ' {
		return "", "", false
	}
	i := 1
	for i < len(line) && isHex(line[i]) {
		i++
	}
	if i == 1 || !strings.HasPrefix(line[i:], ": ") {
		return "", "", false
	}
	j := i + 2
	for j < len(line) && (isHex(line[j]) || line[j] == ' ') {
		j++
	}
	if j == len(line) || line[j] != '|' || strings.ContainsRune(line[j+1:], '\n') {
		return "", "", false
	}
	return line[1:i], line[j+1:], true
}

// parseObjdump reads `wasm-objdump -d` output into instructions per
// function index. Local declarations and continuation lines (long
// immediates) are skipped.
func parseObjdump(t *testing.T, text []byte) map[uint32][]dumpedInstr {
	out := map[uint32][]dumpedInstr{}
	cur := int64(-1)
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		// Only a line with " func[" can be a header: the regexp is
		// spared the others.
		if strings.Contains(line, " func[") {
			if m := reFuncHeader.FindStringSubmatch(line); m != nil {
				cur, _ = strconv.ParseInt(m[2], 10, 64)
				out[uint32(cur)] = nil
				continue
			}
		}
		hexOff, text, ok := instrLine(line)
		if !ok || cur < 0 {
			continue
		}
		fields := strings.Fields(text)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "local[") {
			continue
		}
		off, err := strconv.ParseUint(hexOff, 16, 32)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		name := fields[0]
		if a, ok := objdumpAliases[name]; ok {
			name = a
		}
		out[uint32(cur)] = append(out[uint32(cur)], dumpedInstr{uint32(off), name})
	}
	require.NoError(t, sc.Err())
	return out
}

// filterObjdump keeps the listed functions' disassembly (all when funcs is
// nil) so that a golden file stays small.
func filterObjdump(text []byte, funcs map[uint32]bool) []byte {
	var out bytes.Buffer
	keep := false
	for _, line := range strings.SplitAfter(string(text), "\n") {
		if m := reFuncHeader.FindStringSubmatch(line); m != nil {
			n, _ := strconv.ParseUint(m[2], 10, 32)
			keep = funcs == nil || funcs[uint32(n)]
		}
		if keep {
			out.WriteString(line)
		}
	}
	return out.Bytes()
}

func runObjdump(t *testing.T, wasm []byte) ([]byte, bool) {
	tool, err := exec.LookPath("wasm-objdump")
	if err != nil {
		return nil, false
	}
	p := filepath.Join(t.TempDir(), "m.wasm")
	require.NoError(t, os.WriteFile(p, wasm, 0o644))
	out, err := exec.Command(tool, "-d", p).Output()
	require.NoError(t, err)
	return out, true
}

// checkAgainstDump compares our decoding of every function in dump with it:
// same instruction file offsets, same mnemonics.
func checkAgainstDump(t *testing.T, m *Module, dump map[uint32][]dumpedInstr) {
	require.NotEmpty(t, dump)
	for fi, want := range dump {
		f := m.Function(fi)
		require.NotNil(t, f, "function %d", fi)
		ins, err := DecodeInstructions(f.Body)
		require.NoError(t, err, "function %d", fi)
		got := make([]dumpedInstr, len(ins))
		for i, in := range ins {
			got[i] = dumpedInstr{f.BodyOffset + in.Offset, in.Op.String()}
		}
		require.Equal(t, len(want), len(got), "function %d: instruction count", fi)
		for i := range want {
			if want[i] != got[i] {
				t.Fatalf("function %d instruction %d: objdump %06x %s, wasmcore %06x %s",
					fi, i, want[i].off, want[i].mnemonic, got[i].off, got[i].mnemonic)
			}
		}
	}
}

func TestObjdumpCrossCheck(t *testing.T) {
	allOps, err := allOpsModule(map[Opcode]bool{OpThrowRef: true}).Encode() // wabt 1.0.32 lacks throw_ref
	require.NoError(t, err)
	features, err := os.ReadFile("testdata/features.wasm")
	require.NoError(t, err)
	cases := []struct {
		name   string
		wasm   func(t *testing.T) []byte
		golden string
		funcs  func(m *Module) map[uint32]bool // subset kept in the golden file
	}{
		{"allops", func(*testing.T) []byte { return allOps }, "allops.objdump", nil},
		{"features", func(*testing.T) []byte { return features }, "features.objdump", nil},
		{"javy-plugin-1.1.0", func(t *testing.T) []byte { return fixtures.EngineBytes(t, "javy-plugin-1.1.0") },
			"javy-plugin-1.1.0.objdump", func(m *Module) map[uint32]bool {
				// A handful of functions spread over the module, small
				// enough for a golden file.
				sel := map[uint32]bool{}
				n := m.NumImportedFuncs()
				for i := 0; i < len(m.Functions) && len(sel) < 12; i += 173 {
					if len(m.Functions[i].Body) < 4000 {
						sel[n+uint32(i)] = true
					}
				}
				return sel
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wasm := c.wasm(t)
			m, err := Decode(wasm)
			require.NoError(t, err)
			golden := filepath.Join("testdata", c.golden)
			if dump, ok := runObjdump(t, wasm); ok {
				// With the tool: check every function it prints.
				checkAgainstDump(t, m, parseObjdump(t, dump))
				if *update {
					var sel map[uint32]bool
					if c.funcs != nil {
						sel = c.funcs(m)
					}
					require.NoError(t, os.WriteFile(golden, filterObjdump(dump, sel), 0o644))
				}
			} else {
				t.Logf("wasm-objdump not found: checking the golden file only")
			}
			text, err := os.ReadFile(golden)
			require.NoError(t, err, "golden file missing: run go test -run TestObjdumpCrossCheck -update with wabt installed")
			dump := parseObjdump(t, text)
			if c.funcs != nil {
				require.Len(t, dump, len(c.funcs(m)), "golden file covers a different selection")
			}
			checkAgainstDump(t, m, dump)
		})
	}
}

func TestAllOpcodesRoundTrip(t *testing.T) {
	// Every opcode decodes to itself with the immediates AppendInstr wrote,
	// and re-encodes to the same bytes.
	body := allOpsBody(nil)
	ins, err := DecodeInstructions(body)
	require.NoError(t, err)
	ops := allOpcodes()
	require.Len(t, ins, len(ops)+1)
	var re []byte
	for i, in := range ins {
		if i < len(ops) {
			require.Equal(t, ops[i], in.Op, "instruction %d", i)
			_, known := in.Op.info()
			require.True(t, known)
			require.NotContains(t, in.Op.String(), "opcode(", fmt.Sprint(i))
		}
		re = AppendInstr(re, in)
	}
	require.Equal(t, body, re)
}
