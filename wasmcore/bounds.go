package wasmcore

import (
	"context"
	"errors"
	"fmt"
)

// Bounds on what a module may ask of a compiler, past which CheckBounds
// refuses it. wazero's compiler takes time quadratic in a function's
// block nesting and in a br_table's length (one function of 100,000
// nested blocks, 300 KB, took 40 s; one br_table of 10^6 entries, 1 MB,
// 22 s and 2.4 GB), and compiling cannot be interrupted. The real
// engines jsprof profiles (QuickJS and QuickJS-NG in Javy plugins,
// Shopify providers, quickjs-wasi, jitl) are far within them: at most
// 520,000 nesting work, 541,000 br_table work, 90 KB functions.
const (
	// MaxNestingWork bounds the sum, over every block, loop and if of
	// the module, of the depth it opens at: about a second of wazero's
	// compiler (5,000 nested blocks in one function are 12.5 million,
	// 0.4 s; 10,000, 50 million, 1.5 s).
	MaxNestingWork = 1 << 25
	// MaxBrTableWork bounds the sum of the squares of the br_tables'
	// lengths: one table of 16,384 entries, 0.4 s (65,536 took 7 s).
	MaxBrTableWork = 1 << 28
	// MaxFunctionBytes bounds a function body, as V8 does (7,654,321).
	MaxFunctionBytes = 8 << 20
)

// ErrTooComplex is CheckBounds' error.
var ErrTooComplex = errors.New("more than jsprof compiles")

// CheckBounds refuses a module past the bounds above, naming the function
// and the byte offset where the bound was passed: compiling it could take
// minutes and gigabytes. It reads every instruction once (40 ms for a
// 1.2 MB engine), unless ctx is done first: it then returns ctx's error.
func CheckBounds(ctx context.Context, m *Module) error {
	var nesting, brTables uint64
	imported := m.NumImportedFuncs()
	for i := range m.Functions {
		if i%64 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		f := &m.Functions[i]
		where := func(off uint32) string {
			return fmt.Sprintf("function %d (offset %#x)", imported+uint32(i), f.BodyOffset+off)
		}
		if len(f.Body) > MaxFunctionBytes {
			return fmt.Errorf("%s: a body of %d bytes: %w (%d)", where(0), len(f.Body), ErrTooComplex, MaxFunctionBytes)
		}
		ir := NewInstrReader(f.Body)
		var depth uint64
		for {
			in, ok, err := ir.Next()
			if err != nil {
				return fmt.Errorf("%s: %w", where(0), err)
			}
			if !ok {
				break
			}
			switch in.Op {
			case OpBlock, OpLoop, OpIf, OpTry:
				depth++
				if nesting += depth; nesting > MaxNestingWork {
					return fmt.Errorf("%s: blocks nested %d deep, %d nesting work in the module: %w (%d)", where(in.Offset), depth, nesting, ErrTooComplex, MaxNestingWork)
				}
			case OpEnd:
				if depth > 0 {
					depth--
				}
			case OpBrTable:
				n := uint64(len(in.Labels))
				if brTables += n * n; brTables > MaxBrTableWork {
					return fmt.Errorf("%s: a br_table of %d entries, %d br_table work in the module: %w (%d)", where(in.Offset), n, brTables, ErrTooComplex, MaxBrTableWork)
				}
			}
		}
	}
	return nil
}
