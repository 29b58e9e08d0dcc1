package runner

import (
	"fmt"

	"github.com/tetratelabs/wazero/api"

	"github.com/jsprof/jsprof/wasmcore"
)

// RestoreDetached puts a program detached from a module
// (wasmcore.DetachSegment) back into mod, an instance of that module,
// before anything of it runs: it grows the memory by whole pages for the
// bytes, writes them there and tells the module where they are, through
// the globals DetachSegment added. It returns where the bytes are and how
// many bytes the memory grew by, 0 for an instance of another module.
func RestoreDetached(mod api.Module, d *wasmcore.DetachedSegment) (addr uint32, grew uint64, err error) {
	base, ok := mod.ExportedGlobal(wasmcore.DetachedBaseExport).(api.MutableGlobal)
	if !ok {
		return 0, 0, nil
	}
	length, ok := mod.ExportedGlobal(wasmcore.DetachedLenExport).(api.MutableGlobal)
	mem := mod.Memory()
	if !ok || mem == nil {
		return 0, 0, fmt.Errorf("restoring the program's data segment %d: the prepared module lacks its globals or memory", d.Index)
	}
	const pageSize = 65536
	pages := uint32((uint64(len(d.Bytes)) + pageSize - 1) / pageSize)
	prev, ok := mem.Grow(pages)
	if !ok {
		return 0, 0, fmt.Errorf("restoring the program's data segment %d: cannot grow the memory by %d pages", d.Index, pages)
	}
	addr = prev * pageSize
	if !mem.Write(addr, d.Bytes) {
		return 0, 0, fmt.Errorf("restoring the program's data segment %d: cannot write %d bytes at %#x", d.Index, len(d.Bytes), addr)
	}
	base.Set(uint64(addr))
	length.Set(uint64(len(d.Bytes)))
	return addr, uint64(pages) * pageSize, nil
}
