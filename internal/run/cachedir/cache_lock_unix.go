//go:build unix

package cachedir

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes f's exclusive advisory lock without waiting: locked when
// taken, ok false when it cannot be taken at all (not merely held by
// another).
func tryLock(f *os.File) (locked, ok bool) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	switch {
	case err == nil:
		return true, true
	case errors.Is(err, syscall.EWOULDBLOCK), errors.Is(err, syscall.EINTR):
		return false, true
	default:
		return false, false
	}
}

// unlockFile releases tryLock's lock.
func unlockFile(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
