//go:build linux || darwin || freebsd || netbsd || openbsd

package runner

import (
	"reflect"
	"runtime"
	"syscall"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// reservingAllocator backs each linear memory of one instantiation with
// address space reserved up to the memory's maximum, committed as the
// memory grows. wazero's default backing is a Go slice that a memory.grow
// past its capacity reallocates and copies: a megabyte or two per growth,
// and the meter grows every profiled guest's memory once at the start.
// Reserving costs address space only (PROT_NONE pages are not memory).
type reservingAllocator struct {
	made []*reservedMemory
}

func newMemoryAllocator() memoryAllocator { return &reservingAllocator{} }

func (a *reservingAllocator) Allocate(capacity, max uint64) experimental.LinearMemory {
	size := roundToOSPage(max)
	if size > 0 && size <= 1<<32 {
		buf, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_NONE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err == nil {
			m := &reservedMemory{buf: buf}
			a.made = append(a.made, m)
			return m
		}
	}
	// No room to reserve (a 32-bit host): grow as wazero does.
	return &sliceMemory{buf: make([]byte, 0, capacity)}
}

// releaseWith unmaps the memories made for an instance once mem, its
// memory, is garbage. Not at Free: wazero frees a module's memory when the
// module closes (as a guest that calls proc_exit is closed), and jsprof
// reads the meter's counters and the engine's bytecode through mem after
// that. mem's object is what holds the memory's bytes, so when it goes,
// nothing can read them.
func (a *reservingAllocator) releaseWith(mem api.Memory) {
	v := reflect.ValueOf(mem)
	if mem == nil || v.Kind() != reflect.Pointer || v.IsNil() {
		return // kept mapped: nothing tells when they are done with
	}
	for _, m := range a.made {
		runtime.AddCleanup((*byte)(v.UnsafePointer()), func(buf []byte) { _ = syscall.Munmap(buf) }, m.buf)
	}
	a.made = nil
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

// Free keeps the memory mapped: see releaseWith.
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
