package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// cartInput writes a Shopify Function input with n cart lines.
func cartInput(t *testing.T, n int) string {
	t.Helper()
	type line struct {
		Quantity    int               `json:"quantity"`
		Merchandise map[string]string `json:"merchandise"`
	}
	lines := make([]line, n)
	for i := range lines {
		lines[i] = line{Quantity: i%5 + 1, Merchandise: map[string]string{"id": fmt.Sprintf("gid://shopify/ProductVariant/%d", i+1)}}
	}
	b, err := json.Marshal(map[string]any{"hello": "world", "cart": map[string]any{"lines": lines}})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), fmt.Sprintf("input-%d.json", n))
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path
}

// wasmPlaces says where a profile's Wasm frames are, over all its stacks:
// above the outermost JS or native frame, between two, below the
// innermost, or in a stack with none.
func wasmPlaces(p *jsprofile.Profile) (above, between, below, outside bool) {
	var stack []jsprofile.StackFrame
	for _, s := range p.Sample {
		stack = p.Stack(s, stack) // leaf first
		first, last := -1, -1
		for i, f := range stack {
			if f.Kind == jsprofile.KindJS || f.Kind == jsprofile.KindNative {
				if last < 0 {
					last = i
				}
				first = i
			}
		}
		for i, f := range stack {
			if f.Kind != jsprofile.KindWasm {
				continue
			}
			switch {
			case first < 0:
				outside = true
			case i > first:
				above = true
			case i < last:
				below = true
			default:
				between = true
			}
		}
	}
	return above, between, below, outside
}

// TestShopifyPhases: a Shopify Function's exact profile, on a provider
// that decodes the input in a host function (ShopifyFunction.readInput),
// has Wasm frames above, between and below its JS frames; its phases add
// up to the call's total, and input decoding is a phase of its own that
// grows with the input while the engine's start-up does not.
func TestShopifyPhases(t *testing.T) {
	dir := fixtures.ProvidersDir(t)
	module := buildFunction(t, "shopify_functions_javy_v3", filepath.Join("testdata", "shopify", "shopify_function.js"))
	phases := map[int]map[string]uint64{}
	for _, n := range []int{2, 200} {
		out := filepath.Join(t.TempDir(), "jsprof.pb.gz")
		got := jsprof(t, "", "run", "-q", "--plugin", dir, "--input", cartInput(t, n), "-o", out, module)
		require.Equal(t, 0, got.code, got.stderr)
		p, err := jsprofile.ReadFile(out)
		require.NoError(t, err)
		assert.True(t, p.Meta.WasmApportioned())
		above, between, below, outside := wasmPlaces(p)
		assert.True(t, above, "Wasm frames above the JS frames")
		assert.True(t, between, "Wasm frames between JS frames (map's callback under Array.prototype.map)")
		assert.True(t, below, "Wasm frames below the opcodes")
		assert.True(t, outside, "Wasm frames outside JS")

		d := report.New(p)
		phases[n] = map[string]uint64{}
		var sum uint64
		for _, ph := range d.Phases {
			phases[n][ph.Name] = ph.WasmInstructions
			sum += ph.WasmInstructions
		}
		assert.Equal(t, d.TotalWasmInstructions, sum, "the phases add up")
		for _, name := range []string{jsprofile.PhaseStartup, jsprofile.PhaseInput, jsprofile.PhaseJS, jsprofile.PhaseOutput} {
			assert.NotZero(t, phases[n][name], name)
		}
	}
	small, large := phases[2], phases[200]
	t.Logf("2 lines: %v; 200 lines: %v", small, large)
	assert.Greater(t, large[jsprofile.PhaseInput], 20*small[jsprofile.PhaseInput], "input decoding grows with the input")
	assert.InEpsilon(t, small[jsprofile.PhaseStartup], large[jsprofile.PhaseStartup], 0.01, "start-up does not")
	var total uint64
	for _, v := range large {
		total += v
	}
	assert.Greater(t, large[jsprofile.PhaseInput], total/3, "a large input's decoding is the largest part")
}

// phaseOfNative is the phase each named native's stacks are rooted at,
// over the profile's stacks (a native under two phases: the last seen).
func phaseOfNative(t *testing.T, path string) map[string]string {
	t.Helper()
	p, err := jsprofile.ReadFile(path)
	require.NoError(t, err)
	out := map[string]string{}
	var stack []jsprofile.StackFrame
	for _, s := range p.Sample {
		stack = p.Stack(s, stack) // leaf first
		root := stack[len(stack)-1]
		for _, f := range stack {
			if f.Kind == jsprofile.KindNative {
				out[f.Function.Name] = strings.TrimPrefix(root.Function.Name, jsprofile.PhasePrefix)
				break
			}
		}
	}
	return out
}

// TestPhasesByWhatTheCodeDid: a plain Javy program's JSON.parse and
// JSON.stringify of its own data are the JS program's, with no input or
// output phase; a function that reads its input with Javy.IO.readSync and
// parses what it read has that JSON.parse in input decoding, and the
// JSON.stringify of what it writes in output encoding (the negative
// control: the phases are still told). On javy_quickjs_provider_v3,
// Javy.IO.readSync is the engine's own JS around a host function: the
// read is told by what the program's call site called.
func TestPhasesByWhatTheCodeDid(t *testing.T) {
	t.Parallel()
	t.Run("own data", func(t *testing.T) {
		t.Parallel()
		module := buildJS(t, filepath.Join("testdata", "ownjson.js"))
		dir := t.TempDir()
		prof, doc := filepath.Join(dir, "p.pb.gz"), filepath.Join(dir, "r.json")
		got := jsprof(t, "", "run", "-q", "-o", prof, "--report-json", doc, module)
		require.Equal(t, 0, got.code, got.stderr)
		assert.Equal(t, "8981\n", got.stdout)
		rep := readRunReport(t, doc)
		var names []string
		for _, p := range rep.Phases {
			names = append(names, p.Name)
		}
		assert.Contains(t, names, jsprofile.PhaseJS)
		assert.NotContains(t, names, jsprofile.PhaseInput)
		assert.NotContains(t, names, jsprofile.PhaseOutput)
		natives := phaseOfNative(t, prof)
		assert.Equal(t, jsprofile.PhaseJS, natives["JSON.parse"], "natives: %v", natives)
		assert.Equal(t, jsprofile.PhaseJS, natives["JSON.stringify"], "natives: %v", natives)
	})
	t.Run("the input read and parsed", func(t *testing.T) {
		t.Parallel()
		module := buildFunction(t, "javy_quickjs_provider_v3", fixtures.Path("shopify", "javy_io.js"))
		prof := filepath.Join(t.TempDir(), "p.pb.gz")
		got := jsprof(t, "", "run", "-q", "--plugin", fixtures.ProvidersDir(t), "--input", "testdata/shopify/input.json", "-o", prof, module)
		require.Equal(t, 0, got.code, got.stderr)
		natives := phaseOfNative(t, prof)
		assert.Equal(t, jsprofile.PhaseInput, natives["JSON.parse"], "natives: %v", natives)
		assert.Equal(t, jsprofile.PhaseOutput, natives["JSON.stringify"], "natives: %v", natives)
		assert.Equal(t, jsprofile.PhaseJS, natives["Array.prototype.sort"], "the program's own work: natives %v", natives)
	})
}

// TestEngineWorkInsideOpcodes: a program that parses a big object in a
// function and returns spends return_undef's cost freeing the object
// (issue 39: "return_undef, 3 executions, 1.95M instructions"). On an
// engine with a name section (the Javy 1.1.0 plugin) the report, its JSON
// and the HTML's costliest opcode card say that most of it is the engine
// freeing; on a stripped engine (1.7.0) nothing is told, nor guessed.
func TestEngineWorkInsideOpcodes(t *testing.T) {
	t.Parallel()
	const src = `const text = "[" + new Array(5000).fill('{"a":1,"b":[1,2,3],"c":{"d":"x"}}').join(",") + "]";
function run() { const orders = JSON.parse(text); }
run();
`
	for _, tt := range []struct {
		plugin string
		named  bool
	}{{"javy-plugin-1.1.0", true}, {"javy-plugin-1.7.0", false}} {
		t.Run(tt.plugin, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			module, prof, page := filepath.Join(dir, "index.wasm"), filepath.Join(dir, "p.pb.gz"), filepath.Join(dir, "p.html")
			require.NoError(t, os.WriteFile(module, buildSource(t, tt.plugin, src), 0o644))
			got := jsprof(t, "", "run", "-q", "-o", prof, module)
			require.Equal(t, 0, got.code, got.stderr)

			got = jsprof(t, "", "report", "--json", prof)
			require.Equal(t, 0, got.code, got.stderr)
			var doc struct {
				Opcodes []struct {
					Name             string            `json:"name"`
					WasmInstructions uint64            `json:"wasm_instructions"`
					EngineWork       map[string]uint64 `json:"engine_work"`
				} `json:"opcodes"`
			}
			require.NoError(t, json.Unmarshal([]byte(got.stdout), &doc))
			require.NotEmpty(t, doc.Opcodes)
			top := doc.Opcodes[0]
			require.Equal(t, "return_undef", top.Name, "the costliest opcode")
			require.Greater(t, top.WasmInstructions, uint64(1_000_000))

			text := jsprof(t, "", "report", prof)
			require.Equal(t, 0, text.code, text.stderr)
			html := jsprof(t, "", "report", "--html", page, prof)
			require.Equal(t, 0, html.code, html.stderr)
			b, err := os.ReadFile(page)
			require.NoError(t, err)
			if !tt.named {
				assert.Empty(t, top.EngineWork, "a stripped engine's work is not guessed")
				assert.NotContains(t, text.stdout, "of which")
				assert.NotContains(t, string(b), "engine-work\"")
				return
			}
			freeing := top.EngineWork[jsprofile.EngineFreeing]
			assert.Greater(t, freeing, top.WasmInstructions*9/10, "return_undef's cost is freeing the parsed object")
			assert.LessOrEqual(t, freeing, top.WasmInstructions)
			assert.Regexp(t, `(?m)^engine work inside opcodes .*\n\s+return_undef\s+[0-9.]+M,\s+of which [0-9.]+M freeing \(engine\)$`, text.stdout)
			assert.Regexp(t, `costliest opcode</span><b>return_undef</b>[^<]*<span class="sub">[^<]*<span class="engine-work"[^>]*>[0-9.]+M in all, of which [0-9.]+M freeing \(engine\)</span>`, string(b))
		})
	}
}
