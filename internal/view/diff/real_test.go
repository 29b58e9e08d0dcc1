package diff

import (
	"bytes"
	"testing"

	"github.com/jsprof/jsprof/internal/view/reporttest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The real profiles of reporttest's testdata/real (make.sh):
// fixtures/js/fib.js and sort.js on the two pinned Javy plugins, a patched
// Bellard QuickJS of early 2024 and QuickJS-NG v0.10, as jsprof run wrote
// them.

func TestDiffRealProfiles(t *testing.T) {
	fib := New(readReal(t, "fib-quickjs-2024.pb.gz"), readReal(t, "fib-quickjs-ng-0.10.pb.gz"), "fib-quickjs-2024.pb.gz", "fib-quickjs-ng-0.10.pb.gz")
	assert.Equal(t, fib.Base.Executions, fib.New.Executions, "fib.js: both engines execute the same opcodes")
	for _, o := range fib.Opcodes {
		assert.Empty(t, o.Only, "%s: the same opcodes in both", o.Name)
		assert.Equal(t, o.Base.Executions, o.New.Executions, o.Name)
	}
	require.NotEmpty(t, fib.Functions)
	assert.Equal(t, "fib", fib.Functions[0].Name)
	assert.Empty(t, fib.Warnings, "functions align by name, file and line")

	sort := New(readReal(t, "sort-quickjs-2024.pb.gz"), readReal(t, "sort-quickjs-ng-0.10.pb.gz"), "sort-quickjs-2024.pb.gz", "sort-quickjs-ng-0.10.pb.gz")
	only := map[string]string{}
	for _, o := range sort.Opcodes {
		only[o.Name] = o.Only
	}
	assert.Equal(t, OnlyNew, only["swap"])
	assert.Equal(t, OnlyBase, only["to_propkey2"])
	assert.Equal(t, "insertionSort", sort.Functions[0].Name, "the largest change")
	var sum int64
	for _, o := range sort.Opcodes {
		sum += o.DeltaWasmInstructions
	}
	for _, b := range sort.Buckets {
		sum += b.DeltaWasmInstructions
	}
	assert.Equal(t, sort.DeltaWasmInstructions, sum)

	for _, tt := range []struct {
		name string
		df   *Diff
	}{{"fib", fib}, {"sort", sort}} {
		t.Run(tt.name, func(t *testing.T) {
			for _, f := range []struct {
				ext   string
				write func(*bytes.Buffer) error
			}{
				{"txt", func(b *bytes.Buffer) error { return tt.df.WriteText(b, 12) }},
				{"csv", func(b *bytes.Buffer) error { return tt.df.WriteCSV(b) }},
				{"json", func(b *bytes.Buffer) error { return tt.df.WriteJSON(b) }},
			} {
				var out bytes.Buffer
				require.NoError(t, f.write(&out))
				reporttest.Golden(t, "real-diff-"+tt.name+"."+f.ext, out.Bytes())
			}
		})
	}
}

// TestDiffRealWasm: the Wasm view of the diff of real sample-mode profiles
// (sort.js on both plugins): the selves' changes add up to the samples'.
func TestDiffRealWasm(t *testing.T) {
	d, ng := readReal(t, "sort-quickjs-2024-sample.pb.gz"), readReal(t, "sort-quickjs-ng-0.10-sample.pb.gz")
	df := New(d, ng, "sort-quickjs-2024-sample.pb.gz", "sort-quickjs-ng-0.10-sample.pb.gz")
	require.NotEmpty(t, df.Wasm)
	assert.Empty(t, df.WasmWarnings)
	var sum int64
	for _, w := range append(append([]WasmFunction(nil), df.Wasm...), df.WasmBuckets...) {
		sum += w.DeltaSelfWasmInstructions
	}
	assert.Equal(t, int64(ng.SampledWasmInstructions)-int64(d.SampledWasmInstructions), sum, "the selves' changes add up to the samples'")
	var out bytes.Buffer
	require.NoError(t, df.WriteWasmText(&out, 12))
	reporttest.Golden(t, "real-diff-sort-sample-by-wasm.txt", out.Bytes())
}
