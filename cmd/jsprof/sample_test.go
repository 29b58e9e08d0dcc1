package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// wasmRoot is the outermost frame of a sampled stack under its phase
// frame (sample mode roots each stack at its phase, as exact mode does).
func wasmRoot(t *testing.T, s *profile.Sample) *profile.Function {
	t.Helper()
	n := len(s.Location)
	require.GreaterOrEqual(t, n, 2, "a phase frame and a stack under it")
	phase := s.Location[n-1].Line[0].Function
	require.True(t, strings.HasPrefix(phase.SystemName, "phase:"), "the root is a phase: %s", phase.SystemName)
	return s.Location[n-2].Line[0].Function
}

func readProfile(t *testing.T, path string) *profile.Profile {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	p, err := profile.Parse(f)
	require.NoError(t, err)
	require.NoError(t, p.CheckValid())
	return p
}

func sampleTotal(p *profile.Profile) (sum int64) {
	for _, s := range p.Sample {
		sum += s.Value[jsprofile.ValueInstructions]
	}
	return sum
}

// kinds lists a sample's frame kinds root first: "js", "op", "wasm", "bucket".
func kinds(s *profile.Sample) []string {
	var out []string
	for i := len(s.Location) - 1; i >= 0; i-- {
		sys := s.Location[i].Line[0].Function.SystemName
		out = append(out, sys[:strings.IndexByte(sys, ':')])
	}
	return out
}

// TestSampleMode: sampled totals are within 2% of the exact total, and the
// stacks are layered: Wasm frames, then JS frames above opcode frames above
// the Wasm functions their handlers ran.
func TestSampleMode(t *testing.T) {
	t.Parallel()
	for _, plugin := range javyPlugins {
		for _, program := range []string{"fib", "sort", "json", "classes"} {
			t.Run(plugin+"/"+program, func(t *testing.T) {
				dir := t.TempDir()
				module := filepath.Join(dir, program+".wasm")
				require.Equal(t, 0, jsprof(t, "", "build", "--plugin", fixtures.EnginePath(t, plugin), fixtures.Path("js", program+".js"), "-o", module).code)
				exact, sampled := filepath.Join(dir, "exact.pb.gz"), filepath.Join(dir, "sample.pb.gz")
				require.Equal(t, 0, jsprof(t, "", "run", "-o", exact, module).code)
				got := jsprof(t, "", "run", "--mode", "sample", "--sample-every", "20000", "-o", sampled, module)
				require.Equal(t, 0, got.code, got.stderr)

				ep, sp := readProfile(t, exact), readProfile(t, sampled)
				want := sampleTotal(ep)
				// The samples miss what ran after the last one: up to a
				// period (20,000 of the ~1M these programs run under the fuel
				// rule), and each sample's weight is its distance from the
				// previous one, randomised.
				assert.InEpsilon(t, want, sampleTotal(sp), 0.03, "sampled total within 3%% of the exact %d", want)
				assert.Contains(t, sp.Comments, "jsprof.mode=sample")
				// Sampling counts more cheaply (hoisted charges, the
				// interpreter's count in a local) but exactly by the end.
				assert.Contains(t, sp.Comments, fmt.Sprintf("jsprof.total_wasm_instructions=%d", want), "the sampled run's exact total")
				assert.Equal(t, int64(20000), sp.Period)

				// Every JS function a sample shows is one exact mode measured:
				// no function made up from a native function's object.
				exactJS := map[string]bool{}
				for _, fn := range ep.Function {
					if strings.HasPrefix(fn.SystemName, "js:") {
						exactJS[fn.SystemName] = true
					}
				}
				for _, fn := range sp.Function {
					if strings.HasPrefix(fn.SystemName, "js:") {
						assert.True(t, exactJS[fn.SystemName], "a sampled JS function exact mode does not know: %s (%s)", fn.Name, fn.SystemName)
					}
				}

				layered, atStart := 0, 0
				for _, s := range sp.Sample {
					k := strings.Join(kinds(s), ",")
					root := wasmRoot(t, s)
					switch {
					case root.Name == "_start":
						atStart++
					case root.Name == jsprofile.BucketTruncated:
						require.True(t, strings.HasPrefix(k, "phase,bucket,"), "a truncated stack: %s", k)
					default:
						t.Fatalf("a stack starts at %s, neither _start nor a truncation mark", root.Name)
					}
					if strings.Contains(k, "wasm,js,op,wasm") {
						layered++
					}
				}
				assert.Greater(t, atStart, len(sp.Sample)*9/10, "most stacks reach the entry point")
				if program != "fib" { // fib's handlers are all inline in the interpreter
					assert.Positive(t, layered, "some samples are in an opcode handler's Wasm helpers")
					return
				}
				recursive := 0
				for _, s := range sp.Sample {
					var js []string
					for i := len(s.Location) - 1; i >= 0; i-- {
						if ln := s.Location[i].Line[0]; strings.HasPrefix(ln.Function.SystemName, "js:") {
							js = append(js, fmt.Sprintf("%s@%s:%d", ln.Function.Name, ln.Function.Filename, ln.Function.StartLine))
						}
					}
					if len(js) >= 3 && js[1] == "fib@fib.js:1" && js[2] == "fib@fib.js:1" {
						recursive++
					}
				}
				assert.Positive(t, recursive, "fib (fib.js:1) calling itself")
			})
		}
	}
}

// TestPprofEndpoint fetches a running guest's profile over loopback.
func TestPprofEndpoint(t *testing.T) {
	dir := t.TempDir()
	module := filepath.Join(dir, "busy.wasm")
	require.Equal(t, 0, jsprof(t, "", "build", "--plugin", fixtures.EnginePath(t, "javy-plugin-1.7.0"), "testdata/busy.js", "-o", module).code)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())

	done := make(chan invocation, 1)
	go func() {
		done <- jsprof(t, "", "run", "--mode", "sample", "--pprof-addr", addr, "-o", filepath.Join(dir, "busy.pb.gz"), module)
	}()
	var resp *http.Response
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err = http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=30", addr))
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	p, err := profile.Parse(resp.Body)
	require.NoError(t, err)
	assert.NotEmpty(t, p.Sample, "samples of the running guest")
	assert.Contains(t, p.Comments, "jsprof.mode=sample")

	select {
	case got := <-done:
		assert.Equal(t, 0, got.code, got.stderr)
		assert.Equal(t, "fib(27) = 196418\n", got.stdout)
	case <-time.After(60 * time.Second):
		t.Fatal("the guest did not end")
	}
	_ = context.Background
}

// TestGoToolPprof reads a fixture profile with the go command's pprof, as
// a user would: -list shows the JS source with exact cost per line, and
// -traces of a sampled profile shows JS frames above opcode frames above
// Wasm helper frames.
func TestGoToolPprof(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go tool pprof")
	}
	dir := t.TempDir()
	module := filepath.Join(dir, "sort.wasm")
	require.Equal(t, 0, jsprof(t, "", "build", "--plugin", fixtures.EnginePath(t, "javy-plugin-1.7.0"), fixtures.Path("js", "sort.js"), "-o", module).code)
	exact, sampled := filepath.Join(dir, "exact.pb.gz"), filepath.Join(dir, "sample.pb.gz")
	require.Equal(t, 0, jsprof(t, "", "run", "-o", exact, module).code)
	require.Equal(t, 0, jsprof(t, "", "run", "--mode", "sample", "--sample-every", "20000", "-o", sampled, module).code)

	pprof := func(args ...string) string {
		cmd := exec.Command("go", append([]string{"tool", "pprof"}, args...)...)
		cmd.Dir = fixtures.Path("js") // where pprof finds sort.js for -list
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		return string(out)
	}
	list := pprof("-list", "^insertionSort$", exact)
	assert.Contains(t, list, "ROUTINE ======================== insertionSort in sort.js")
	assert.Regexp(t, `(?m)^\s+\.\s+[0-9]+\s+[0-9]+:\s+arr\[j \+ 1\] = arr\[j\];`, list, "the line's exact cost next to its source")

	top := pprof("-top", exact)
	assert.Contains(t, top, "op:get_array_el")

	traces := pprof("-traces", sampled)
	assert.Regexp(t, `(?s)\n\s+wasm-function\[\d+\]\n\s+op:[a-z_0-9]+\n\s+[A-Za-z]+\n`, traces, "a Wasm helper under an opcode under a JS function")
}

// TestSampleModeDynamic: a dynamic module's samples reach its own _start
// across the module boundary, its frames named as its own (not as the
// plugin's functions of the same index), and JS frames sit where they do
// in a static module.
func TestSampleModeDynamic(t *testing.T) {
	t.Parallel()
	for _, plugin := range javyPlugins {
		t.Run(plugin, func(t *testing.T) {
			dir := t.TempDir()
			pluginPath := fixtures.EnginePath(t, plugin)
			module, prof := filepath.Join(dir, "fib.wasm"), filepath.Join(dir, "fib.pb.gz")
			require.Equal(t, 0, jsprof(t, "", "build", "--dynamic", "--plugin", pluginPath, fixtures.Path("js", "fib.js"), "-o", module).code)
			got := jsprof(t, "", "run", "--mode", "sample", "--sample-every", "20000", "--plugin", pluginPath, "-o", prof, module)
			require.Equal(t, 0, got.code, got.stderr)
			p := readProfile(t, prof)
			require.NotEmpty(t, p.Sample)
			atStart, withJS := 0, 0
			for _, s := range p.Sample {
				// the dynamic module's _start, or the plugin's runtime
				// initialization, which the host calls first
				root := wasmRoot(t, s)
				if root.Name == "_start" && root.SystemName == "wasm:other:_start" || strings.HasPrefix(root.Name, "initialize") {
					atStart++
				}
				for _, loc := range s.Location {
					fn := loc.Line[0].Function
					assert.False(t, strings.HasPrefix(fn.Name, "env."), "a frame named as one of the plugin's imports: %s", fn.Name)
					if fn.Name == "fib" && strings.HasPrefix(fn.SystemName, "js:") {
						withJS++
						break
					}
				}
			}
			assert.Greater(t, atStart, len(p.Sample)*9/10, "stacks reach an entry point")
			assert.Positive(t, withJS, "fib's JS frames")
		})
	}
}

// TestExactCallers: exact-mode stacks carry each function's JS callers,
// each at the opcode of its call (super constructors calling up a class
// chain), and recursion folds into the outermost call (fib appears once in
// any stack), on both plugins.
func TestExactCallers(t *testing.T) {
	jsChain := func(s *profile.Sample) (names []string, ops []string) {
		for i := len(s.Location) - 1; i >= 0; i-- {
			fn := s.Location[i].Line[0].Function
			switch {
			case strings.HasPrefix(fn.SystemName, "js:"):
				names = append(names, fn.Name)
			case strings.HasPrefix(fn.SystemName, "op:") && i > 0:
				ops = append(ops, fn.Name)
			}
		}
		return names, ops
	}
	for _, plugin := range javyPlugins {
		t.Run(plugin, func(t *testing.T) {
			dir := t.TempDir()
			profiles := map[string]*profile.Profile{}
			for _, program := range []string{"classes", "fib"} {
				module, prof := filepath.Join(dir, program+".wasm"), filepath.Join(dir, program+".pb.gz")
				require.Equal(t, 0, jsprof(t, "", "build", "--plugin", fixtures.EnginePath(t, plugin), fixtures.Path("js", program+".js"), "-o", module).code)
				got := jsprof(t, "", "run", "-o", prof, module)
				require.Equal(t, 0, got.code, got.stderr)
				profiles[program] = readProfile(t, prof)
			}
			chained := 0
			for _, s := range profiles["classes"].Sample {
				names, ops := jsChain(s)
				if strings.Contains(strings.Join(names, ">"), "Square>Rect>Shape") {
					chained++
					assert.Contains(t, ops, "op:call_constructor", "a super call's opcode between the frames")
				}
			}
			assert.Positive(t, chained, "Shape under Rect under Square")
			fibs := 0
			for _, s := range profiles["fib"].Sample {
				names, _ := jsChain(s)
				n := 0
				for _, name := range names {
					if name == "fib" {
						n++
					}
				}
				assert.LessOrEqual(t, n, 1, "recursion folded: %v", names)
				fibs += n
			}
			assert.Positive(t, fibs)
		})
	}
}

// TestSampleModeLargeTopLevel: a module's top level that defines 10,000
// functions has a constant pool of 80 KB between its function-bytecode
// object and its code. QuickJS resumes it as an async function, so the
// meter finds its buffer through the saved state, where it once accepted
// a buffer only within 64 KB of its object: each sample in the top level
// became a function of its own with no code, and the profile was lost
// to an opcode frame of no opcode.
func TestSampleModeLargeTopLevel(t *testing.T) {
	t.Parallel()
	const n = 10_000
	dir := t.TempDir()
	module, out := filepath.Join(dir, "index.wasm"), filepath.Join(dir, "p.pb.gz")
	require.NoError(t, os.WriteFile(module, buildSource(t, "javy-plugin-1.7.0", manyFunctions(n)), 0o644))

	run := jsprof(t, "", "run", "--mode", "sample", "--sample-every", "20000", "-o", out, module)
	require.Equal(t, 0, run.code, run.stderr)
	assert.Equal(t, fmt.Sprint(n*(n-1)/2)+"\n", run.stdout)
	p, err := jsprofile.Read(readProfile(t, out))
	require.NoError(t, err)
	top := map[string]int64{} // the top level's opcodes, by name
	var stack []jsprofile.StackFrame
	for _, s := range p.Sample {
		stack = p.Stack(s, stack[:0])
		for i, f := range stack {
			name := f.Function.Name
			require.False(t, f.Kind == jsprofile.KindJS && strings.HasPrefix(name, "anonymous@"), "a function named by its address: %s", name)
			// leaf first: a JS frame's opcode is the frame before it
			if f.Kind == jsprofile.KindJS && name == "<eval>" && i > 0 && stack[i-1].Kind == jsprofile.KindOpcode {
				top[stack[i-1].Function.Name] += s.Value[jsprofile.ValueInstructions]
			}
		}
	}
	assert.Positive(t, top["op:fclosure"], "the top level's closures, sampled at their opcode: %v", top)
}

// TestSampleTotalsEqualExact: the count is exact in both modes, so a
// sampled run's headline total is exact mode's, a dynamic module's own
// code included (counted, never sampled: its own sample); --report and
// --report-json work in sample mode; a run with too few samples to rank
// its functions says so, with the rate to use, and one with enough does
// not (the negative control).
func TestSampleTotalsEqualExact(t *testing.T) {
	plugin := fixtures.EnginePath(t, "javy-plugin-1.7.0")
	module := filepath.Join(t.TempDir(), "fib20.wasm")
	built := jsprof(t, "", "build", "--dynamic", "--plugin", plugin, filepath.Join("testdata", "fib20.js"), "-o", module)
	require.Equal(t, 0, built.code, built.stderr)
	type totals struct {
		Mode  string `json:"mode"`
		Total uint64 `json:"total_wasm_instructions"`
	}
	run := func(args ...string) (totals, string) {
		doc := filepath.Join(t.TempDir(), "report.json")
		got := jsprof(t, "", append(append([]string{"run", "--plugin", plugin, "--report", "--report-json", doc}, args...), module)...)
		require.Equal(t, 0, got.code, got.stderr)
		var tt totals
		require.NoError(t, json.Unmarshal([]byte(readFileText(t, doc)), &tt))
		return tt, got.stderr
	}
	exact, _ := run("--mode", "exact")
	sampled, stderr := run("--mode", "sample", "--sample-every", "10000")
	few, fewErr := run("--mode", "sample")
	assert.Equal(t, "sample", sampled.Mode)
	assert.Equal(t, exact.Total, sampled.Total, "the headline total")
	assert.Equal(t, exact.Total, few.Total)
	assert.Contains(t, stderr, "sample mode (engine: ", "--report in sample mode")
	assert.NotContains(t, stderr, "too few to rank")
	assert.Regexp(t, `jsprof: warning: only \d+ samples \(one about every 1000000 Wasm instructions, --sample-every\): too few to rank functions`, fewErr)
	assert.Regexp(t, `--sample-every 10000 takes about 1\d{3},`, fewErr)
}
