//go:build unix

package fileio

import "syscall"

// openNonblock makes opening a FIFO return at once rather than wait for
// a writer; regular files ignore it.
const openNonblock = syscall.O_NONBLOCK
