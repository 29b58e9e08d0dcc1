//go:build linux || darwin || freebsd || netbsd || openbsd

package runner

import (
	"runtime"
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// reservingAllocator backs each linear memory with address space reserved
// up to the memory's maximum when it is created, committed as the memory
// grows. wazero's default backing is a Go slice that a memory.grow past its
// capacity reallocates and copies: a megabyte or two per growth, and the
// meter grows every profiled guest's memory once at the start. Reserving
// costs address space only (PROT_NONE pages are not memory).
type reservingAllocator struct{}

func memoryAllocator() experimental.MemoryAllocator { return reservingAllocator{} }

func (reservingAllocator) Allocate(capacity, max uint64) experimental.LinearMemory {
	size := roundToOSPage(max)
	if size > 0 && size <= 1<<32 {
		buf, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_NONE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err == nil {
			m := &reservedMemory{buf: buf}
			// Unmapped once nothing refers to it any more, not at Free.
			runtime.AddCleanup(m, func(buf []byte) { _ = syscall.Munmap(buf) }, buf)
			return m
		}
	}
	// No room to reserve (a 32-bit host): grow as wazero does.
	return &sliceMemory{buf: make([]byte, 0, capacity)}
}

type reservedMemory struct {
	buf       []byte // the whole reservation
	committed int    // bytes readable and writable, from the start
}

func (m *reservedMemory) Reallocate(size uint64) []byte {
	if size > uint64(len(m.buf)) {
		return nil
	}
	if want := int(roundToOSPage(size)); want > m.committed {
		if err := syscall.Mprotect(m.buf[m.committed:want], syscall.PROT_READ|syscall.PROT_WRITE); err != nil {
			return nil
		}
		m.committed = want
	}
	return m.buf[:size:size]
}

// Free keeps the memory: wazero frees a module's memory when the module
// closes, as a guest that calls proc_exit does, and jsprof reads the
// meter's counters and the engine's bytecode from it afterwards. The
// mapping goes when the last reference to the memory does (Allocate's
// cleanup).
func (m *reservedMemory) Free() {}

// sliceMemory is wazero's own way: a slice that growth may copy.
type sliceMemory struct{ buf []byte }

func (m *sliceMemory) Reallocate(size uint64) []byte {
	if n := uint64(len(m.buf)); size > n {
		m.buf = append(m.buf, make([]byte, size-n)...)
	}
	return m.buf[:size]
}

func (m *sliceMemory) Free() { m.buf = nil }

func roundToOSPage(n uint64) uint64 {
	page := uint64(syscall.Getpagesize())
	return (n + page - 1) &^ (page - 1)
}
