package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/wasmcore"
)

// BenchmarkPostRun measures what jsprof does once the guest's entry call
// has returned — reading the counters back, naming the functions,
// building the profile and writing it — against the call itself, for the
// cases issue 15 names:
//
//   - fib(30) in both modes;
//   - programs of 12,500 and 50,000 small functions each called once, the
//     larger in both modes: their post-run work should grow with the
//     program and no faster (compare postrun-us/function);
//   - 40,000 runtime copies of a function's name;
//   - the fixture fib.js (fib(20), a few milliseconds) as built, and in a
//     module whose memory minimum is 65,530 pages (4 GiB).
//
// One process, warm caches, the profile written to a file as `jsprof run`
// writes it (no tables).
func BenchmarkPostRun(b *testing.B) {
	if testing.Short() {
		b.Skip("builds and runs programs of up to 7 MB on a real engine")
	}
	fibSource, err := os.ReadFile(fixtures.Path("js", "fib.js"))
	require.NoError(b, err)
	fib := string(fibSource)
	cases := []struct {
		name      string
		src       string
		mode      profiler.Mode
		functions int    // the program's functions, for the per-function figure
		minPages  uint64 // the module's memory minimum, when raised
	}{
		{name: "fib30-exact", src: fib30, mode: profiler.Exact},
		{name: "fib30-sample", src: fib30, mode: profiler.Sample},
		{name: "functions-12500-exact", src: manyFunctions(12_500), mode: profiler.Exact, functions: 12_500},
		{name: "functions-50000-exact", src: manyFunctions(50_000), mode: profiler.Exact, functions: 50_000},
		{name: "functions-50000-sample", src: manyFunctions(50_000), mode: profiler.Sample, functions: 50_000},
		{name: "name-copies-40000-exact", src: nameCopies(40_000), mode: profiler.Exact},
		{name: "fib-exact", src: fib, mode: profiler.Exact},
		{name: "fib-memory-min-65530-exact", src: fib, mode: profiler.Exact, minPages: 65_530},
	}
	built := map[string][]byte{} // by source: each is built once
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			wasm, ok := built[c.src]
			if !ok {
				wasm = buildSource(b, "javy-plugin-1.7.0", c.src)
				built[c.src] = wasm
			}
			if c.minPages > 0 {
				wasm = withMemoryMinimum(b, wasm, c.minPages)
			}
			out := filepath.Join(b.TempDir(), "p.pb.gz")
			var guest, post time.Duration
			b.ResetTimer()
			for range b.N {
				g, p := profiledRun(b, wasm, c.mode, out)
				guest, post = guest+g, post+p
			}
			b.StopTimer()
			n := float64(b.N)
			b.ReportMetric(guest.Seconds()*1e3/n, "guest-ms")
			b.ReportMetric(post.Seconds()*1e3/n, "postrun-ms")
			b.ReportMetric(float64(post)/float64(guest), "postrun/guest")
			if c.functions > 0 {
				b.ReportMetric(post.Seconds()*1e6/n/float64(c.functions), "postrun-us/function")
			}
		})
	}
}

// profiledRun runs wasm once as `jsprof run` does (mode, the profile
// written to out) and returns how long the entry call took and how long
// everything after it did, up to the profile on disk. Preparing the
// engine and compiling it are outside both (and outside the benchmark's
// timer: BenchmarkStartup covers them).
func profiledRun(b *testing.B, wasm []byte, mode profiler.Mode, out string) (guest, post time.Duration) {
	ctx := context.Background()
	b.StopTimer()
	s, err := profiler.Prepare(ctx, "bench.wasm", wasm, nil, profiler.Options{Mode: mode})
	require.NoError(b, err)
	ropts := runner.Options{Name: "bench.wasm", Deterministic: true, Cache: fixtures.CompilationCache(b), Stdout: io.Discard, Stderr: io.Discard}
	s.Configure(&ropts)
	var returned time.Time
	measured := ropts.Around
	ropts.Around = func(ctx context.Context, in runner.Instances, call func(context.Context) error) error {
		return measured(ctx, in, func(ctx context.Context) error {
			start := time.Now()
			err := call(ctx)
			returned = time.Now()
			guest = returned.Sub(start)
			return err
		})
	}
	b.StartTimer()
	start := time.Now()
	res, err := runner.Run(ctx, s.Main(), ropts)
	require.NoError(b, err)
	require.Nil(b, res.Trap)
	o, err := s.Finish(ctx, profiler.Run{Start: start, ExitCode: profiler.ExitCode(res), ProfileOnly: true,
		Info: jsprofile.RunInfo{Export: res.Entry, MemoryBytes: s.GuestMemory(res.MemoryBytes)}})
	require.NoError(b, err)
	require.Empty(b, o.Warnings)
	f, err := os.Create(out)
	require.NoError(b, err)
	require.NoError(b, jsprofile.Write(f, o.Profile))
	require.NoError(b, f.Close())
	require.False(b, returned.IsZero(), "the entry call was never made")
	return guest, time.Since(returned)
}

// manyFunctions is a program of n one-line functions, each called once,
// from one call site, that prints the sum it keeps in s (a test may
// append code that goes on using it). (Called by name from n lines of their own, as in
// docs/performance.md's figures, they take QuickJS minutes to compile:
// it resolves each global name by a linear search.)
func manyFunctions(n int) string {
	var sb strings.Builder
	sb.WriteString("const fs = [\n")
	for i := range n {
		fmt.Fprintf(&sb, "  function f%d(x) { return x + %d; },\n", i, i)
	}
	sb.WriteString("];\nlet s = 0;\nfor (let i = 0; i < fs.length; i++) s = fs[i](s);\nconsole.log(s);\n")
	return sb.String()
}

// nameCopies makes n strings at run time equal to a function's name, which
// naming must not take for the function's atom one by one.
func nameCopies(n int) string {
	return fmt.Sprintf(`function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
const copies = [];
for (let i = 0; i < %d; i++) copies.push(["f", "i", "b"].join(""));
console.log(copies.length, fib(20));
`, n)
}

// withMemoryMinimum is wasm with its memory's minimum raised to pages.
func withMemoryMinimum(tb testing.TB, wasm []byte, pages uint64) []byte {
	m, err := wasmcore.Decode(wasm)
	require.NoError(tb, err)
	require.Len(tb, m.Memories, 1, "a static Javy module defines its memory")
	m.Memories[0].Limits.Min = pages
	if m.Memories[0].Limits.HasMax {
		m.Memories[0].Limits.Max = max(m.Memories[0].Limits.Max, pages)
	}
	out, err := m.Encode()
	require.NoError(tb, err)
	return out
}
