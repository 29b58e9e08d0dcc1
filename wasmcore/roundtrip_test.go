package wasmcore

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRoundTripByteIdentical(t *testing.T) {
	for _, in := range allInputs(t) {
		t.Run(in.name, func(t *testing.T) {
			m, err := Decode(in.data)
			require.NoError(t, err)
			out, err := m.Encode()
			require.NoError(t, err)
			if !bytes.Equal(in.data, out) {
				i := 0
				for i < len(out) && i < len(in.data) && out[i] == in.data[i] {
					i++
				}
				t.Fatalf("round trip differs at offset %#x (in %d bytes, out %d bytes)", i, len(in.data), len(out))
			}
		})
	}
}

func TestDecodeInstructionsAllBodies(t *testing.T) {
	for _, in := range allInputs(t) {
		t.Run(in.name, func(t *testing.T) {
			m, err := Decode(in.data)
			require.NoError(t, err)
			nImp := m.NumImportedFuncs()
			for i, f := range m.Functions {
				ins, err := DecodeInstructions(f.Body)
				require.NoError(t, err, "function %d", nImp+uint32(i))
				require.NotEmpty(t, ins)
				// Plain comparisons: this loop sees every instruction of
				// every input, too many for an assertion call each.
				var off uint32
				for j, x := range ins {
					if x.Offset != off {
						t.Fatalf("function %d, instruction %d (%s): offset %d, want %d", nImp+uint32(i), j, x.Op, x.Offset, off)
					}
					off += x.Len
				}
				require.Equal(t, uint32(len(f.Body)), off, "function %d", nImp+uint32(i))
				require.Equal(t, OpEnd, ins[len(ins)-1].Op, "function %d", nImp+uint32(i))
			}
		})
	}
}
