package dispatch_test

import (
	"context"
	"fmt"
	"os"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/fixtures/interp"
	"github.com/jsprof/jsprof/wasmcore"
)

// A module is analysed by its code alone: here one of the project's own
// small interpreters, built with -O2 and stripped of its names, whose
// dispatch is found by the shape of its br_table and the pc it advances.
func ExampleAnalyze() {
	wasm, err := os.ReadFile(interp.Path("build", "interp-O2-stripped.wasm"))
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := wasmcore.Decode(wasm)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := dispatch.Analyze(context.Background(), m)
	if err != nil {
		fmt.Println(err)
		return
	}
	d := r.Dispatch
	fmt.Printf("function %d, %d opcodes, selector %s, pc in %s\n", d.FunctionIndex, d.OpcodeCount, d.Selector.Kind, d.PC.Kind)
	fmt.Println("named:", d.FunctionName != "")
	// Output:
	// function 10, 71 opcodes, selector direct, pc in local
	// named: false
}
