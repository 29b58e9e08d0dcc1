//go:build linux

package naming

import (
	"encoding/binary"
	"os"
	"syscall"
	"unsafe"
)

// touchedRegions returns the regions of b, a guest's linear memory, that
// may hold anything but zeros: the pages the kernel has backed or swapped
// out. A page the guest never touched holds zeros, and reading it makes
// the kernel back it: on a memory declared with a large minimum (65,530
// pages: 4 GiB) that is gigabytes of resident memory and seconds per pass;
// on a 1.5 MB QuickJS heap, most of it never used, it was 4 ms of page
// faults, the whole of naming's cost.
//
// /proc/self/pagemap tells both backed and swapped pages. Where it cannot
// be read, mincore tells the backed ones only, so it is trusted for large
// memories alone (a swapped page of a small one would be lost), and a
// memory the kernel will not describe is read whole.
func touchedRegions(b []byte) [][2]int {
	whole := [][2]int{{0, len(b)}}
	if len(b) == 0 {
		return nil
	}
	page := syscall.Getpagesize()
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := base &^ uintptr(page-1)
	skew := int(base - start)
	pages := (skew + len(b) + page - 1) / page
	var out [][2]int
	keep := func(i int) {
		lo, hi := max(i*page-skew, 0), min((i+1)*page-skew, len(b))
		if n := len(out); n > 0 && out[n-1][1] == lo {
			out[n-1][1] = hi
			return
		}
		out = append(out, [2]int{lo, hi})
	}
	if pagemapPages(start/uintptr(page), pages, keep) {
		return out
	}
	out = out[:0]
	if len(b) < 64<<20 {
		return whole
	}
	vec := make([]byte, pages)
	if _, _, errno := syscall.Syscall(syscall.SYS_MINCORE, start, uintptr(pages*page), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		return whole
	}
	for i := range pages {
		if vec[i]&1 != 0 {
			keep(i)
		}
	}
	return out
}

// pagemapPages calls keep with the index (from first) of each of n pages
// that is present or swapped, from /proc/self/pagemap; false if it cannot
// be read (keep may have been called for some pages then).
func pagemapPages(first uintptr, n int, keep func(i int)) bool {
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return false
	}
	defer f.Close()
	const (
		entry   = 8
		present = 1 << 63
		swapped = 1 << 62
	)
	buf := make([]byte, 8192*entry)
	for done := 0; done < n; {
		chunk := min(n-done, len(buf)/entry)
		got, err := f.ReadAt(buf[:chunk*entry], int64(first+uintptr(done))*entry)
		if err != nil || got != chunk*entry {
			return false
		}
		for i := range chunk {
			if binary.LittleEndian.Uint64(buf[i*entry:])&(present|swapped) != 0 {
				keep(done + i)
			}
		}
		done += chunk
	}
	return true
}
