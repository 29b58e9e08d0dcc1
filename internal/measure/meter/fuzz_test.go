package meter_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime/metrics"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/fixtures/interp"
	"github.com/jsprof/jsprof/internal/measure/meter"
	"github.com/jsprof/jsprof/wasmcore"
)

// FuzzInstrument runs what jsprof run does to a module before running it
// on fuzzed modules: decode, analyse, and where a dispatch is found,
// rewrite in exact and in sampling mode and encode. None of it may panic;
// what it allocates stays within a fixed multiple of the input's size; the
// rewrite of a module wazero accepts must be accepted too, and decode
// again. Seeded with the fixture interpreters' smallest builds, whose
// dispatch is found.
func FuzzInstrument(f *testing.F) {
	for _, name := range []string{"bare-O2-wasmopt.wasm", "direct-O2-wasmopt.wasm", "interp-O2-wasmopt.wasm"} {
		b, err := os.ReadFile(interp.Path("build", name))
		require.NoError(f, err)
		f.Add(b)
	}
	extra, _ := filepath.Glob("testdata/*.wasm")
	for _, p := range extra {
		b, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(b)
	}
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	f.Cleanup(func() { rt.Close(ctx) })
	valid := func(b []byte) error {
		c, err := rt.CompileModule(ctx, b)
		if err == nil {
			c.Close(ctx)
		}
		return err
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		before := allocated()
		m, err := wasmcore.Decode(b)
		if err != nil {
			return
		}
		rep, err := dispatch.Analyze(ctx, m)
		if err != nil || rep.Dispatch == nil {
			checkAllocation(t, before, b)
			return
		}
		var outs [][]byte
		for _, opts := range []meter.Options{{Checkpoints: true}, {Checkpoints: true, WasmStacks: true}, {Sample: true}} {
			m, err := wasmcore.Decode(b)
			require.NoError(t, err)
			if _, err := meter.Instrument(m, rep.Dispatch, opts); err != nil {
				continue
			}
			out, err := m.Encode()
			if err != nil {
				continue
			}
			_, err = wasmcore.Decode(out)
			require.NoError(t, err, "the rewrite decodes")
			outs = append(outs, out)
		}
		checkAllocation(t, before, b)
		if len(outs) == 0 || valid(b) != nil {
			return
		}
		for _, out := range outs {
			require.NoError(t, valid(out), "the rewrite of a valid module is valid")
		}
	})
}

// checkAllocation fails if more than a fixed multiple of the input's size
// was allocated since before: sizes read from the input must be checked
// against it before anything is allocated for them.
func checkAllocation(t *testing.T, before uint64, input []byte) {
	t.Helper()
	if n, limit := allocated()-before, uint64(512*len(input)+64<<20); n > limit {
		t.Fatalf("%d bytes allocated for %d bytes of input (limit %d)", n, len(input), limit)
	}
}

// allocated is the bytes allocated on the heap so far (cheap to read; small
// allocations are counted a span at a time).
func allocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
