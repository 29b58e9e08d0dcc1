package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/measure/meter"
	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/internal/run/shopify"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/wasmcore"
)

const wantOutput = `{"hello":"world output","total":5,"ids":["gid://shopify/ProductVariant/1","gid://shopify/ProductVariant/2"]}` + "\n"

// buildFunction builds src against a provider with jsprof build --dynamic,
// as javy build -C dynamic -C plugin=PROVIDER does.
func buildFunction(t testing.TB, provider, src string) string {
	t.Helper()
	module := filepath.Join(t.TempDir(), "function.wasm")
	got := jsprof(t, "", "build", "--dynamic", "--plugin", filepath.Join(fixtures.ProvidersDir(t), provider+".wasm"), src, "-o", module)
	require.Equal(t, 0, got.code, got.stderr)
	return module
}

// TestShopifyProviders: function-runner's fixture behaviour on each of its
// seven JS providers: a function built for it runs with a JSON input (the
// codec and I/O the provider wants), prints the expected JSON output on
// stdout and its logs on stderr, and is profiled with JS names; the JSON
// report has Shopify's limits, and, for in-memory providers, the work
// before and after the call, counted apart from the total.
func TestShopifyProviders(t *testing.T) {
	t.Parallel()
	dir := fixtures.ProvidersDir(t)
	shopifyFunction := filepath.Join("testdata", "shopify", "shopify_function.js")
	// The project's one function for the JSON providers: it reads its
	// input with Javy.IO, computes fib(15), writes its output and logs.
	javyIO := fixtures.Path("shopify", "javy_io.js")
	const wantJavyIOOutput = `{"hello":"world output","total":5,"ids":["gid://shopify/ProductVariant/1","gid://shopify/ProductVariant/2"],"fib":610}` + "\n"
	tests := []struct {
		provider, js, codec, output string
		// inMemory: the provider's initialize and finalize run outside
		// the call; WASI providers run nothing there.
		inMemory bool
	}{
		{"javy_quickjs_provider_v1", javyIO, "json", wantJavyIOOutput, false},
		{"javy_quickjs_provider_v2", javyIO, "json", wantJavyIOOutput, false},
		{"javy_quickjs_provider_v3", javyIO, "json", wantJavyIOOutput, false},
		{"shopify_functions_javy_v1", javyIO, "json", wantJavyIOOutput, false},
		{"shopify_functions_javy_v2", shopifyFunction, "messagepack", wantOutput, false},
		{"shopify_functions_javy_v3", shopifyFunction, "messagepack", wantOutput, true},
		{"shopify_functions_javy_v4", shopifyFunction, "messagepack", wantOutput, true},
	}
	for _, tt := range tests {
		t.Run(tt.provider, func(t *testing.T) {
			module := buildFunction(t, tt.provider, tt.js)
			doc := filepath.Join(t.TempDir(), "report.json")
			got := jsprof(t, "", "run", "-q", "--plugin", dir, "--input", "testdata/shopify/input.json", "--report-json", doc, module)
			require.Equal(t, 0, got.code, got.stderr)
			assert.Equal(t, tt.output, got.stdout)
			assert.Contains(t, got.stderr, "lines: 2")
			assert.Contains(t, got.stderr, "jsprof: _start ("+tt.provider+", "+tt.codec+"): Instructions: ")
			assert.Contains(t, got.stderr, "(fuel) of 11M; Linear Memory Usage: ")

			rep := readRunReport(t, doc)
			assert.Equal(t, "fuel", rep.CostModel)
			assert.Equal(t, "_start", rep.Run.Export)
			assert.Equal(t, tt.provider, rep.Run.Provider)
			assert.Equal(t, tt.codec, rep.Run.Codec)
			assert.Positive(t, rep.Run.Input)
			assert.Positive(t, rep.Run.Output)
			assert.Positive(t, rep.Total)
			assert.Equal(t, &jsprofile.Limits{Instructions: 11_000_000, InputBytes: 128_000, OutputBytes: 20_000}, rep.Run.Limits,
				"function-runner's limits (function_run_result.rs), none exceeded")
			if !tt.inMemory {
				assert.Zero(t, rep.Run.Startup)
				assert.Zero(t, rep.Run.Finish)
				return
			}
			assert.Positive(t, rep.Run.Startup, "initialize and the input's copy")
			assert.Positive(t, rep.Run.Finish, "finalize")
			// What the phases of the profile add up to is the total: the
			// work before and after the call is none of them.
			var phases uint64
			for _, p := range rep.Phases {
				phases += p.WasmInstructions
			}
			assert.Equal(t, rep.Total, phases)
			// An independent count of the same run (wasmcore's counter
			// alone, in the provider and the function alike, no meter)
			// splits it the same way: the call, and apart from it the
			// same work before and after.
			wasm, err := os.ReadFile(module)
			require.NoError(t, err)
			counted := countFunction(t, wasm, true, profiler.Options{Cost: wasmcore.CostFuel})
			assert.Equal(t, rep.Run.Startup, counted.Run.StartupInstructions)
			assert.Equal(t, rep.Run.Finish, counted.Run.FinishInstructions)
			assert.Equal(t, counted.Total, rep.Total, "the call's count, the function's own _start included, as function-runner counts it")
			var own uint64
			for _, b := range rep.Buckets {
				if b.Name == jsprofile.BucketModuleCode {
					own = b.WasmInstructions
				}
			}
			assert.Equal(t, straightLineFuel(t, wasm, "_start"), own, "the function's own _start, a bucket of its own")
		})
	}
}

// runReport is what the tests read of --report-json.
type runReport struct {
	Total     uint64 `json:"total_wasm_instructions"`
	CostModel string `json:"cost_model"`
	Run       struct {
		Export   string            `json:"export"`
		Provider string            `json:"provider"`
		Codec    string            `json:"codec"`
		Input    uint64            `json:"input_bytes"`
		Output   uint64            `json:"output_bytes"`
		Memory   uint64            `json:"linear_memory_bytes"`
		Startup  uint64            `json:"startup_wasm_instructions"`
		Finish   uint64            `json:"finish_wasm_instructions"`
		Limits   *jsprofile.Limits `json:"limits"`
	} `json:"run"`
	Phases  []report.BucketCost `json:"phases"`
	Buckets []report.BucketCost `json:"buckets"`
	// With several inputs, and --input-cost.
	Inputs    []report.InputRun  `json:"inputs"`
	InputCost []report.InputCost `json:"input_cost"`
}

func readRunReport(t *testing.T, path string) runReport {
	t.Helper()
	var r runReport
	require.NoError(t, json.Unmarshal([]byte(readFileText(t, path)), &r))
	return r
}

// TestShopifyMainABI: a 2021-2022 Javy module (shopify_main, shopify_v1
// host functions, MessagePack) runs with its input, and its output comes
// back as JSON.
func TestShopifyMainABI(t *testing.T) {
	input := filepath.Join(t.TempDir(), "in.json")
	require.NoError(t, os.WriteFile(input, []byte(`{"a": [1, 2.5, "x/y"], "b": null}`), 0o644))
	got := jsprof(t, "", "run", "--input", input, "testdata/shopify_main.wasm")
	require.Equal(t, 0, got.code, got.stderr)
	assert.Equal(t, `{"a":[1,2.5,"x/y"],"b":null}`+"\n", got.stdout)
	assert.Contains(t, got.stderr, "shopify_main (shopify_v1, messagepack)")
}

// TestShopifyErrors: what a function author gets wrong is one clear line
// and exit 1 (2 for a bad command line).
func TestShopifyErrors(t *testing.T) {
	dir := fixtures.ProvidersDir(t)
	v3 := buildFunction(t, "shopify_functions_javy_v3", filepath.Join("testdata", "shopify", "shopify_function.js"))
	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"cart": [1, 2`), 0o644))
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"invalid JSON", []string{"--plugin", dir, "--input", bad, v3}, cli.ExitFailure, "input " + bad + ": "},
		{"missing input", []string{"--plugin", dir, "--input", "/nonexistent/in.json", v3}, cli.ExitFailure, "--input: stat /nonexistent/in.json: no such file or directory"},
		{"WASI with an in-memory provider", []string{"--plugin", dir, "testdata/wasi_inmemory.wasm"}, cli.ExitFailure, "imports shopify_functions_javy_v3, whose I/O is in memory, and WASI"},
		{"no such export", []string{"--plugin", dir, "--input", "testdata/shopify/input.json", "-e", "nope", v3}, cli.ExitFailure, "no export nope to run"},
		{"no provider given", []string{"--input", "testdata/shopify/input.json", v3}, cli.ExitFailure, "the function imports provider shopify_functions_javy_v3: give its file"},
		{"wrong provider", []string{"--plugin", filepath.Join(dir, "shopify_functions_javy_v4.wasm"), "--input", "testdata/shopify/input.json", v3}, cli.ExitFailure,
			"is shopify_functions_javy_v4 (by its import_namespace section), but the function imports shopify_functions_javy_v3"},
		{"bad codec", []string{"--codec", "xml", v3}, cli.ExitUsage, "--codec"},
		{"bad cost model", []string{"--cost", "time", v3}, cli.ExitUsage, `--cost "time": want fuel or all`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := jsprof(t, "", append([]string{"run"}, tt.args...)...)
			assert.Equal(t, tt.code, got.code, got.stderr)
			assert.Contains(t, got.stderr, tt.want)
			assert.Empty(t, got.stdout)
			assert.Regexp(t, `^jsprof: [^\n]+\n$`, got.stderr, "one line")
		})
	}
}

// counted is what countFunction measured.
type counted struct {
	Total   uint64 // the export call's instructions
	Run     jsprofile.RunInfo
	Printed string // what the function printed (its output as JSON)
	Buckets map[string]uint64
}

// countFunction runs a module as jsprof run does (a Shopify Function with
// testdata/shopify/input.json, linked against function-runner's providers)
// with opts: profiled, or, with countOnly, counted by wasmcore's counter
// alone (profiler.PrepareCount), whatever the module holds.
func countFunction(t *testing.T, wasm []byte, countOnly bool, opts profiler.Options) counted {
	t.Helper()
	var stdout bytes.Buffer
	opts.CountOnly = countOnly
	done, err := profiler.Execute(context.Background(), profiler.Job{Module: wasm, Plugins: []string{fixtures.ProvidersDir(t)}, Input: "testdata/shopify/input.json",
		Guest:   runner.Options{Name: "function.wasm", Stdout: &stdout, Cache: fixtures.CompilationCache(t), Deterministic: true},
		Profile: opts, NeedProfile: true})
	require.NoError(t, err)
	require.Nil(t, done.Guest.Trap)
	out := done.Outcome
	require.Empty(t, out.Warnings)
	c := counted{Total: out.Tables.TotalWasmInstructions, Run: out.Tables.Run, Printed: stdout.String(), Buckets: map[string]uint64{}}
	for _, b := range out.Tables.Buckets {
		c.Buckets[b.Name] = b.WasmInstructions
	}
	return c
}

// straightLineFuel is the fuel of one run of an exported function without
// a branch or a loop (jsprof build --dynamic's _start, which hands the
// program to the provider), counted from its code: its entry and each
// instruction's cost under the fuel rule, once.
func straightLineFuel(t *testing.T, wasm []byte, export string) uint64 {
	t.Helper()
	m, err := wasmcore.Decode(wasm)
	require.NoError(t, err)
	idx, ok := m.ExportedFunc(export)
	require.True(t, ok, "no export %s", export)
	code, err := wasmcore.DecodeInstructions(m.Function(idx).Body)
	require.NoError(t, err)
	fuel := uint64(wasmcore.CostFuel.EntryCost())
	for _, in := range code {
		switch in.Op {
		case wasmcore.OpLoop, wasmcore.OpIf, wasmcore.OpBr, wasmcore.OpBrIf, wasmcore.OpBrTable:
			require.Fail(t, "not straight-line code", "%s has %v", export, in.Op)
		}
		fuel += uint64(wasmcore.CostFuel.Cost(in.Op))
	}
	return fuel
}

// TestFuelEqualsPerInstruction: the headline count under the fuel rule
// (the function's instantiation and export call) equals an independent per-instruction count under
// the same rule, on a static module, on a dynamic module with its
// in-memory provider, and, counted only, on a function of the Wasm API
// (no JS interpreter anywhere).
func TestFuelEqualsPerInstruction(t *testing.T) {
	t.Parallel()
	static := buildJS(t, fixtures.Path("js", "fib.js"))
	dynamic := buildFunction(t, "shopify_functions_javy_v3", filepath.Join("testdata", "shopify", "shopify_function.js"))
	for _, tt := range []struct{ name, module, output string }{
		{"static", static, "fib(20) = 6765\n"},
		{"dynamic in memory", dynamic, wantOutput},
		{"Wasm API, counted only", filepath.Join("testdata", "wasm_api_v2.wasm"), "1\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wasm, err := os.ReadFile(tt.module)
			require.NoError(t, err)
			count := func(opts meter.Options) counted {
				return countFunction(t, wasm, false, profiler.Options{Meter: &opts})
			}
			fast := count(meter.Options{Checkpoints: true, Cost: wasmcore.CostFuel})
			assert.Equal(t, tt.output, fast.Printed)
			slow := count(meter.Options{Checkpoints: true, PerInstruction: true, Cost: wasmcore.CostFuel})
			all := count(meter.Options{Checkpoints: true, Cost: wasmcore.CostAll})
			assert.Equal(t, slow.Total, fast.Total, "fuel: fast and per-instruction counts agree")
			// Fuel charges nothing for nop, drop, return and unreachable
			// and one per function entry: near CostAll's count, not it.
			assert.NotEqual(t, all.Total, fast.Total)
			assert.InEpsilon(t, all.Total, fast.Total, 0.1)
		})
	}
}

// TestCompareProviders: the same function and input on two providers —
// QuickJS 2024 (shopify_functions_javy_v3) against QuickJS-NG
// (shopify_functions_javy_v4) — what moving provider costs, under the
// cost model asked for, which compare names.
func TestCompareProviders(t *testing.T) {
	t.Parallel()
	dir := fixtures.ProvidersDir(t)
	args := func(extra ...string) []string {
		return append(append([]string{"compare", "--cache-dir", fixtures.CompileCacheDir(), "--input", "testdata/shopify/input.json",
			"--plugin", filepath.Join(dir, "shopify_functions_javy_v3.wasm"), "--plugin", filepath.Join(dir, "shopify_functions_javy_v4.wasm")}, extra...),
			"testdata/shopify/shopify_function.js")
	}
	tests := []struct {
		cost, named string
	}{
		{"fuel", "jsprof: compare: Wasm instructions counted as fuel (--cost fuel: wasmtime's fuel, as function-runner counts)\n"},
		{"all", "jsprof: compare: Wasm instructions counted as all (--cost all: every instruction but block, loop, else and end)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.cost, func(t *testing.T) {
			got := jsprof(t, "", args("--cost", tt.cost)...)
			require.Equal(t, 0, got.code, got.stderr)
			assert.Contains(t, got.stdout, "shopify_functions_javy_v3.wasm")
			assert.Contains(t, got.stdout, "shopify_functions_javy_v4.wasm")
			assert.Contains(t, got.stderr, tt.named+"jsprof: both engines printed the same output (1 line) and exited with 0\n")
		})
	}
	got := jsprof(t, "", args("--cost", "time")...)
	assert.Equal(t, cli.ExitUsage, got.code)
	assert.Equal(t, "jsprof: compare: --cost \"time\": want fuel or all\n", got.stderr)
}

// TestWasmAPIFunction: a function with no JS interpreter, in its module or
// its provider (the Wasm API's shopify_function_v2), is counted as
// function-runner counts it: the export call, in both modules, under the
// fuel rule. jsprof says in one line that there is no JS to profile; the
// summary and --report-json have the count, the profile its one frame.
// An input past 128 kB whose length loops past 11M instructions goes over
// two limits, which the summary and the JSON flag.
func TestWasmAPIFunction(t *testing.T) {
	dir := fixtures.ProvidersDir(t)
	module := filepath.Join("testdata", "wasm_api_v2.wasm")
	wasm, err := os.ReadFile(module)
	require.NoError(t, err)
	perInstruction := countFunction(t, wasm, false, profiler.Options{Meter: &meter.Options{PerInstruction: true, Cost: wasmcore.CostFuel}})

	// The fixture loops once per character of a string input: 800,000 of
	// them run about 12M instructions.
	long := filepath.Join(t.TempDir(), "long.json")
	require.NoError(t, os.WriteFile(long, []byte(`"`+strings.Repeat("x", 800_000)+`"`), 0o644))
	tests := []struct {
		name, input string
		output      string
		over        jsprofile.Limits
	}{
		{"within the limits", "testdata/shopify/input.json", "1\n", jsprofile.Limits{}},
		{"over the limits", long, "-2122947200\n", jsprofile.Limits{InstructionsOver: true, InputOver: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := filepath.Join(t.TempDir(), "report.json")
			got := jsprof(t, "", "run", "-q", "--plugin", dir, "--input", tt.input, "--report-json", doc, module)
			require.Equal(t, 0, got.code, got.stderr)
			assert.Equal(t, tt.output, got.stdout)
			lines := strings.Split(strings.TrimSuffix(got.stderr, "\n"), "\n")
			require.Len(t, lines, 3, got.stderr)
			assert.Regexp(t, `^jsprof: wasm_api_v2\.wasm holds no JS interpreter to profile \(.*\); counting the export call's Wasm instructions only \(the profile has one frame, \(Wasm code, no JS interpreter\)\)$`, lines[0])

			rep := readRunReport(t, doc)
			assert.Equal(t, "fuel", rep.CostModel)
			assert.Equal(t, "shopify_function_v2", rep.Run.Provider)
			assert.Equal(t, []report.BucketCost{{Name: jsprofile.BucketWasm, WasmInstructions: rep.Total}}, rep.Buckets)
			want := jsprofile.Limits{Instructions: 11_000_000, InputBytes: 128_000, OutputBytes: 20_000}
			want.InstructionsOver, want.InputOver, want.OutputOver = tt.over.InstructionsOver, tt.over.InputOver, tt.over.OutputOver
			assert.Equal(t, &want, rep.Run.Limits)
			assert.Positive(t, rep.Run.Startup, "initialize and the input's copy, in the provider")
			assert.Positive(t, rep.Run.Finish, "finalize")

			over := func(b bool) string {
				if b {
					return " — OVER THE LIMIT"
				}
				return ""
			}
			assert.Equal(t, fmt.Sprintf("jsprof: _start (shopify_function_v2, messagepack): Instructions: %s (fuel) of 11M%s; Linear Memory Usage: %dKB; Input Size: %s of 125.00KB%s; Output Size: %s of 19.53KB",
				report.HumanInstructions(rep.Total), over(tt.over.InstructionsOver), rep.Run.Memory/1024, report.HumanSize(rep.Run.Input), over(tt.over.InputOver), report.HumanSize(rep.Run.Output)), lines[1])
			if tt.input == "testdata/shopify/input.json" {
				assert.Equal(t, perInstruction.Total, rep.Total, "the per-instruction count of the same run")
				assert.Equal(t, perInstruction.Run.StartupInstructions, rep.Run.Startup)
				assert.Equal(t, perInstruction.Run.FinishInstructions, rep.Run.Finish)
			}
		})
	}
}

// TestShopifyMemoryUnprofiled: a profiled run reports the linear memory of
// an unprofiled one: what the meter reserves for its counters is not the
// function's.
func TestShopifyMemoryUnprofiled(t *testing.T) {
	dir := fixtures.ProvidersDir(t)
	module := buildFunction(t, "shopify_functions_javy_v4", filepath.Join("testdata", "shopify", "shopify_function.js"))
	memory := regexp.MustCompile(`Linear Memory Usage: \d+KB`)
	var got []string
	for _, mode := range []string{jsprofile.ModeOff, jsprofile.ModeExact} {
		run := jsprof(t, "", "run", "-q", "--mode", mode, "--plugin", dir, "--input", "testdata/shopify/input.json", module)
		require.Equal(t, 0, run.code, run.stderr)
		got = append(got, memory.FindString(run.stderr))
	}
	require.NotEmpty(t, got[0])
	assert.Equal(t, got[0], got[1], "--mode off, then exact")
}

// buildStatic builds src on a provider without --dynamic: one module
// holding the provider's engine, importing no provider.
func buildStatic(t *testing.T, provider, src string) string {
	t.Helper()
	module := filepath.Join(t.TempDir(), "static.wasm")
	got := jsprof(t, "", "build", "--plugin", filepath.Join(fixtures.ProvidersDir(t), provider+".wasm"), src, "-o", module)
	require.Equal(t, 0, got.code, got.stderr)
	return module
}

// TestRunModes: function-runner's I/O is for modules importing a Shopify
// provider and for runs given --input or --codec. A module importing a
// Javy QuickJS provider otherwise runs as wasmtime run --preload would,
// stdin and stdout passed through; a module importing no provider, given
// --codec and --input, gets its input encoded and its output decoded; a
// static build of an in-memory provider says so and runs through its own
// initialize and finalize.
func TestRunModes(t *testing.T) {
	t.Parallel()
	dir := fixtures.ProvidersDir(t)
	src := filepath.Join(t.TempDir(), "echo.js")
	require.NoError(t, os.WriteFile(src, []byte(`const b = new Uint8Array(4096); const n = Javy.IO.readSync(0, b);
console.error("read " + n); Javy.IO.writeSync(1, b.subarray(0, n));`), 0o644))
	plain := buildFunction(t, "javy_quickjs_provider_v2", src)
	bench := buildStatic(t, "shopify_functions_javy_v2", filepath.Join("testdata", "shopify", "payment_bench.js"))
	self := buildStatic(t, "shopify_functions_javy_v4", filepath.Join("testdata", "shopify", "shopify_function.js"))
	const sorted = `{"sort_response":{"proposedOrder":["gid://shopify/PaymentMethod/1","gid://shopify/PaymentMethod/2","gid://shopify/PaymentMethod/3"]}}` + "\n"
	for _, tt := range []struct {
		name, stdin string
		args        []string
		code        int
		stdout      string
		stderr      []string
		notStderr   string
	}{
		{"javy provider, stdin passed through", "not JSON at all", []string{"--plugin", filepath.Join(dir, "javy_quickjs_provider_v2.wasm"), plain},
			0, "not JSON at all", []string{"read 15"}, "Instructions:"},
		{"javy provider folder, stdin passed through", "{\"a\": 1}", []string{"--plugin", dir, plain},
			0, "{\"a\": 1}", []string{"read 8"}, "Instructions:"},
		{"javy provider given --input: function-runner's I/O", "", []string{"--plugin", dir, "--input", "testdata/shopify/input.json", plain},
			0, "", []string{"read 182", "jsprof: _start (javy_quickjs_provider_v2, json): Instructions: "}, ""},
		{"no provider, --codec messagepack", "", []string{"--codec", "messagepack", "--input", "testdata/shopify/payment_input.json", bench},
			0, sorted, []string{"jsprof: _start (no provider, messagepack): Instructions: "}, ""},
		{"static build of an in-memory provider", "", []string{"--input", "testdata/shopify/input.json", self},
			0, wantOutput, []string{"is a static build of an in-memory provider, which function-runner cannot run (build it --dynamic, as Shopify CLI does)", "lines: 2"}, "unreachable"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := jsprof(t, tt.stdin, append([]string{"run", "-q"}, tt.args...)...)
			require.Equal(t, tt.code, got.code, got.stderr)
			if tt.stdout != "" {
				assert.Equal(t, tt.stdout, got.stdout)
			}
			for _, s := range tt.stderr {
				assert.Contains(t, got.stderr, s)
			}
			if tt.notStderr != "" {
				assert.NotContains(t, got.stderr, tt.notStderr)
			}
		})
	}
}

// TestShopifyLinesInclusive: lines are charged as functions are, with what
// they call: in a Shopify function, the line that reads the input,
// `ShopifyFunction.readInput()` (a host function decoding MessagePack),
// is the top line by total, while its own opcodes are a few hundred
// instructions; a line's total holds its self.
func TestShopifyLinesInclusive(t *testing.T) {
	src := filepath.Join("testdata", "shopify", "shopify_function.js")
	module := buildFunction(t, "shopify_functions_javy_v4", src)
	prof := filepath.Join(t.TempDir(), "function.pb.gz")
	got := jsprof(t, "", "run", "-q", "--plugin", fixtures.ProvidersDir(t), "--input", "testdata/shopify/input.json", "-o", prof, module)
	require.Equal(t, 0, got.code, got.stderr)
	rep := jsprof(t, "", "report", "--by", "line", "--json", prof)
	require.Equal(t, 0, rep.code, rep.stderr)
	var doc struct {
		Total uint64 `json:"total_wasm_instructions"`
		Lines []struct {
			Line  int    `json:"line"`
			Self  uint64 `json:"self_wasm_instructions"`
			Total uint64 `json:"total_wasm_instructions"`
		} `json:"lines"`
	}
	require.NoError(t, json.Unmarshal([]byte(rep.stdout), &doc))
	require.NotEmpty(t, doc.Lines)
	text := strings.Split(readFileText(t, src), "\n")
	top := doc.Lines[0]
	assert.Contains(t, text[top.Line-1], "ShopifyFunction.readInput()", "the top line by total")
	assert.Greater(t, top.Total, 20*top.Self, "its total is the decoding it called")
	for _, l := range doc.Lines {
		assert.GreaterOrEqual(t, l.Total, l.Self, "line %d", l.Line)
		assert.LessOrEqual(t, l.Total, top.Total, "sorted by total")
	}
	text2 := jsprof(t, "", "report", "--by", "line", prof)
	assert.Contains(t, text2.stdout, "self instr  total instr  self share  total share")
}

// TestCompareProfilesCarryRunFacts: the profiles compare --out-dir keeps
// of a Shopify Function carry the run's facts — provider, codec, sizes
// and limits, in jsprof report --json's run — as jsprof run's profile of
// the same module does: both go through one pipeline (profiler.Execute).
// Before it, compare's profiles had none of them.
func TestCompareProfilesCarryRunFacts(t *testing.T) {
	dir := fixtures.ProvidersDir(t)
	out := t.TempDir()
	v3, v4 := filepath.Join(dir, "shopify_functions_javy_v3.wasm"), filepath.Join(dir, "shopify_functions_javy_v4.wasm")
	got := jsprof(t, "", "compare", "--cache-dir", fixtures.CompileCacheDir(), "--input", "testdata/shopify/input.json",
		"--plugin", v3, "--plugin", v4, "--out-dir", out, "testdata/shopify/shopify_function.js")
	require.Equal(t, 0, got.code, got.stderr)

	type runFacts struct {
		Run struct {
			Provider    string            `json:"provider"`
			Codec       string            `json:"codec"`
			InputBytes  uint64            `json:"input_bytes"`
			OutputBytes uint64            `json:"output_bytes"`
			Limits      *jsprofile.Limits `json:"limits"`
		} `json:"run"`
	}
	facts := func(t *testing.T, profile string) runFacts {
		t.Helper()
		rep := jsprof(t, "", "report", "--by", "summary", "--json", profile)
		require.Equal(t, 0, rep.code, rep.stderr)
		var f runFacts
		require.NoError(t, json.Unmarshal([]byte(rep.stdout), &f))
		return f
	}
	// jsprof run of the module compare built, linked against the same
	// provider, is the reference.
	runProfile := filepath.Join(t.TempDir(), "run.pb.gz")
	ran := jsprof(t, "", "run", "--plugin", v4, "--input", "testdata/shopify/input.json", "-o", runProfile, filepath.Join(out, "new.wasm"))
	require.Equal(t, 0, ran.code, ran.stderr)
	want := facts(t, runProfile)
	require.Equal(t, "shopify_functions_javy_v4", want.Run.Provider, "the negative control: run's profile has the facts")
	require.NotNil(t, want.Run.Limits)

	got4 := facts(t, filepath.Join(out, "new.pb.gz"))
	assert.Equal(t, want, got4, "compare's profile of the new side carries run's facts")
	got3 := facts(t, filepath.Join(out, "base.pb.gz"))
	assert.Equal(t, "shopify_functions_javy_v3", got3.Run.Provider)
	assert.Equal(t, want.Run.Codec, got3.Run.Codec)
	assert.Equal(t, want.Run.InputBytes, got3.Run.InputBytes)
	require.NotNil(t, got3.Run.Limits)
	assert.Equal(t, uint64(shopify.InstructionLimit), got3.Run.Limits.Instructions)
}

// TestShopifySampleModeAsExact: a Shopify function sampled shows what its
// exact profile shows: the same phases, in about the same shares, and the
// provider's host functions named after their call sites
// (ShopifyFunction.readInput, writeOutput) rather than left in
// (native functions).
func TestShopifySampleModeAsExact(t *testing.T) {
	t.Parallel()
	module := buildFunction(t, "shopify_functions_javy_v4", filepath.Join("testdata", "shopify", "shopify_function.js"))
	type doc struct {
		Total  uint64 `json:"total_wasm_instructions"`
		Phases []struct {
			Name  string `json:"name"`
			Instr uint64 `json:"wasm_instructions"`
		} `json:"phases"`
		Functions []struct {
			Name string `json:"name"`
			Kind string `json:"kind"`
			Self uint64 `json:"self_wasm_instructions"`
		} `json:"functions"`
	}
	run := func(args ...string) doc {
		path := filepath.Join(t.TempDir(), "report.json")
		got := jsprof(t, "", append(append([]string{"run", "-q", "--deterministic", "--plugin", fixtures.ProvidersDir(t), "--input", "testdata/shopify/input.json", "--report-json", path}, args...), module)...)
		require.Equal(t, 0, got.code, got.stderr)
		var d doc
		require.NoError(t, json.Unmarshal([]byte(readFileText(t, path)), &d))
		return d
	}
	exact, sampled := run("--mode", "exact"), run("--mode", "sample", "--sample-every", "100")
	assert.Equal(t, exact.Total, sampled.Total)
	share := func(d doc) map[string]float64 {
		out := map[string]float64{}
		for _, p := range d.Phases {
			out[p.Name] = float64(p.Instr) / float64(d.Total)
		}
		return out
	}
	want, got := share(exact), share(sampled)
	require.Contains(t, want, "input decoding")
	require.Len(t, got, len(want), "the same phases: %v, sampled %v", want, got)
	for name, w := range want {
		assert.InDelta(t, w, got[name], 0.05, "%s", name)
	}
	named := map[string]bool{}
	for _, f := range sampled.Functions {
		if f.Kind == "native" && f.Self > 0 {
			named[f.Name] = true
		}
	}
	assert.True(t, named["ShopifyFunction.readInput"], "natives %v", named)
	assert.True(t, named["ShopifyFunction.writeOutput"], "natives %v", named)
}
