//go:build !unix

package cachedir

import "os"

// tryLock: this platform's advisory locks are not used; every process
// compiles what it does not find.
func tryLock(*os.File) (locked, ok bool) { return false, false }

// unlockFile has nothing to release.
func unlockFile(*os.File) {}
