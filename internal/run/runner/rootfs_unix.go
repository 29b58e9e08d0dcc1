//go:build unix

package runner

import "syscall"

// openNonblock is added to every open: opening a FIFO for reading would
// otherwise block until a writer comes (OpenFile then refuses it anyway).
// Regular files and directories ignore it.
const openNonblock = syscall.O_NONBLOCK
