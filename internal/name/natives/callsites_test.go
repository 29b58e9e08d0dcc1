package natives_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/internal/name/natives"
	"github.com/jsprof/jsprof/wasmcore"
)

// TestFindCFunctionCalls finds where the engine calls natives: the name
// section confirms js_call_c_function where there is one, and every
// optimized build of both families keeps the C function's table index,
// cproto and magic at the same offsets of the function object.
func TestFindCFunctionCalls(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			m := loadEngine(t, e.name)
			r, err := dispatch.Analyze(context.Background(), m)
			require.NoError(t, err)
			c, err := natives.FindCFunctionCalls(m, r)
			if e.natives == 0 || e.name == "jitl-debug-0.32.0" {
				// Not QuickJS; or -O0, where the fields go through stack slots.
				assert.ErrorIs(t, err, natives.ErrNoCFunctionCall)
				return
			}
			require.NoError(t, err)
			if e.named {
				assert.Equal(t, "js_call_c_function", m.FuncName(c.Func))
			}
			assert.Equal(t, uint32(36), c.FuncOffset, "JSObject.u.cfunc.c_function")
			assert.Equal(t, uint32(41), c.CProtoOffset, "JSObject.u.cfunc.cproto")
			assert.Equal(t, uint32(42), c.MagicOffset, "JSObject.u.cfunc.magic")
			assert.Len(t, c.Sites, 9, "one call per argument shape: the 13 calling conventions share 9")
			f, ok := resolve(m, c.TableIndex)
			assert.True(t, ok)
			assert.Equal(t, c.Func, f)
			if assert.Len(t, c.ClassCalls, 1) {
				body := m.Function(r.Dispatch.FunctionIndex)
				cc := c.ClassCalls[0]
				assert.Equal(t, body.BodyOffset+cc.BodyOffset, cc.Offset)
			}
			for _, s := range c.Sites {
				in := instrAt(t, m, c.Func, s.BodyOffset)
				assert.Equal(t, wasmcore.OpCallIndirect, in.Op)
			}
			t.Logf("%s: js_call_c_function = func %d (table %d), %d call_indirect sites from %#x; interpreter's class call at %#x",
				e.name, c.Func, c.TableIndex, len(c.Sites), c.Sites[0].Offset, c.ClassCalls[0].Offset)
		})
	}
}

func instrAt(t *testing.T, m *wasmcore.Module, fi, off uint32) wasmcore.Instr {
	ins, err := wasmcore.DecodeInstructions(m.Function(fi).Body)
	require.NoError(t, err)
	for _, in := range ins {
		if in.Offset == off {
			return in
		}
	}
	t.Fatalf("no instruction at %#x of function %d", off, fi)
	return wasmcore.Instr{}
}
