package cachedir

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"time"
)

// lockSubdir holds one empty lock file per module compiled into the
// cache (named by the module's SHA-256), beside wazero's own folder.
const lockSubdir = "jsprof-locks"

// lockWait bounds how long a process waits for another to compile the
// same module: a Javy engine compiles in 1-5 s, and a process stopped
// while it holds the lock (SIGSTOP, a debugger) must not stop the others
// for ever. Past it, the module is compiled as if no one else were.
const lockWait = time.Minute

// lockPoll is how often a waiting process tries the lock again.
const lockPoll = 20 * time.Millisecond

// LockCompile waits until no other jsprof process, nor another run of
// this one, is compiling wasm into the cache, and holds that until unlock
// is called: processes started together on a new engine then compile it
// once, the others loading what the first stored, where each compiled it
// (a few seconds of CPU each). It never fails: without a directory, a
// lock it cannot take (a read-only folder, a platform without advisory
// locks) or after lockWait, it returns at once, and the module is
// compiled as it was before; ctx done stops the wait.
func (c Cache) LockCompile(ctx context.Context, wasm []byte) (unlock func()) {
	if c.Dir == "" {
		return func() {}
	}
	sum := sha256.Sum256(wasm)
	dir := filepath.Join(c.Dir, lockSubdir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return func() {}
	}
	f, err := os.OpenFile(filepath.Join(dir, hex.EncodeToString(sum[:])), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return func() {}
	}
	deadline := time.Now().Add(lockWait)
	for {
		locked, ok := tryLock(f)
		if locked {
			return func() { unlockFile(f); f.Close() }
		}
		if !ok || time.Now().After(deadline) {
			f.Close()
			return func() {}
		}
		select {
		case <-ctx.Done():
			f.Close()
			return func() {}
		case <-time.After(lockPoll):
		}
	}
}
