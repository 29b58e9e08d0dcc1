package runner

import (
	"syscall"
	"unsafe"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

// utimeOmit is Linux's UTIME_OMIT, in a timespec's nanoseconds.
const utimeOmit = 1<<30 - 2

// utimens sets the open file's times through its descriptor, as futimens
// does (utimensat with no path), so that a file renamed or replaced since it
// was opened is still the one changed.
func (f *rootFile) utimens(atim, mtim int64) experimentalsys.Errno {
	ts := [2]syscall.Timespec{timespec(atim), timespec(mtim)}
	rc, err := f.file.SyscallConn()
	if err != nil {
		return fileErrno(err)
	}
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall6(syscall.SYS_UTIMENSAT, fd, 0, uintptr(unsafe.Pointer(&ts[0])), 0, 0, 0)
	}); err != nil {
		return fileErrno(err)
	}
	if errno != 0 {
		return fileErrno(errno)
	}
	return 0
}

func timespec(nsec int64) syscall.Timespec {
	if nsec == experimentalsys.UTIME_OMIT {
		return syscall.Timespec{Nsec: utimeOmit}
	}
	return syscall.NsecToTimespec(nsec)
}
