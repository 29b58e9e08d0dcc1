package wasmcore_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"

	"github.com/jsprof/jsprof/fixtures/interp"
	"github.com/jsprof/jsprof/wasmcore"
)

// FuzzCountInstructions: every way of counting, under every cost model,
// rewrites any module it accepts into one that decodes, and a valid module
// into a valid one, whatever its control flow: hoisting restructures
// br_ifs and adds else arms, and must never produce code wazero rejects,
// also where the code it moves or takes back costs nothing.
func FuzzCountInstructions(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.wasm")
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(b)
	}
	for _, name := range []string{"bare-O2-wasmopt.wasm", "interp-Oz.wasm"} {
		b, err := os.ReadFile(interp.Path("build", name))
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
		if _, err := wasmcore.Decode(b); err != nil {
			return
		}
		isValid := valid(b) == nil
		for _, cost := range []wasmcore.CostModel{wasmcore.CostAll, wasmcore.CostFuel} {
			for _, h := range []wasmcore.Hoisting{wasmcore.HoistNone, wasmcore.HoistLocal, wasmcore.HoistAcrossCalls} {
				m, err := wasmcore.Decode(b)
				require.NoError(t, err)
				inLocal := map[uint32]bool{}
				for i := range m.Functions {
					if i%2 == 0 {
						inLocal[m.NumImportedFuncs()+uint32(i)] = true
					}
				}
				next := m.AddGlobal(wasmcore.Global{Type: wasmcore.GlobalType{Type: wasmcore.ValI64, Mutable: true}, Init: wasmcore.ConstI64(-1)})
				call := m.NumFuncs()
				if _, err := m.CountInstructions(wasmcore.CountOptions{Cost: cost, Hoist: h, InLocal: inLocal, Checkpoint: &wasmcore.Checkpoint{Next: next, Call: call}}); err != nil {
					continue
				}
				m.AddFunction(wasmcore.Function{Type: m.AddType(wasmcore.FuncType{}), Body: []byte{byte(wasmcore.OpEnd)}})
				out, err := m.Encode()
				if err != nil {
					continue
				}
				_, err = wasmcore.Decode(out)
				require.NoError(t, err, "the rewrite decodes")
				if isValid {
					require.NoError(t, valid(out), "%s, hoisting %d: the rewrite of a valid module is valid", cost, h)
				}
			}
		}
	})
}
