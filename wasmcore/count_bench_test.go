package wasmcore_test

import (
	"testing"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/wasmcore"
)

// BenchmarkCountInstructions rewrites the newer Javy plugin (1,404
// functions) in the exact and the sampling modes, under each cost model:
// the rewrite runs at every profile's start.
func BenchmarkCountInstructions(b *testing.B) {
	data := fixtures.EngineBytes(b, "javy-plugin-1.7.0")
	for _, cost := range []wasmcore.CostModel{wasmcore.CostAll, wasmcore.CostFuel} {
		for _, mode := range []struct {
			name string
			opts func(m *wasmcore.Module) wasmcore.CountOptions
		}{
			{"segments", func(*wasmcore.Module) wasmcore.CountOptions { return wasmcore.CountOptions{Cost: cost} }},
			{"per-instruction", func(*wasmcore.Module) wasmcore.CountOptions {
				return wasmcore.CountOptions{Cost: cost, PerInstruction: true}
			}},
			{"sample", func(m *wasmcore.Module) wasmcore.CountOptions {
				all := map[uint32]bool{}
				for i := range m.Functions {
					all[m.NumImportedFuncs()+uint32(i)] = true
				}
				next := m.AddGlobal(wasmcore.Global{Type: wasmcore.GlobalType{Type: wasmcore.ValI64, Mutable: true}, Init: wasmcore.ConstI64(-1)})
				return wasmcore.CountOptions{Cost: cost, Hoist: wasmcore.HoistAcrossCalls, InLocal: all, Checkpoint: &wasmcore.Checkpoint{Next: next, Call: m.NumFuncs()}}
			}},
		} {
			b.Run(cost.String()+"/"+mode.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					b.StopTimer()
					m, err := wasmcore.Decode(data)
					if err != nil {
						b.Fatal(err)
					}
					opts := mode.opts(m)
					b.StartTimer()
					if _, err := m.CountInstructions(opts); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
