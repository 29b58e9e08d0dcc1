package meter_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/internal/measure/meter"
	"github.com/jsprof/jsprof/internal/name/natives"
	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/wasmcore"
)

// nativesJS calls natives a known number of times: Array.prototype.sort 3
// times with a JS comparator, Math.max and Math.min once each (one C
// function, told apart by its magic).
const nativesJS = `
function cmp(a, b) { return a - b; }
const xs = [5, 3, 9, 1];
for (let i = 0; i < 3; i++) xs.slice().sort(cmp);
const m = Math.max(1, 2) + Math.min(3, 4);
if (m !== 5) throw new Error("wrong: " + m);
`

// nativeCallsOf locates js_call_c_function in a module built by
// engineModule, as internal/profiler does.
func nativeCallsOf(t *testing.T, plugin string) (*meter.NativeCalls, *natives.Catalogue) {
	t.Helper()
	m, err := wasmcore.Decode(fixtures.EngineBytes(t, plugin))
	require.NoError(t, err)
	r, err := dispatch.Analyze(context.Background(), m)
	require.NoError(t, err)
	c, err := natives.FindCFunctionCalls(m, r)
	require.NoError(t, err)
	cat, err := natives.Scan(m, r)
	require.NoError(t, err)
	n := &meter.NativeCalls{Func: c.Func, TableIndex: c.TableIndex, FuncOffset: c.FuncOffset, MagicOffset: c.MagicOffset, HasMagic: true}
	for _, s := range c.ClassCalls {
		n.ClassCalls = append(n.ClassCalls, s.BodyOffset)
	}
	return n, cat
}

// TestNativesCounted: each native call is charged to the native's block in
// its caller's context, keyed by table index and magic; the comparator a
// sort calls back is a context under the sort's; the parts add up.
func TestNativesCounted(t *testing.T) {
	for _, plugin := range []string{"javy-plugin-1.7.0", "javy-plugin-1.1.0"} {
		t.Run(plugin, func(t *testing.T) {
			n, cat := nativeCallsOf(t, plugin)
			wasm, plan := engineModule(t, plugin, nativesJS, meter.Options{Natives: n})
			mt, res := engineRun(context.Background(), t, wasm, plan, runner.Options{})
			require.Nil(t, res.Trap)
			r, err := mt.Collect()
			require.NoError(t, err)
			require.NoError(t, r.Check())

			// name names a native by the catalogue, "" when several
			// builtins share its C function and magic.
			name := func(nc costs.NativeCost) string {
				if ns := cat.ByCall(nc.TableIndex, nc.Magic); len(ns) == 1 && !nc.Unidentified {
					return ns[0].Name
				}
				return ""
			}
			calls := map[string]uint64{}
			for _, nc := range r.Natives {
				calls[name(nc)] += nc.Calls
			}
			assert.Equal(t, uint64(3), calls["Array.prototype.sort"])
			assert.Equal(t, uint64(3), calls["Array.prototype.slice"])
			assert.Equal(t, uint64(1), calls["Math.max"])
			assert.Equal(t, uint64(1), calls["Math.min"])

			// JS called back from a native: only the comparator, under
			// the sort, called from JS.
			underNative := map[string]uint64{}
			for _, c := range r.Contexts {
				if c.IsNative() || c.Parent < 0 || !r.Contexts[c.Parent].IsNative() {
					continue
				}
				p := r.Contexts[c.Parent]
				underNative[name(r.Natives[p.Native])] += c.Calls
				assert.False(t, c.HasCallSite, "a native has no pc to call from")
				assert.True(t, p.HasCallSite, "the sort's call site is a pc of its JS caller")
				assert.False(t, r.Contexts[p.Parent].IsNative(), "the sort is called from JS")
			}
			require.Len(t, underNative, 1)
			assert.Positive(t, underNative["Array.prototype.sort"], "the comparator's calls")
		})
	}
}

// TestNativesRejected: Instrument refuses a natives' caller it cannot
// instrument, rather than rewrite the wrong function.
func TestNativesRejected(t *testing.T) {
	n, _ := nativeCallsOf(t, "javy-plugin-1.7.0")
	m, err := wasmcore.Decode(fixtures.EngineBytes(t, "javy-plugin-1.7.0"))
	require.NoError(t, err)
	r, err := dispatch.Analyze(context.Background(), m)
	require.NoError(t, err)
	tests := []struct {
		name string
		edit func(*meter.NativeCalls)
		want string
	}{
		{"the dispatch function", func(c *meter.NativeCalls) { c.Func = r.Dispatch.FunctionIndex }, "is not a defined function other than the dispatch function"},
		{"an import", func(c *meter.NativeCalls) { c.Func = 0 }, "is not a defined function"},
		{"no function object", func(c *meter.NativeCalls) { c.Func = r.Dispatch.FunctionIndex + 1 }, "no function object in its second parameter"},
		{"no class call there", func(c *meter.NativeCalls) { c.ClassCalls = []uint32{0} }, "no call_indirect at body offset 0x0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := *n
			tt.edit(&c)
			m, err := wasmcore.Decode(fixtures.EngineBytes(t, "javy-plugin-1.7.0"))
			require.NoError(t, err)
			_, err = meter.Instrument(m, r.Dispatch, meter.Options{Natives: &c})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
