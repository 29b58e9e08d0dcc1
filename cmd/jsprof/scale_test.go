package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/internal/name/bytecode"
	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/internal/testrules"
	"github.com/jsprof/jsprof/wasmcore"
)

// scaleProgram is testdata/scale.js with n iterations.
func scaleProgram(t *testing.T, n int) string {
	t.Helper()
	src := readFileText(t, "testdata/scale.js")
	const decl = "const N = 1000000;"
	require.Contains(t, src, decl)
	return strings.Replace(src, decl, fmt.Sprintf("const N = %d;", n), 1)
}

// TestScaleExactMode runs testdata/scale.js in exact mode for about 1.6e8
// and about 1.6e9 Wasm instructions: the longer run must not use more
// guest linear memory, nor keep more functions or stacks: the meter's
// state grows with the functions and pcs seen, not with the instructions,
// dispatches or calls executed. (The Go heap's and the process's peaks
// while jsprof runs are logged: the test runs in a process of its own,
// so that they are jsprof's; they follow the garbage collector's timing,
// and are not asserted.)
func TestScaleExactMode(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs 1.8e9 Wasm instructions")
	}
	if testrules.RunIsolated(t) {
		return
	}
	type measure struct {
		total      uint64
		samples    int
		stacks     string
		heapPeak   uint64 // Go heap objects, peak while the guest ran
		rssPeak    uint64 // VmHWM after a reset, 0 when it cannot be reset
		guestBytes uint32
		functions  int
	}
	sizes := []struct {
		name string
		n    int
	}{{"small", 100_000}, {"large", 1_000_000}}
	var got [2]measure
	var modules [2][]byte
	for i, size := range sizes {
		wasm := buildSource(t, "javy-plugin-1.7.0", scaleProgram(t, size.n))
		module := filepath.Join(t.TempDir(), size.name+".wasm")
		require.NoError(t, os.WriteFile(module, wasm, 0o644))
		// Compile the instrumented module into the cache first, so that
		// compilation is not part of what is measured.
		warm := jsprof(t, "", "run", "--max-instructions", "1000", module)
		require.Equal(t, cli.ExitLimit, warm.code, warm.stderr)

		m := &got[i]
		out := filepath.Join(t.TempDir(), size.name+".pb.gz")
		collapsed := filepath.Join(t.TempDir(), size.name+".collapsed")
		stop := watchMemory(t)
		ran := jsprof(t, "", "run", "-o", out, "--collapsed", collapsed, module)
		m.heapPeak, m.rssPeak = stop()
		require.Equal(t, 0, ran.code, ran.stderr)
		require.True(t, strings.HasPrefix(ran.stdout, "x = "), ran.stdout)

		p := readProfile(t, out)
		m.total = totalComment(t, p.Comments)
		m.samples = len(p.Sample)
		assert.Equal(t, int64(m.total), sampleTotal(p), "exact mode: the samples add up to the total")
		var keys []string
		for _, line := range strings.Split(strings.TrimSpace(readFileText(t, collapsed)), "\n") {
			keys = append(keys, line[:strings.LastIndexByte(line, ' ')])
		}
		m.stacks = strings.Join(keys, "\n")

		modules[i] = wasm
	}
	for i, wasm := range modules {
		// The guest's linear memory at exit, the meter's accounting
		// included, from an in-process run of the same module.
		m := &got[i]
		g, closeGuest := profiledGuest(t, wasm)
		var res *costs.Results
		m.guestBytes, res = g.run(t)
		closeGuest()
		assert.Equal(t, m.total, res.TotalInstructions, "the same count in and out of the command")
		m.functions = len(res.Functions)
		size := sizes[i]
		t.Logf("%s: N=%d, %d Wasm instructions, %d samples, peak Go heap %.1f MB, peak RSS %.1f MB, guest memory %.2f MB, %d JS functions",
			size.name, size.n, m.total, m.samples, inMB(m.heapPeak), inMB(m.rssPeak), inMB(uint64(m.guestBytes)), m.functions)
	}
	small, large := got[0], got[1]
	assert.GreaterOrEqual(t, large.total, uint64(1e9))
	assert.InEpsilon(t, 10, float64(large.total)/float64(small.total), 0.05, "ten times the iterations, ten times the instructions")
	assert.Equal(t, small.samples, large.samples, "the same stacks, whatever the count")
	assert.Equal(t, small.stacks, large.stacks)
	assert.Equal(t, small.functions, large.functions)
	assert.Equal(t, small.guestBytes, large.guestBytes, "guest memory does not grow with the instructions")
	// The peaks of the Go heap and the RSS are logged, not asserted: they
	// follow the garbage collector's timing. What the meter keeps is
	// asserted above, by what it is made of: the same functions, stacks
	// and guest memory for ten times the work.
}

// profiledGuest compiles the exact-mode rewrite of wasm, to run in process
// until closed.
func profiledGuest(t *testing.T, wasm []byte) (*guest, func()) {
	t.Helper()
	ctx := context.Background()
	sess, err := runner.NewSession(ctx, nil, fixtures.CompilationCache(t))
	require.NoError(t, err)
	closed := false
	closeSession := func() {
		if !closed {
			closed = true
			sess.Close(ctx)
		}
	}
	t.Cleanup(closeSession)
	prof, err := profiler.Prepare(ctx, "scale", wasm, nil, profiler.Options{Mode: profiler.Exact, Cost: wasmcore.CostFuel}) // as jsprof run counts
	require.NoError(t, err)
	linked, err := prof.Meter().Link(ctx, sess.Runtime())
	require.NoError(t, err)
	sess.Provide(linked...)
	compiled, err := sess.Compile(ctx, "profiled", prof.Main())
	require.NoError(t, err)
	return &guest{sess: sess, compiled: compiled, meter: prof.Meter(), start: prof.Start}, closeSession
}

// watchMemory starts following this process's memory: the peak of the Go
// heap's objects (polled) and, where Linux lets the peak RSS be reset
// (/proc/self/clear_refs), the peak RSS. stop returns both.
func watchMemory(t *testing.T) (stop func() (heapPeak, rssPeak uint64)) {
	t.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	resetRSS := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var (
		mu   sync.Mutex
		peak uint64
		done = make(chan struct{})
		wg   sync.WaitGroup
	)
	poll := func() {
		metrics.Read(sample)
		mu.Lock()
		peak = max(peak, sample[0].Value.Uint64())
		mu.Unlock()
	}
	poll()
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				poll()
			}
		}
	}()
	return func() (uint64, uint64) {
		close(done)
		wg.Wait()
		poll()
		var rss uint64
		if resetRSS {
			rss = vmHWM(t)
		}
		return peak, rss
	}
}

// vmHWM reads the peak resident set size from /proc/self/status.
func vmHWM(t *testing.T) uint64 {
	f, err := os.Open("/proc/self/status")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			require.NoError(t, err)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
	return 0
}

func totalComment(t *testing.T, comments []string) uint64 {
	t.Helper()
	for _, c := range comments {
		if v, ok := strings.CutPrefix(c, "jsprof.total_wasm_instructions="); ok {
			n, err := strconv.ParseUint(v, 10, 64)
			require.NoError(t, err)
			return n
		}
	}
	t.Fatalf("no jsprof.total_wasm_instructions comment in %q", comments)
	return 0
}

func inMB(n uint64) float64 { return float64(n) / (1 << 20) }

// TestScaleLargeModule: what jsprof run does to a module before running
// it — decode, find the dispatch, rewrite, encode, read the program's
// bytecode for names — allocates memory roughly linear in the module's
// size. Two ways to make a static Javy module large: more code (every
// function but the dispatch loop appended again, unreferenced, as a
// bigger engine would have: 3.1× the bytes) and more data (four times the
// JS functions, whose bytecode the module carries: 1.8× the bytes).
// Allocation (bytes, counted by the runtime) must grow by less than twice
// the size ratio (quadratic growth would be its square). The test runs in
// a process of its own, where what the heap allocated is what Prepare
// did.
func TestScaleLargeModule(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("analyses modules of several MB")
	}
	if testrules.RunIsolated(t) {
		return
	}
	base := buildSource(t, "javy-plugin-1.7.0", readFileText(t, fixtures.Path("js", "fib.js")))
	// Once first, so that what the process makes once (tables, caches of
	// its own) is in neither measurement.
	prepareAlloc(t, base)
	t.Run("code", func(t *testing.T) {
		one, four := withCopies(t, base, 0), withCopies(t, base, 3)
		compareScaling(t, one, four)
	})
	t.Run("data", func(t *testing.T) {
		one := buildSource(t, "javy-plugin-1.7.0", generatedProgram(1500))
		four := buildSource(t, "javy-plugin-1.7.0", generatedProgram(6000))
		compareScaling(t, one, four)
	})
}

// withCopies appends the given number of copies of every function of a
// static module but its dispatch loop (unreferenced, so the module stays
// valid and its dispatch the one found).
func withCopies(t *testing.T, wasm []byte, copies int) []byte {
	t.Helper()
	m, err := wasmcore.Decode(wasm)
	require.NoError(t, err)
	report, err := dispatch.Analyze(context.Background(), m)
	require.NoError(t, err)
	require.NotNil(t, report.Dispatch, report.Reason)
	if copies == 0 {
		return wasm
	}
	nImp := m.NumImportedFuncs()
	defined := len(m.Functions)
	for range copies {
		for i := range defined {
			if nImp+uint32(i) == report.Dispatch.FunctionIndex {
				continue
			}
			f := m.Functions[i]
			m.AddFunction(wasmcore.Function{Type: f.Type, Locals: f.Locals, Body: f.Body})
		}
	}
	out, err := m.Encode()
	require.NoError(t, err)
	return out
}

// generatedProgram is a JS program of n small functions, each called once,
// from one call site. (Called by name from a line each, they would take
// QuickJS time quadratic in n to compile: it resolves each global name by
// a linear search.)
func generatedProgram(n int) string {
	var b strings.Builder
	b.WriteString("const fs = [\n")
	for i := range n {
		fmt.Fprintf(&b, "function f%d(a, b) {\n  const s = \"function %d\" + a;\n  let t = 0;\n  for (let i = 0; i < b; i++) t += s.charCodeAt(i %% s.length) * %d;\n  return t;\n},\n", i, i, i)
	}
	b.WriteString("];\nlet sum = 0;\nfor (let i = 0; i < fs.length; i++) sum += fs[i](i, 2);\nconsole.log(sum);\n")
	return b.String()
}

// prepareAlloc is what jsprof run's preparation of wasm (profiler.Prepare)
// allocates on the heap: all the process allocates meanwhile, in a
// process of its own (testrules.RunIsolated).
func prepareAlloc(t *testing.T, wasm []byte) uint64 {
	t.Helper()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := profiler.Prepare(context.Background(), "scale.wasm", wasm, nil, profiler.Options{Mode: profiler.Exact})
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	return after.TotalAlloc - before.TotalAlloc
}

// jsFunctions is the number of JS functions in a static module's program,
// as Prepare reads them for naming.
func jsFunctions(t *testing.T, wasm []byte) int {
	t.Helper()
	m, err := wasmcore.Decode(wasm)
	require.NoError(t, err)
	r, err := dispatch.Analyze(context.Background(), m)
	require.NoError(t, err)
	prog, err := bytecode.ProgramFromModule(m, r)
	require.NoError(t, err)
	return len(prog.Functions)
}

func compareScaling(t *testing.T, one, four []byte) {
	t.Helper()
	a1, a4 := prepareAlloc(t, one), prepareAlloc(t, four)
	size := float64(len(four)) / float64(len(one))
	t.Logf("1x: %.2f MB, %d JS functions, %.0f MB allocated", inMB(uint64(len(one))), jsFunctions(t, one), inMB(a1))
	t.Logf("4x: %.2f MB, %d JS functions, %.0f MB allocated", inMB(uint64(len(four))), jsFunctions(t, four), inMB(a4))
	t.Logf("size ×%.2f: allocation ×%.2f", size, float64(a4)/float64(a1))
	assert.Less(t, float64(a4)/float64(a1), 2*size, "allocation grows about linearly with the module's size")
}
