package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/internal/measure/meter"
	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/internal/run/runner"
)

// guest is a compiled module that can be run many times in one session.
type guest struct {
	sess     *runner.Session
	compiled wazero.CompiledModule
	meter    *meter.Meter // nil for the plain module
	// start readies a profiled instance before it runs (the profiler
	// session's Start: the detached program, the meter's state).
	start func(context.Context, api.Module) error
	runs  int
	// realClocks gives the guest the host's clocks (runs are deterministic
	// otherwise).
	realClocks bool
}

func (g *guest) run(tb testing.TB) (memBytes uint32, res *costs.Results) {
	ctx := context.Background()
	g.runs++
	cfg, err := runner.ModuleConfig(runner.Options{Name: "bench", Deterministic: !g.realClocks})
	require.NoError(tb, err)
	mod, err := g.sess.Instantiate(ctx, g.compiled, cfg, fmt.Sprint("guest-", g.runs))
	require.NoError(tb, err)
	defer mod.Close(ctx)
	mt := g.meter
	if mt != nil {
		ctx = mt.Context(ctx)
	}
	if g.start != nil {
		require.NoError(tb, g.start(ctx, mod))
	}
	if _, err := mod.ExportedFunction("_start").Call(ctx); err != nil && !strings.Contains(err.Error(), "exit_code(0)") {
		tb.Fatal(err)
	}
	memBytes = mod.Memory().Size()
	if mt != nil {
		res, err = mt.Collect()
		require.NoError(tb, err)
		// The gap the meter leaves the guest to grow into is address
		// space nothing wrote (meter/memview.go): not memory the run took.
		memBytes -= uint32(mt.UntouchedBytes())
	}
	return memBytes, res
}

// newGuests compiles the plain and the instrumented module (opts) into one
// session.
func newGuests(tb testing.TB, wasm []byte, opts meter.Options) (plain, profiled *guest) {
	ctx := context.Background()
	// wazero's default compiler config, as a plain embedding runs it and as
	// jsprof runs profiled guests (they stop at checkpoints, not by wazero's
	// termination checks).
	sess, err := runner.NewSession(ctx, wazero.NewRuntimeConfigCompiler(), fixtures.CompilationCache(tb))
	require.NoError(tb, err)
	tb.Cleanup(func() { sess.Close(ctx) })
	prof, err := profiler.Prepare(ctx, "bench", wasm, nil, profiler.Options{Meter: &opts, Mode: modeOf(opts)})
	require.NoError(tb, err)
	linked, err := prof.Meter().Link(ctx, sess.Runtime())
	require.NoError(tb, err)
	sess.Provide(linked...)
	pc, err := sess.Compile(ctx, "plain", wasm)
	require.NoError(tb, err)
	// In sample mode, the sampler's own work, stacks and all, is part of
	// the cost: the session's context carries its listener.
	ec, err := sess.Compile(ctx, "profiled", prof.Main())
	require.NoError(tb, err)
	return &guest{sess: sess, compiled: pc}, &guest{sess: sess, compiled: ec, meter: prof.Meter(), start: prof.Start}
}

// BenchmarkExactOverhead runs each fixture program, built with the newer
// Javy plugin, plain and in exact mode in the same process, alternating,
// and reports the ratios exact ÷ plain of wall time (instantiation and the
// guest's run; both modules are compiled beforehand) and of the guest's
// linear memory at exit (the counters live in it). Exact mode is the
// default's, Wasm stacks and all; nowasm-time-ratio is exact mode without
// them, run alternately too, and wasm-frames-cost the ratio of the two:
// what the profile's Wasm frames cost.
func BenchmarkExactOverhead(b *testing.B) {
	benchmarkOverhead(b, meter.Options{Checkpoints: true, WasmStacks: true}, &meter.Options{Checkpoints: true})
}

// BenchmarkSampleOverhead is BenchmarkExactOverhead for --mode sample
// at the default period.
func BenchmarkSampleOverhead(b *testing.B) { benchmarkOverhead(b, meter.Options{Sample: true}, nil) }

func benchmarkOverhead(b *testing.B, opts meter.Options, without *meter.Options) {
	programs, err := filepath.Glob(fixtures.Path("js", "*.js"))
	require.NoError(b, err)
	// busy.js (fib(27): calls) and mixed.js (JSON, sorting, strings,
	// regular expressions, objects) run long enough for steady ratios; the
	// fixture programs take 2-10 ms each.
	programs = append(programs, "testdata/busy.js", "testdata/mixed.js")
	for _, p := range programs {
		name := strings.TrimSuffix(filepath.Base(p), ".js")
		src, err := os.ReadFile(p)
		require.NoError(b, err)
		b.Run(name, func(b *testing.B) {
			wasm := buildSource(b, "javy-plugin-1.7.0", string(src))
			plain, exact := newGuests(b, wasm, opts)
			var base *guest
			if without != nil {
				_, base = newGuests(b, wasm, *without)
			}
			var tPlain, tExact, tBase time.Duration
			var mPlain, mExact uint32
			var instr uint64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				mPlain, _ = plain.run(b)
				t1 := time.Now()
				var res *costs.Results
				mExact, res = exact.run(b)
				t2 := time.Now()
				tPlain, tExact = tPlain+t1.Sub(t0), tExact+t2.Sub(t1)
				instr = res.TotalInstructions
				if base != nil {
					base.run(b)
					tBase += time.Since(t2)
				}
			}
			if base != nil {
				b.ReportMetric(float64(tBase)/float64(tPlain), "nowasm-time-ratio")
				b.ReportMetric(float64(tExact)/float64(tBase), "wasm-frames-cost")
			}
			b.ReportMetric(float64(tPlain.Microseconds())/float64(b.N)/1000, "plain-ms")
			b.ReportMetric(float64(tExact.Microseconds())/float64(b.N)/1000, "profiled-ms")
			b.ReportMetric(float64(tExact)/float64(tPlain), "time-ratio")
			b.ReportMetric(float64(mExact)/float64(mPlain), "mem-ratio")
			b.ReportMetric(float64(instr)/1e6, "Minstr")
		})
	}
}

// modeOf is the profiling mode of meter options.
func modeOf(opts meter.Options) profiler.Mode {
	if opts.Sample {
		return profiler.Sample
	}
	return profiler.Exact
}
