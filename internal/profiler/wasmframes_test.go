package profiler_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/wasmcore"
)

// staticProgram builds fixtures/js/NAME.js into a static module with a
// plugin, compiled through cache (fixtures.CompilationCache: a test that
// keeps one for its runs compiles each module once).
func staticProgram(t *testing.T, cache wazero.CompilationCache, plugin, name string) []byte {
	t.Helper()
	ctx := context.Background()
	wasm := fixtures.EngineBytes(t, plugin)
	m, err := wasmcore.Decode(wasm)
	require.NoError(t, err)
	p, err := javy.Inspect(m)
	require.NoError(t, err)
	src, err := os.ReadFile(fixtures.Path("js", name+".js"))
	require.NoError(t, err)
	bc, err := javy.Compile(ctx, p, wasm, src, cache)
	require.NoError(t, err)
	static, err := javy.BuildStatic(ctx, wasm, p, bc, cache)
	require.NoError(t, err)
	return static
}

// layers counts a profile's stacks (weighted by instructions) by where
// their Wasm frames are: above the first JS or native frame, between two
// of them, below the innermost.
type layers struct{ above, between, below, outside uint64 }

func layersOf(p *jsprofile.Profile) layers {
	var l layers
	var stack []jsprofile.StackFrame
	for _, s := range p.Sample {
		instr := uint64(s.Value[jsprofile.ValueInstructions])
		stack = p.Stack(s, stack) // leaf first
		first, last := -1, -1     // root-first positions of JS/native frames
		n := len(stack)
		for i := n - 1; i >= 0; i-- {
			if k := stack[i].Kind; k == jsprofile.KindJS || k == jsprofile.KindNative {
				if first < 0 {
					first = n - 1 - i
				}
				last = n - 1 - i
			}
		}
		var above, between, below bool
		for i := n - 1; i >= 0; i-- {
			if stack[i].Kind != jsprofile.KindWasm {
				continue
			}
			pos := n - 1 - i
			switch {
			case first < 0:
				l.outside += instr
			case pos < first:
				above = true
			case pos > last:
				below = true
			default:
				between = true
			}
			if first < 0 {
				break
			}
		}
		if above {
			l.above += instr
		}
		if between {
			l.between += instr
		}
		if below {
			l.below += instr
		}
	}
	return l
}

// TestExactWasmFrames: the default exact profile has Wasm frames above,
// between and below its JS frames, from both Javy plugins, while every
// JS, opcode, line, native and bucket figure is what exact mode without
// Wasm frames measures, and the samples still add up to the total.
func TestExactWasmFrames(t *testing.T) {
	cache := fixtures.CompilationCache(t)
	for _, plugin := range []string{"javy-plugin-1.7.0", "javy-plugin-1.1.0"} {
		t.Run(plugin, func(t *testing.T) {
			wasm := staticProgram(t, cache, plugin, "comparator")
			run := func(noWasm bool) *profiler.Outcome {
				var stdout bytes.Buffer
				out, res, err := profiler.Profile(context.Background(), wasm,
					runner.Options{Name: "comparator.wasm", Stdout: &stdout, Cache: cache, Deterministic: true},
					profiler.Options{Source: "comparator.js", NoWasmFrames: noWasm})
				require.NoError(t, err)
				require.Nil(t, res.Trap)
				require.Empty(t, out.Warnings)
				return out
			}
			with, without := run(false), run(true)

			assert.Equal(t, without.Tables.Opcodes, with.Tables.Opcodes)
			assert.Equal(t, without.Tables.Functions, with.Tables.Functions)
			assert.Equal(t, without.Tables.Lines, with.Tables.Lines)
			assert.Equal(t, without.Tables.Buckets, with.Tables.Buckets)
			assert.Equal(t, with.Results.TotalInstructions, with.Tables.SampledWasmInstructions)

			p, err := jsprofile.Read(with.Profile)
			require.NoError(t, err)
			assert.True(t, p.Meta.WasmApportioned())
			assert.Greater(t, p.Meta.WasmStacks, uint64(100))
			l := layersOf(p)
			t.Logf("%+v of %d instructions, apportioned from %d Wasm stacks", l, with.Results.TotalInstructions, p.Meta.WasmStacks)
			total := with.Results.TotalInstructions
			// Every sampled JS stack has its entry point above it; the
			// comparators run under Array.prototype.sort, its Wasm between;
			// the handlers' helpers below.
			assert.Greater(t, l.above, total/2, "above")
			assert.Greater(t, l.between, total/100, "between")
			assert.Greater(t, l.below, total/5, "below") // 24% under fuel, entries charged
			assert.Greater(t, l.outside, uint64(0), "outside JS")

			pn, err := jsprofile.Read(without.Profile)
			require.NoError(t, err)
			assert.False(t, pn.Meta.WasmApportioned())
			assert.Equal(t, layers{}, layersOf(pn))
			roots := map[string]bool{}
			for _, s := range with.Profile.Sample {
				require.GreaterOrEqual(t, len(s.Location), 2)
				// under the phase frame
				root := s.Location[len(s.Location)-2].Line[0].Function.Name
				roots[root] = true
			}
			assert.True(t, roots["_start"] || roots["_start.command_export"], "a stack starts at the entry point: %v", keys(roots))
		})
	}
}

func keys(m map[string]bool) string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return strings.Join(out, ", ")
}
