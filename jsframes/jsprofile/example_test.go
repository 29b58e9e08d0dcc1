package jsprofile_test

import (
	"fmt"
	"strings"

	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// A profile is built stack by stack, root first: here fib called from
// the module's top level, each charged what its opcodes ran, and read
// back stack by stack, leaf first.
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
	jp, err := jsprofile.Read(p)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range jp.Sample {
		var frames []string
		for _, f := range jp.Stack(s, nil) {
			frame := f.Function.Name
			if f.Kind == jsprofile.KindJS {
				frame = fmt.Sprintf("%s (%s:%d)", frame, f.Function.Filename, f.Line)
			}
			frames = append(frames, frame)
		}
		fmt.Println(strings.Join(frames, " < "), s.Value[jsprofile.ValueInstructions])
	}
	// Output:
	// op:call < <eval> (fib.js:5) 500
	// op:add < fib (fib.js:2) < <eval> (fib.js:5) 1000
}
