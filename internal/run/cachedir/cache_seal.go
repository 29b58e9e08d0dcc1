package cachedir

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// sealSuffix names the file beside a wazero cache entry that holds
// jsprof's digest of it, its seal. wazero checks a checksum of the
// compiled code, but not of the offsets and sizes around it: a one-bit
// flip in a function's offset made it jump into the wrong place and
// crashed jsprof with SIGSEGV. Entries are checked against their seals
// before wazero can read them (verifyEntries) and dropped when they
// differ: wazero compiles the module again.
const sealSuffix = ".jsprof-sum"

// Seal records a digest of every entry of the cache that has no seal yet
// and is jsprof's user's own: those compiled since the cache was opened,
// by this process or another (Open dropped every entry without a seal).
// A run seals what it compiled as soon as it is compiled
// (Options.Compiled), before anything of the guest runs: a run killed
// later leaves no entry unsealed. Having sealed anything, it trims the
// cache to its size again (trimCache), so that the cache is within it
// when the run ends, not only when the next one starts. It does nothing
// in a directory jsprof may not trust (Trusted), and never fails: an
// entry left unsealed is compiled again later.
func (c Cache) Seal() {
	if c.Dir == "" || trustDir(c.Dir) != nil {
		return
	}
	uid, sealed := os.Geteuid(), false
	walkEntries(c.Dir, func(path string, info os.FileInfo) {
		if !info.Mode().IsRegular() || notOurs(path, info, uid) != nil {
			return
		}
		if _, err := os.Stat(path + sealSuffix); err != nil {
			sealed = sealEntry(path, info) || sealed
		}
	})
	if sealed && c.Limit > 0 {
		trimCache(c.Dir, c.Limit, time.Now())
	}
}

// verifyEntries drops, before wazero opens the cache, every entry that is
// not what it was when sealed, or that has no seal, or that is not
// jsprof's user's own alone (notOurs), and anything in the cache that is
// not a regular file (a link would send wazero elsewhere). An entry
// without a seal is never sealed as it is: it may be one a run killed
// after compiling left (SIGKILL, out of memory), damaged since, or
// another user's; wazero compiles it again. An entry whose file changed
// (its size, times or inode) is read again: the same digest is sealed
// again, another drops it and is said to warn (nil: not said).
func verifyEntries(dir string, warn func(error)) {
	uid := os.Geteuid()
	walkEntries(dir, func(path string, info os.FileInfo) {
		if !info.Mode().IsRegular() {
			os.Remove(path)
			return
		}
		seal, err := os.ReadFile(path + sealSuffix)
		if err != nil || notOurs(path, info, uid) != nil {
			os.Remove(path)
			os.Remove(path + sealSuffix)
			return
		}
		digest, stamp, _ := strings.Cut(strings.TrimSpace(string(seal)), " ")
		if stamp == fileStamp(info) {
			return
		}
		if d, err := fileDigest(path); err == nil && d == digest {
			sealEntry(path, info)
			return
		}
		os.Remove(path)
		os.Remove(path + sealSuffix)
		if warn != nil {
			warn(fmt.Errorf("%w (%s, not as sealed); compiling it again", ErrDamaged, filepath.Base(path)))
		}
	})
}

// walkEntries calls f with every entry of dir's wazero directories (not
// temporary files or seals), as Lstat sees it.
func walkEntries(dir string, f func(path string, info os.FileInfo)) {
	subdirs, _ := filepath.Glob(filepath.Join(dir, "wazero-*"))
	for _, d := range subdirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name := e.Name()
			if strings.HasSuffix(name, ".tmp") || strings.HasSuffix(name, sealSuffix) || e.IsDir() {
				continue
			}
			path := filepath.Join(d, name)
			if info, err := os.Lstat(path); err == nil {
				f(path, info)
			}
		}
	}
}

// sealEntry writes path's seal: its digest and its file's stamp; false
// when it could not.
func sealEntry(path string, info os.FileInfo) bool {
	d, err := fileDigest(path)
	if err != nil {
		return false
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return false
	}
	_, err = fmt.Fprintf(tmp, "%s %s\n", d, fileStamp(info))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path+sealSuffix)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err == nil
}

// fileDigest is the SHA-256 of a file's content, in hex.
func fileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
