package cachedir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The cache holds native code that jsprof maps and jumps into, and seals
// that anyone able to write the cache could write as well: it is trusted
// only when no one but jsprof's own user (the effective user it runs as)
// could have written it. Its directory, and the directories in it that
// jsprof and wazero keep (wazero-*, jsprof-*), must each be a directory
// owned by that user and writable by no one else: neither by its group
// nor by others, a sticky bit notwithstanding (a sticky directory still
// lets others create the names jsprof reads). A directory that does not
// exist yet is fine: wazero makes it, the user's own, mode 0700. Entries
// (files) that are not the user's own, or that others may write, are
// dropped (verifyEntries). Where the platform does not tell owners
// (Windows), nothing is checked. The directories above the cache are not
// checked: one that others may write lets them replace the cache, as it
// lets them replace anything else of the user's beneath it.

// Trusted is c, or, when its directory is not one jsprof may trust
// (trustDir), c without a directory, Warn told why in one line: the
// run goes uncached.
func (c Cache) Trusted() Cache {
	if c.Dir == "" {
		return c
	}
	if err := trustDir(c.Dir); err != nil {
		if c.Warn != nil {
			c.Warn(fmt.Errorf("--cache-dir %s: %w; running uncached", c.Dir, err))
		}
		c.Dir = ""
	}
	return c
}

// trustDir says why the cache directory dir may not be trusted (the rule
// above), nil when it may: one stat of it and one of each of its
// wazero-* and jsprof-* directories.
func trustDir(dir string) error {
	info, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s: not a directory", dir)
	}
	uid := os.Geteuid()
	if err := notOurs(dir, info, uid); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("reading %s: %w", dir, err)
	}
	for _, e := range entries {
		if name := e.Name(); !strings.HasPrefix(name, "wazero-") && !strings.HasPrefix(name, "jsprof-") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		info, err := os.Lstat(path)
		if err != nil {
			return err
		}
		if !info.IsDir() {
			return fmt.Errorf("%s: not a directory", path)
		}
		if err := notOurs(path, info, uid); err != nil {
			return err
		}
	}
	return nil
}

// notOurs says why path (info, as stat saw it) is not the user uid's
// own alone: another user owns it, or its group or others may write it.
// nil where the platform does not tell owners.
func notOurs(path string, info fs.FileInfo, uid int) error {
	o, ok := owner(info)
	if !ok {
		return nil
	}
	if o != uid {
		return fmt.Errorf("%s is owned by user %d, not by user %d that jsprof runs as: a cache is trusted only when jsprof's own user made it", path, o, uid)
	}
	if perm := info.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("%s is writable by other users (mode %04o): a cache is trusted only when no one else can write it (chmod go-w)", path, perm)
	}
	return nil
}
