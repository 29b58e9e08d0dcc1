package jsprofile

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProfileBuilderMergesAndValidates(t *testing.T) {
	b := NewBuilder(Meta{Mode: "exact", TotalInstructions: 100, Module: "index.wasm",
		Engine: EngineInfo{Family: "quickjs-ng", Releases: []string{"v0.10.0"}, OpcodeNamesSource: "table"}})
	fib := func(line int) Frame { return JSFrame("fib", "index.js", 1, line, 0x1000, uint32(line)) }
	add := OpcodeFrame("add", 37)
	b.Add([]Frame{fib(2), add}, 10, 1, 0)
	b.Add([]Frame{fib(2), add}, 15, 2, 0) // same stack: merged
	b.Add([]Frame{fib(3), add}, 20, 1, 0) // same function, other line: one function, two locations
	b.Add([]Frame{fib(3)}, 0, 0, 0)       // all zero: dropped
	b.Add([]Frame{BucketFrame("(outside JS)")}, 55, 0, 0)
	p, err := b.Profile()
	require.NoError(t, err)

	require.Len(t, p.Sample, 3)
	assert.Equal(t, []int64{25, 3, 0}, p.Sample[0].Value)
	assert.Len(t, p.Function, 3, "fib, op:add, (outside JS)")
	assert.Len(t, p.Location, 4)
	assert.Equal(t, "op:add", p.Sample[0].Location[0].Line[0].Function.Name, "leaf first")
	assert.Equal(t, "js:fib@0x1000", p.Sample[0].Location[1].Line[0].Function.SystemName)
	assert.Equal(t, int64(2), p.Sample[0].Location[1].Line[0].Line)
	assert.Equal(t, "bucket:outside", p.Sample[2].Location[0].Line[0].Function.SystemName)
	assert.Contains(t, p.Comments, "jsprof.engine.releases=v0.10.0")
	assert.Equal(t, "wasm_instructions", p.DefaultSampleType)
}

// TestNativeFrames: a native's frame keeps its table index and magic in
// its system name, so that natives of one name stay apart, and reads back
// as KindNative.
func TestNativeFrames(t *testing.T) {
	tests := []struct {
		name       string
		table      uint32
		magic      int16
		systemName string
	}{
		{"JSON.parse", 412, 0, "native:JSON.parse@table[412]"},
		{"Math.max", 77, 1, "native:Math.max@table[77]/magic=1"},
		{"native@table[257]", 257, 0, "native:native@table[257]@table[257]"},
	}
	b := NewBuilder(Meta{Mode: ModeExact, TotalInstructions: 60})
	eval := JSFrame("<eval>", "index.js", 1, 1, 0x1000, 0)
	for i, tt := range tests {
		f := NativeFrame(tt.name, tt.table, tt.magic)
		assert.Equal(t, Frame{Kind: KindNative, Name: tt.name, SystemName: tt.systemName}, f)
		b.Add([]Frame{eval, OpcodeFrame("call_method", 36), f}, int64(10*(i+1)), 0, 1)
	}
	p, err := b.Profile()
	require.NoError(t, err)
	jp, err := Read(p)
	require.NoError(t, err)
	var kinds []FrameKind
	for _, s := range jp.Sample {
		kinds = append(kinds, jp.Stack(s, nil)[0].Kind)
	}
	assert.Equal(t, []FrameKind{KindNative, KindNative, KindNative}, kinds)
}

// TestBuiltProfilesReadBack: Profile no longer reads what it built again,
// so every frame kind, in both modes, is read back here, by pprof's own
// validation and by Read; what Profile still checks as stacks are added
// (values that are negative or overflow, an exact total the samples miss)
// is an error.
func TestBuiltProfilesReadBack(t *testing.T) {
	eval := JSFrame("<eval>", "index.js", 1, 3, 0x1000, 7)
	every := [][]Frame{
		{WasmFrame(12, "_start", "", 0, 0x40), PhaseFrame("(run)"), eval, OpcodeFrame("call", 34), WasmFrame(99, "JS_CallInternal", "quickjs.c", 1200, 0x5000)},
		{eval, OpcodeFrame("call_method", 36), NativeFrame("JSON.parse", 412, 0), CalledNativeFrame("JSON.parse")},
		{ForeignWasmFrame("main.command_export"), BucketFrame(BucketTruncated)},
	}
	tests := []struct {
		name   string
		meta   Meta
		values [][3]int64
		err    string
	}{
		{name: "exact", meta: Meta{Mode: ModeExact, TotalInstructions: 60}, values: [][3]int64{{10, 2, 1}, {20, 1, 1}, {30, 0, 0}}},
		{name: "sample", meta: Meta{Mode: ModeSample, SampleEvery: 1000}, values: [][3]int64{{1000, 0, 0}, {2000, 0, 0}, {900, 0, 0}}},
		{name: "exact, total missed", meta: Meta{Mode: ModeExact, TotalInstructions: 61}, values: [][3]int64{{10, 2, 1}, {20, 1, 1}, {30, 0, 0}},
			err: "samples sum to 60 wasm_instructions, but its total is 61"},
		{name: "negative", meta: Meta{Mode: ModeSample}, values: [][3]int64{{10, 0, 0}, {-5, 0, 0}, {1, 0, 0}},
			err: "wasm_instructions -5 is negative"},
		{name: "overflow", meta: Meta{Mode: ModeSample}, values: [][3]int64{{1, 0, 0}, {0, 0, math.MaxInt64}, {0, 0, 1}},
			err: "the samples' calls overflow a 64-bit count"},
		{name: "executions outside JS", meta: Meta{Mode: ModeSample}, values: [][3]int64{{1, 0, 0}, {1, 0, 0}, {1, 4, 0}},
			err: "4 opcode executions on a stack outside any JS function"},
		{name: "no mode", values: [][3]int64{{1, 0, 0}, {1, 0, 0}, {1, 0, 0}},
			err: "jsprof.mode="},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuilder(tt.meta)
			for i, stack := range every {
				v := tt.values[i]
				b.Add(stack, v[0], v[1], v[2])
			}
			p, err := b.Profile()
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.NoError(t, p.CheckValid())
			jp, err := Read(p)
			require.NoError(t, err)
			assert.Equal(t, tt.meta.Mode, jp.Meta.Mode)
			require.Len(t, jp.Sample, 3)
			var kinds []FrameKind
			for _, s := range jp.Sample {
				for _, f := range jp.Stack(s, nil) {
					kinds = append(kinds, f.Kind)
				}
			}
			assert.Equal(t, []FrameKind{KindWasm, KindOpcode, KindJS, KindPhase, KindWasm,
				KindNative, KindNative, KindOpcode, KindJS, KindBucket, KindWasm}, kinds, "leaf first")
		})
	}
}

// TestBuilderSlabsAndGrow: samples cut from the builder's slabs keep their
// own values and locations across slabs, and Grow keeps the stacks added
// before it found, so that the same stack still merges and the same
// frame keeps its location.
func TestBuilderSlabsAndGrow(t *testing.T) {
	const stacks = 300 // past the first slabs of 64 and 128
	// 1+2+...+300, and 1,000 more on stack 7
	b := NewBuilder(Meta{Mode: ModeExact, TotalInstructions: stacks*(stacks+1)/2 + 1000})
	frame := func(i int) Frame { return JSFrame("f", "index.js", 1, i+1, 0x1000, uint32(i)) }
	for i := range stacks {
		if i == 100 {
			b.Grow(1000, 500)
		}
		b.Add([]Frame{frame(i), OpcodeFrame("add", 37)}, int64(i+1), 1, 0)
	}
	b.Add([]Frame{frame(7), OpcodeFrame("add", 37)}, 1000, 1, 0) // merges with stack 7
	p, err := b.Profile()
	require.NoError(t, err)
	require.Len(t, p.Sample, stacks)
	assert.Len(t, p.Location, stacks+1, "a line per stack and the opcode, each once: Grow kept those made before it")
	for i, s := range p.Sample {
		want := int64(i + 1)
		execs := int64(1)
		if i == 7 {
			want, execs = 1008, 2
		}
		assert.Equal(t, []int64{want, execs, 0}, s.Value, "sample %d", i)
		require.Len(t, s.Location, 2)
		assert.Equal(t, int64(i+1), s.Location[1].Line[0].Line, "sample %d", i)
		assert.Equal(t, NumValues, cap(s.Value), "sample %d: an append must not reach the next sample's values", i)
	}
	require.NoError(t, p.CheckValid())
	_, err = Read(p)
	require.NoError(t, err)
}

// TestBuilderRejectsUnknownKinds: a function whose system name Read would
// not classify (an opcode frame of no opcode, as a pc past the known
// bytecode gives) makes Profile fail, as reading it back did.
func TestBuilderRejectsUnknownKinds(t *testing.T) {
	b := NewBuilder(Meta{Mode: ModeSample})
	b.Add([]Frame{JSFrame("f", "index.js", 1, 2, 0x1000, 4), OpcodeFrame("op:?", -1)}, 5, 0, 0)
	_, err := b.Profile()
	assert.ErrorContains(t, err, `system_name "op:-1": want op: and an opcode value 0-`)
}

// TestIdentitiesReadBack: the engine code's and the program's SHA-256
// are written and read back; a value that is no SHA-256 in lower-case hex
// (an untrusted profile's) is dropped, as are none, for earlier profiles.
func TestIdentitiesReadBack(t *testing.T) {
	t.Parallel()
	sum := strings.Repeat("0123456789abcdef", 4)
	tests := []struct {
		name                string
		code, program       string
		wantCode, wantProgr string
	}{
		{"both", sum, strings.Repeat("f", 64), sum, strings.Repeat("f", 64)},
		{"none (earlier jsprof)", "", "", "", ""},
		{"upper case", strings.ToUpper(sum), sum, "", sum},
		{"short", sum[:63], sum + "0", "", ""},
		{"not hex", strings.Repeat("g", 64), "\x1b[31m" + sum[5:], "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := NewBuilder(Meta{Mode: ModeExact, TotalInstructions: 1})
			b.Add([]Frame{BucketFrame(BucketOutside)}, 1, 0, 0)
			p, err := b.Profile()
			require.NoError(t, err)
			// Written as a profile of another jsprof (or a hostile one) would.
			p.Comments = append(p.Comments, commentEngineCode+"="+tt.code, commentProgram+"="+tt.program)
			jp, err := Read(p)
			require.NoError(t, err)
			assert.Equal(t, tt.wantCode, jp.Meta.Engine.Code)
			assert.Equal(t, tt.wantProgr, jp.Meta.Program)
			// And as this one writes them: only valid ones.
			again := NewBuilder(jp.Meta)
			again.Add([]Frame{BucketFrame(BucketOutside)}, 1, 0, 0)
			q, err := again.Profile()
			require.NoError(t, err)
			back, err := Read(q)
			require.NoError(t, err)
			assert.Equal(t, jp.Meta.Engine.Code, back.Meta.Engine.Code)
			assert.Equal(t, jp.Meta.Program, back.Meta.Program)
		})
	}
}
