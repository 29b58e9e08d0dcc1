package wasmcore

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// runDetachModule runs a detach*.wasm module (its _start, then sum) and
// returns the sum of its program's bytes. With d, the module is a detached
// one: before _start the host writes d's bytes to fresh pages and sets the
// two globals, as the profiler does.
func runDetachModule(t *testing.T, b []byte, d *DetachedSegment) uint32 {
	t.Helper()
	ctx := context.Background()
	r := newRuntime(ctx)
	defer r.Close(ctx)
	mod, err := r.InstantiateWithConfig(ctx, b, wazero.NewModuleConfig().WithStartFunctions())
	require.NoError(t, err)
	if d != nil {
		mem := mod.Memory()
		prev, ok := mem.Grow(uint32((len(d.Bytes) + 65535) / 65536))
		require.True(t, ok)
		base := prev * 65536
		require.True(t, mem.Write(base, d.Bytes))
		mod.ExportedGlobal(DetachedBaseExport).(api.MutableGlobal).Set(uint64(base))
		mod.ExportedGlobal(DetachedLenExport).(api.MutableGlobal).Set(uint64(len(d.Bytes)))
	}
	_, err = mod.ExportedFunction("_start").Call(ctx)
	require.NoError(t, err)
	res, err := mod.ExportedFunction("sum").Call(ctx)
	require.NoError(t, err)
	return uint32(res[0])
}

func byteSum(s string) uint32 {
	var n uint32
	for i := 0; i < len(s); i++ {
		n += uint32(s[i])
	}
	return n
}

// TestDetachSegment: two modules that differ only in their program detach
// to the same bytes, each runs as before with its bytes put back by the
// host, and every replaced instruction is one for one.
func TestDetachSegment(t *testing.T) {
	cases := []struct {
		file, program string
	}{
		{"testdata/detach.wasm", "hello, program"},
		{"testdata/detach_long.wasm", "a longer program, of forty-one bytes here"},
	}
	var detached [][]byte
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			orig := mustRead(t, c.file)
			require.Equal(t, byteSum(c.program), runDetachModule(t, orig, nil))

			m, err := Decode(orig)
			require.NoError(t, err)
			start, ok := m.ExportedFunc("_start")
			require.True(t, ok)
			before, err := DecodeInstructions(m.Function(start).Body)
			require.NoError(t, err)

			d, err := m.DetachSegment(1)
			require.NoError(t, err)
			assert.Equal(t, uint32(1), d.Index)
			assert.Equal(t, c.program, string(d.Bytes))
			out, err := m.Encode()
			require.NoError(t, err)
			detached = append(detached, out)

			m2, err := Decode(out)
			require.NoError(t, err)
			seg, ok := m2.DetachedSegmentIndex()
			require.True(t, ok)
			assert.Equal(t, uint32(1), seg)
			assert.Empty(t, m2.Data[1].Init)
			assert.Equal(t, "unrelated", string(m2.Data[0].Init), "other segments stay")
			after, err := DecodeInstructions(m2.Function(start).Body)
			require.NoError(t, err)
			require.Len(t, after, len(before), "one instruction for one")
			var ops []Opcode
			for i := range before {
				if before[i].Op != after[i].Op {
					ops = append(ops, before[i].Op, after[i].Op)
				}
			}
			assert.Equal(t, []Opcode{
				OpI32Const, OpGlobalGet, // realloc's size
				OpI32Const, OpGlobalGet, // the source offset: the host's copy
				OpI32Const, OpGlobalGet, // memory.init's length
				OpMemoryInit, OpMemoryCopy,
				OpI32Const, OpGlobalGet, // run's length
			}, ops)

			assert.Equal(t, byteSum(c.program), runDetachModule(t, out, d))
		})
	}
	require.Len(t, detached, 2)
	assert.Equal(t, detached[0], detached[1], "the program is no longer in the module")
}

func TestDetachSegmentRefuses(t *testing.T) {
	cases := []struct {
		name string
		seg  uint32
		edit func(m *Module)
		want string
	}{
		{"no such segment", 7, nil, "no data segment 7"},
		{"nothing copies it", 0, nil, "no function copies data segment 0"},
		{"active segment", 1, func(m *Module) {
			m.Data[1].Mode, m.Data[1].Offset = DataActive, ConstI32(0)
		}, "not passive"},
		{"partial copy", 1, func(m *Module) {
			m.Data[1].Init = append(m.Data[1].Init, '!')
		}, "does not copy all of it"},
		{"detached already", 1, func(m *Module) {
			_, err := m.DetachSegment(1)
			if err != nil {
				panic(err)
			}
		}, "detached already"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			orig := mustRead(t, "testdata/detach.wasm")
			m, err := Decode(orig)
			require.NoError(t, err)
			if c.edit != nil {
				c.edit(m)
			}
			snapshot, err := m.Encode()
			require.NoError(t, err)
			_, err = m.DetachSegment(c.seg)
			require.ErrorContains(t, err, c.want)
			after, err := m.Encode()
			require.NoError(t, err)
			assert.Equal(t, snapshot, after, "a refusal leaves the module as it was")
		})
	}
}
