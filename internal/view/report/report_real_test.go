package report

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

func TestReportRealProfiles(t *testing.T) {
	for _, engine := range []string{"quickjs-2024", "quickjs-ng-0.10"} {
		t.Run(engine, func(t *testing.T) {
			d := readReal(t, "fib-"+engine+".pb.gz")
			assert.Equal(t, "exact", d.Mode)
			assert.Equal(t, d.TotalWasmInstructions, d.SampledWasmInstructions)
			var fib *FunctionStats
			for i := range d.Functions {
				if d.Functions[i].Name == "fib" {
					fib = &d.Functions[i]
				}
			}
			require.NotNil(t, fib)
			assert.Equal(t, uint64(21891), fib.Calls, "fib(20) calls fib 21891 times")
			assert.Equal(t, "function.mjs", fib.File)
			assert.Equal(t, 1, fib.Line)
			assert.Greater(t, fib.Share, 0.99)
			var sum uint64
			for _, l := range d.Lines {
				sum += l.SelfWasmInstructions
				assert.NotZero(t, l.Line, "%s: every pc has a line", l.Function)
			}
			for _, b := range d.Buckets {
				sum += b.WasmInstructions
			}
			assert.Equal(t, d.TotalWasmInstructions, sum)
		})
	}
	t.Run("engines", func(t *testing.T) {
		assert.Equal(t, "quickjs", readReal(t, "fib-quickjs-2024.pb.gz").Engine.Family)
		assert.Equal(t, "quickjs-ng", readReal(t, "fib-quickjs-ng-0.10.pb.gz").Engine.Family)
	})
}

func TestReportRealGolden(t *testing.T) {
	for _, name := range []string{"fib-quickjs-2024", "fib-quickjs-ng-0.10", "sort-quickjs-ng-0.10"} {
		d := readReal(t, name+".pb.gz")
		for _, by := range []string{ByOpcode, ByFunction, ByLine} {
			t.Run(name+"/"+by, func(t *testing.T) {
				r, err := NewReport(d, ReportOptions{By: by, Top: 10, Source: name + ".pb.gz"})
				require.NoError(t, err)
				goldenFormats(t, r, "real-"+name+"-by-"+by)
			})
		}
	}
}

// TestReportRealSummaryGolden: the summary view is what jsprof run
// --report prints and --report-json writes (cmd/jsprof's
// TestRunReportIsTheSummary checks that they are the same).
func TestReportRealSummaryGolden(t *testing.T) {
	for _, name := range []string{"fib-quickjs-2024", "sort-quickjs-ng-0.10"} {
		t.Run(name, func(t *testing.T) {
			d := readReal(t, name+".pb.gz")
			r, err := NewReport(d, ReportOptions{By: BySummary, Top: 10, Source: name + ".pb.gz"})
			require.NoError(t, err)
			var text, doc bytes.Buffer
			require.NoError(t, r.WriteText(&text))
			require.NoError(t, r.WriteJSON(&doc))
			reporttest.Golden(t, "real-"+name+"-summary.txt", text.Bytes())
			reporttest.Golden(t, "real-"+name+"-summary.json", doc.Bytes())
			assert.Error(t, r.WriteCSV(&bytes.Buffer{}), "one CSV table cannot hold the summary's two")
		})
	}
}

// TestReportRealWasm: the Wasm view of real sample-mode profiles (sort.js
// on both plugins): QuickJS's property helpers reached from the property
// opcodes, every sample some row's self once.
func TestReportRealWasm(t *testing.T) {
	for _, name := range []string{"sort-quickjs-2024-sample", "sort-quickjs-ng-0.10-sample"} {
		t.Run(name, func(t *testing.T) {
			d := readReal(t, name+".pb.gz")
			require.Equal(t, "sample", d.Mode)
			require.NotEmpty(t, d.WasmFunctions)
			var self uint64
			for _, f := range append(append([]WasmFunctionStats(nil), d.WasmFunctions...), d.WasmBuckets...) {
				self += f.SelfWasmInstructions
				assert.LessOrEqual(t, f.SelfWasmInstructions, f.TotalWasmInstructions, f.Name)
				assert.LessOrEqual(t, f.TotalWasmInstructions, d.SampledWasmInstructions, f.Name)
			}
			assert.Equal(t, d.SampledWasmInstructions, self, "every sample is one row's self")
			require.NotEmpty(t, d.WasmBuckets)
			assert.Equal(t, WasmInterpreterName, d.WasmBuckets[0].Name)
			assert.Greater(t, d.WasmBuckets[0].Share, 0.5, "sort.js runs mostly in the interpreter's own code")

			r, err := NewReport(d, ReportOptions{By: ByWasm, Top: 10, Source: name + ".pb.gz"})
			require.NoError(t, err)
			var out bytes.Buffer
			require.NoError(t, r.WriteText(&out))
			reporttest.Golden(t, "real-"+name+"-by-wasm.txt", out.Bytes())
		})
	}

	// The 2024 plugin keeps its function names: JS_GetPropertyInternal is
	// reached from get_field above all.
	d := readReal(t, "sort-quickjs-2024-sample.pb.gz")
	gp := wasmNamed(d.WasmFunctions, "JS_GetPropertyInternal")
	require.NotNil(t, gp)
	require.NotEmpty(t, gp.Callers)
	assert.Equal(t, "op:get_field", gp.Callers[0].Label())
}
