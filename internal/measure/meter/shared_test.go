package meter_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/internal/measure/meter"
	"github.com/jsprof/jsprof/internal/run/runner"
)

// otherJS is a small program whose Wasm stacks are not tinyJS's: strings,
// sorting, JSON.
const otherJS = `
const words = [];
for (let i = 0; i < 200; i++) words.push("w" + ((i * 7919) % 1000));
words.sort();
const out = JSON.stringify(words.map((w) => w.toUpperCase()));
if (out.length < 1000) throw new Error("short: " + out.length);
`

// stacksEvery is the period of the tests' Wasm stacks and samples: a few
// hundred in a run of tinyJS.
const stacksEvery = 5_000

// link is a meter's Link, or its negative control's (LinkBound).
type link func(*meter.Meter) func(context.Context, wazero.Runtime) ([]string, error)

func linkShared(mt *meter.Meter) func(context.Context, wazero.Runtime) ([]string, error) {
	return mt.Link
}

func linkBound(mt *meter.Meter) func(context.Context, wazero.Runtime) ([]string, error) {
	return mt.LinkBound
}

// stacksTaken runs wasm under a new meter of plan, in a runtime of its own
// on cache, and returns the Wasm stacks the meter took, in order: exact
// mode's splits, or sample mode's samples (weight and frames).
func stacksTaken(cache wazero.CompilationCache, wasm []byte, plan *meter.Plan, linked link) ([]string, error) {
	mt := meter.New(plan)
	var taken []string
	if plan.Sample {
		mt.SetSampling(stacksEvery, func(weight uint64, wasm []costs.WasmFrame, _ []costs.Activation) {
			taken = append(taken, fmt.Sprintf("%d %+v", weight, wasm))
		})
	} else {
		mt.SetWasmStacks(stacksEvery)
	}
	res, err := runner.Run(context.Background(), wasm, runner.Options{
		Name: "index.wasm", Cache: cache, KeepOnContextDone: true, Deterministic: true,
		Link: linked(mt), Context: mt.Context, Instantiated: mt.Start,
	})
	if err != nil {
		return nil, err
	}
	if res.Trap != nil {
		return nil, fmt.Errorf("trap: %w", res.Trap)
	}
	r, err := mt.Collect()
	if err != nil {
		return nil, err
	}
	for _, s := range r.WasmSplits {
		taken = append(taken, fmt.Sprintf("%+v", s))
	}
	return taken, nil
}

// TestMetersShareListenedModule: meters of one process share a
// compilation cache, and so the compiled ListenedModule and its
// listeners; each still gets its own Wasm stacks, run one after the other
// or concurrently, the same as a meter run alone. The negative control
// links listeners bound to a meter (LinkBound): the second meter on the
// cache gets the first one's and takes no stack.
func TestMetersShareListenedModule(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts meter.Options
	}{
		{"exact", meter.Options{WasmStacks: true}},
		{"sample", meter.Options{Sample: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			wasmA, planA := engineModule(t, "javy-plugin-1.7.0", tinyJS, tc.opts)
			wasmB, planB := engineModule(t, "javy-plugin-1.7.0", otherJS, tc.opts)
			// One cache object: its compiled modules in memory are shared
			// by every runtime made with it.
			cache := fixtures.CompilationCache(t)
			aloneA, err := stacksTaken(cache, wasmA, planA, linkShared)
			require.NoError(t, err)
			aloneB, err := stacksTaken(cache, wasmB, planB, linkShared)
			require.NoError(t, err)
			require.NotEmpty(t, aloneA)
			require.NotEmpty(t, aloneB)
			require.NotEqual(t, aloneA, aloneB)

			var wg sync.WaitGroup
			var gotA, gotB []string
			var errA, errB error
			wg.Add(2)
			go func() { defer wg.Done(); gotA, errA = stacksTaken(cache, wasmA, planA, linkShared) }()
			go func() { defer wg.Done(); gotB, errB = stacksTaken(cache, wasmB, planB, linkShared) }()
			wg.Wait()
			require.NoError(t, errA)
			require.NoError(t, errB)
			assert.Equal(t, aloneA, gotA, "the first program's stacks, run concurrently")
			assert.Equal(t, aloneB, gotB, "the second program's stacks, run concurrently")

			t.Run("negative control: listeners bound to a meter", func(t *testing.T) {
				// A cache object of its own: nothing compiled in its
				// memory yet, the engine module read from the machine's
				// cache on disk rather than compiled again.
				cache := fixtures.CompilationCache(t)
				t.Cleanup(func() { cache.Close(context.Background()) })
				// The first meter compiles ListenedModule with its listeners
				// (and is never started: they do nothing).
				first := meter.New(planA)
				rt := wazero.NewRuntimeWithConfig(context.Background(), wazero.NewRuntimeConfigCompiler().WithCompilationCache(cache))
				t.Cleanup(func() { rt.Close(context.Background()) })
				_, err := first.LinkBound(context.Background(), rt)
				require.NoError(t, err)
				got, err := stacksTaken(cache, wasmA, planA, linkBound)
				require.NoError(t, err)
				assert.Empty(t, got, "the second meter got the first one's listeners")
			})
		})
	}
}

// TestRunWithoutMeterContext: a guest called with a context that carries
// no meter ends with ErrNoMeter at its first listened call, rather than
// running on without its samples or Wasm stacks.
func TestRunWithoutMeterContext(t *testing.T) {
	t.Parallel()
	// Each mode's module is built once, for every run of that mode.
	type built struct {
		wasm []byte
		plan *meter.Plan
	}
	exact, sample := &built{}, &built{}
	exact.wasm, exact.plan = engineModule(t, "javy-plugin-1.7.0", tinyJS, meter.Options{WasmStacks: true})
	sample.wasm, sample.plan = engineModule(t, "javy-plugin-1.7.0", tinyJS, meter.Options{Sample: true})
	for _, tc := range []struct {
		name    string
		module  *built
		context bool
	}{
		{"exact with the meter's context", exact, true},
		{"exact without", exact, false},
		{"sample without", sample, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			wasm, plan := tc.module.wasm, tc.module.plan
			mt := meter.New(plan)
			mt.SetWasmStacks(stacksEvery)
			mt.SetSampling(stacksEvery, func(uint64, []costs.WasmFrame, []costs.Activation) {})
			opts := runner.Options{Name: "index.wasm", Cache: fixtures.CompilationCache(t), KeepOnContextDone: true, Deterministic: true, Link: mt.Link, Instantiated: mt.Start}
			if tc.context {
				opts.Context = mt.Context
			}
			res, err := runner.Run(context.Background(), wasm, opts)
			require.NoError(t, err)
			if tc.context {
				require.NoError(t, res.Trap)
				return
			}
			require.ErrorIs(t, res.Trap, meter.ErrNoMeter)
		})
	}
}
