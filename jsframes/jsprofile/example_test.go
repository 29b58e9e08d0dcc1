package jsprofile_test

import (
	"fmt"
	"os"

	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// A profile is built stack by stack, root first: here fib called from
// the module's top level, each charged what its opcodes ran, and written
// as collapsed stacks (flamegraph.pl, speedscope).
func ExampleBuilder() {
	b := jsprofile.NewBuilder(jsprofile.Meta{Mode: jsprofile.ModeExact, TotalInstructions: 1500, Module: "fib.wasm"})
	top := jsprofile.JSFrame("<eval>", "fib.js", 1, 5, 0x1000, 0)
	fib := jsprofile.JSFrame("fib", "fib.js", 1, 2, 0x2000, 4)
	b.Add([]jsprofile.Frame{top, jsprofile.OpcodeFrame("call", 0x22)}, 500, 1, 1)
	b.Add([]jsprofile.Frame{top, fib, jsprofile.OpcodeFrame("add", 0x9d)}, 1000, 10, 0)
	p, err := b.Profile()
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := jsprofile.WriteCollapsed(os.Stdout, p, jsprofile.ValueInstructions); err != nil {
		fmt.Println(err)
	}
	// Output:
	// <eval> (fib.js:5);fib (fib.js:2);op:add 1000
	// <eval> (fib.js:5);op:call 500
}
