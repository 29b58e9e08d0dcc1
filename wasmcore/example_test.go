package wasmcore_test

import (
	"fmt"

	"github.com/jsprof/jsprof/wasmcore"
)

// A module is decoded, changed and encoded again; a custom section can
// also be appended to the encoded bytes as they are.
func ExampleDecode() {
	empty := []byte("\x00asm\x01\x00\x00\x00")
	m, err := wasmcore.Decode(wasmcore.AppendCustomSection(empty, "note", []byte("hello")))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range m.Customs {
		fmt.Printf("%s: %s\n", c.Name, c.Data)
	}
	out, err := m.Encode()
	fmt.Println(len(out), err)
	// Output:
	// note: hello
	// 20 <nil>
}

// The initial memory the data segments give: segments closer than the
// gap are one chunk, the gap zero-filled, and later segments overwrite
// earlier ones.
func ExampleNewMemoryImage() {
	segs := []wasmcore.DataSegment{
		{Mode: wasmcore.DataActive, Offset: wasmcore.ConstI32(16), Init: []byte("abcd")},
		{Mode: wasmcore.DataActive, Offset: wasmcore.ConstI32(22), Init: []byte("xy")},
		{Mode: wasmcore.DataActive, Offset: wasmcore.ConstI32(17), Init: []byte("B")},
		{Mode: wasmcore.DataActive, Offset: wasmcore.ConstI32(1000), Init: []byte("far")},
	}
	for _, c := range wasmcore.NewMemoryImage(segs, 8, 0, 0).Chunks {
		fmt.Printf("%d: %q\n", c.Base, c.Data)
	}
	// Output:
	// 16: "aBcd\x00\x00xy"
	// 1000: "far"
}
