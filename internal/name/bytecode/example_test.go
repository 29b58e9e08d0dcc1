package bytecode_test

import (
	"fmt"

	"github.com/jsprof/jsprof/internal/name/bytecode"
)

// The release registry says where an engine keeps a function's bytecode
// object: here QuickJS-NG v0.10's (javy-plugin-1.7.0), by the opcode
// table dispatch identified and the debug encoding its bytecode has.
func ExampleMemoryOf() {
	m, ok := bytecode.MemoryOf("quickjs-ng-2025-04-02-bd5be754", bytecode.FormatNG)
	fmt.Println(ok, m.Engine)
	fmt.Printf("buffer at +%d, length +%d, line +%d, pc → line table +%d\n", m.Buf, m.Length, m.Line, m.PC2Line)
	_, ok = bytecode.MemoryOf("quickjs-ng-2025-04-02-bd5be754", bytecode.FormatLines)
	fmt.Println(ok)
	// Output:
	// true javy-plugin-1.7.0
	// buffer at +20, length +24, line +68, pc → line table +84
	// false
}
