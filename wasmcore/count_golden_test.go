package wasmcore_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/fixtures/interp"
	"github.com/jsprof/jsprof/wasmcore"
)

// countVariant is one way of counting, set up on a freshly decoded module.
type countVariant struct {
	name string
	opts func(m *wasmcore.Module) wasmcore.CountOptions
}

// countVariants covers every counting mode and their combinations with
// hooks, locals and checkpoints, under the cost model given.
func countVariants(cost wasmcore.CostModel) []countVariant {
	allFuncs := func(m *wasmcore.Module, every int) map[uint32]bool {
		out := map[uint32]bool{}
		for i := range m.Functions {
			if i%every == 0 {
				out[m.NumImportedFuncs()+uint32(i)] = true
			}
		}
		return out
	}
	// checkpoint adds the global and names the function (added by
	// countGolden after counting) that a checkpoint needs.
	checkpoint := func(m *wasmcore.Module) *wasmcore.Checkpoint {
		next := m.AddGlobal(wasmcore.Global{Type: wasmcore.GlobalType{Type: wasmcore.ValI64, Mutable: true}, Init: wasmcore.ConstI64(-1)})
		return &wasmcore.Checkpoint{Next: next, Call: m.NumFuncs()}
	}
	// hooks puts nops at the entry and exit of every third function and
	// before its calls and br_tables: enough to wrap bodies, flush locals
	// and stop hoisting.
	hooks := func(m *wasmcore.Module, unread bool) map[uint32]wasmcore.Hooks {
		out := map[uint32]wasmcore.Hooks{}
		nop := []byte{byte(wasmcore.OpNop)}
		for idx := range allFuncs(m, 3) {
			h := wasmcore.Hooks{Entry: nop, Exit: nop, Before: map[uint32][]byte{}, CountUnread: unread}
			ins, err := wasmcore.DecodeInstructions(m.Function(idx).Body)
			if err != nil {
				continue
			}
			for _, in := range ins {
				switch in.Op {
				case wasmcore.OpBrTable, wasmcore.OpCall, wasmcore.OpCallIndirect:
					h.Before[in.Offset] = nop
				}
			}
			out[idx] = h
		}
		return out
	}
	return []countVariant{
		{"per-instruction", func(*wasmcore.Module) wasmcore.CountOptions {
			return wasmcore.CountOptions{Cost: cost, PerInstruction: true}
		}},
		{"per-instruction, checkpoints", func(m *wasmcore.Module) wasmcore.CountOptions {
			return wasmcore.CountOptions{Cost: cost, PerInstruction: true, Checkpoint: checkpoint(m)}
		}},
		{"segments", func(*wasmcore.Module) wasmcore.CountOptions {
			return wasmcore.CountOptions{Cost: cost}
		}},
		{"segments, hooks", func(m *wasmcore.Module) wasmcore.CountOptions {
			return wasmcore.CountOptions{Cost: cost, Hooks: hooks(m, false)}
		}},
		{"hoist local, hooks, checkpoints", func(m *wasmcore.Module) wasmcore.CountOptions {
			return wasmcore.CountOptions{Cost: cost, Hoist: wasmcore.HoistLocal, Hooks: hooks(m, false), Checkpoint: checkpoint(m)}
		}},
		{"hoist across calls", func(*wasmcore.Module) wasmcore.CountOptions {
			return wasmcore.CountOptions{Cost: cost, Hoist: wasmcore.HoistAcrossCalls}
		}},
		{"hoist across calls, half in locals, hooks", func(m *wasmcore.Module) wasmcore.CountOptions {
			return wasmcore.CountOptions{Cost: cost, Hoist: wasmcore.HoistAcrossCalls, InLocal: allFuncs(m, 2), Hooks: hooks(m, true)}
		}},
		{"hoist across calls, in locals, checkpoints", func(m *wasmcore.Module) wasmcore.CountOptions {
			return wasmcore.CountOptions{Cost: cost, Hoist: wasmcore.HoistAcrossCalls, InLocal: allFuncs(m, 1), Checkpoint: checkpoint(m)}
		}},
	}
}

// countGolden returns the sha256 of the rewrites of wasm by every variant.
func countGolden(t *testing.T, wasm []byte, variants []countVariant) string {
	t.Helper()
	h := sha256.New()
	for _, v := range variants {
		m, err := wasmcore.Decode(wasm)
		require.NoError(t, err)
		opts := v.opts(m)
		_, err = m.CountInstructions(opts)
		require.NoError(t, err, v.name)
		if opts.Checkpoint != nil {
			m.AddFunction(wasmcore.Function{Type: m.AddType(wasmcore.FuncType{}), Body: []byte{byte(wasmcore.OpEnd)}})
		}
		out, err := m.Encode()
		require.NoError(t, err, v.name)
		fmt.Fprintf(h, "%s\x00%d\x00", v.name, len(out))
		h.Write(out)
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// countGoldenInputs: the shapes, every interpreter build and two real
// engines, by name.
func countGoldenInputs(t *testing.T) map[string]func(t *testing.T) []byte {
	t.Helper()
	file := func(p string) func(t *testing.T) []byte {
		return func(t *testing.T) []byte {
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			return b
		}
	}
	inputs := map[string]func(t *testing.T) []byte{}
	for _, name := range []string{"shapes.wasm", "costs.wasm", "calls.wasm", "features.wasm"} {
		inputs["testdata/"+name] = file(filepath.Join("testdata", name))
	}
	mods, err := interp.Modules()
	require.NoError(t, err)
	for _, mod := range mods {
		inputs["interp/"+mod.File] = file(interp.Path(mod.File))
	}
	for _, name := range []string{"javy-plugin-1.7.0", "javy-plugin-1.1.0"} {
		inputs["engine/"+name] = func(t *testing.T) []byte { return fixtures.EngineBytes(t, name) }
	}
	return inputs
}

// countAllGolden holds the hashes of the CostAll rewrites as the code
// produced them before cost models existed: the default model must keep
// producing exactly that code, since the dispatch accounting and every
// profile's totals are built on it.
var countAllGolden = map[string]string{
	"engine/javy-plugin-1.1.0":             "045e5c368e1ef5062648f7c556baa579",
	"engine/javy-plugin-1.7.0":             "3add126d5d0b31cc72ef0b502ee4d338",
	"interp/build/bare-O0.wasm":            "cd929a4b13feb6adfb166f7ba36af382",
	"interp/build/bare-O2-wasmopt.wasm":    "95d0ea3bd8a81dcf23a1ddcef757698e",
	"interp/build/bare-O2.wasm":            "305540e4d632563e9e91610a9f1bfdaa",
	"interp/build/bare-Oz.wasm":            "6c82745f3fc7975296cd18f4a18aeae0",
	"interp/build/bare-direct-O2.wasm":     "ca0736659858cac2610c365042f20ac9",
	"interp/build/direct-O2-wasmopt.wasm":  "3179528f938032aa6a7aa56ae3659d7f",
	"interp/build/direct-O2.wasm":          "ef4661cddda2274cce3c26d889f1805e",
	"interp/build/direct-Oz.wasm":          "0f7e841a541bf77248e216b7c6da6375",
	"interp/build/interp-O0.wasm":          "c650e9a9dd5374a899ada24ddc154521",
	"interp/build/interp-O2-stripped.wasm": "9cd97fe66fdbe57655062ffb6380ab46",
	"interp/build/interp-O2-wasmopt.wasm":  "ac2fd53834618239ee1808e949cbab0c",
	"interp/build/interp-O2.wasm":          "ec87bf7a565a1bb3a783424369e21eb1",
	"interp/build/interp-Oz.wasm":          "3d6ee1897d7441e2715221716848dda7",
	"testdata/calls.wasm":                  "217e23b1e4cbaca0f7d9aa431f645c6f",
	"testdata/costs.wasm":                  "eda08d199089473717088a30e4505d04",
	"testdata/features.wasm":               "a86502d7d804921bf49694d65e35728e",
	"testdata/shapes.wasm":                 "50877e45c25a6700625a36e4c290dbba",
}

// TestCountInstructionsCostAllUnchanged: under the default cost model,
// every counting mode rewrites every fixture exactly as before.
func TestCountInstructionsCostAllUnchanged(t *testing.T) {
	inputs := countGoldenInputs(t)
	got := map[string]string{}
	for name, read := range inputs {
		t.Run(name, func(t *testing.T) {
			got[name] = countGolden(t, read(t), countVariants(wasmcore.CostAll))
		})
	}
	var lines []string
	for name, h := range got {
		lines = append(lines, fmt.Sprintf("\t%q: %q,\n", name, h))
	}
	sort.Strings(lines)
	for name, h := range got {
		if countAllGolden[name] != h {
			t.Errorf("%s: the CostAll rewrite changed; hashes now:\n%s", name, strings.Join(lines, ""))
			break
		}
	}
}
