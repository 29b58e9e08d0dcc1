//go:build linux

package naming

import (
	"syscall"
	"unsafe"
)

// touchedRegions returns the regions of b, a guest's linear memory, that
// may hold anything but zeros: the pages the kernel has backed (mincore).
// A memory declared with a large minimum (65,530 pages: 4 GiB) is mostly
// pages the guest never touched; reading them would back every one of
// them (gigabytes of resident memory) and take seconds per pass, for
// zeros. A memory below a few dozen megabytes is read whole, as is any
// memory the kernel will not describe.
func touchedRegions(b []byte) [][2]int {
	whole := [][2]int{{0, len(b)}}
	if len(b) < 64<<20 {
		return whole
	}
	page := syscall.Getpagesize()
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := base &^ uintptr(page-1)
	skew := int(base - start)
	pages := (skew + len(b) + page - 1) / page
	vec := make([]byte, pages)
	if _, _, errno := syscall.Syscall(syscall.SYS_MINCORE, start, uintptr(pages*page), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		return whole
	}
	var out [][2]int
	for i := 0; i < pages; i++ {
		if vec[i]&1 == 0 {
			continue
		}
		lo, hi := max(i*page-skew, 0), min((i+1)*page-skew, len(b))
		if n := len(out); n > 0 && out[n-1][1] == lo {
			out[n-1][1] = hi
			continue
		}
		out = append(out, [2]int{lo, hi})
	}
	return out
}
