package cachedir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tetratelabs/wazero"
)

// DefaultMB is the compilation cache's default bound: a compiled
// engine takes 6-7 MB, so this keeps about 70 of them.
const DefaultMB = 512

// ErrDamaged says that the compilation cache gave wazero something it
// could not use: an entry damaged on disk. The caller can clear the cache
// and run again.
var ErrDamaged = errors.New("the compilation cache has a damaged entry")

// Cache is a compilation cache kept in a directory within a size.
type Cache struct {
	Dir   string // "": no cache
	Limit int64  // bytes
	// Warn, when set, hears why a directory that cannot be used is left
	// out.
	Warn func(error)
}

// Open trims the directory to its size (trimCache), drops the entries
// that are not as sealed (verifyEntries) and opens the cache in it; nil
// when there is no directory, when it is not one jsprof may trust
// (Trusted), or when it cannot be made (HOME=/proc/self, a read-only
// mount): the cache is an optimisation, and the run goes uncached, Warn
// told why.
func (c Cache) Open() (wazero.CompilationCache, error) {
	if c.Dir == "" {
		return nil, nil
	}
	if c.Limit <= 0 {
		return nil, fmt.Errorf("--cache-size %d: want a size in MB, at least 1", c.Limit>>20)
	}
	if c = c.Trusted(); c.Dir == "" {
		return nil, nil
	}
	trimCache(c.Dir, c.Limit, time.Now())
	verifyEntries(c.Dir, c.Warn)
	cache, err := wazero.NewCompilationCacheWithDir(c.Dir)
	if err != nil {
		if c.Warn != nil {
			c.Warn(fmt.Errorf("--cache-dir %s: %w; running uncached", c.Dir, err))
		}
		return nil, nil
	}
	return cache, nil
}

// Clear removes every compiled module of the directory (clearCache), after
// one was found damaged (ErrDamaged).
func (c Cache) Clear() error { return clearCache(c.Dir) }

// staleTemp is how old a temporary file wazero left (a process that died
// while writing an entry) must be before it is removed: entries are written
// in well under a second.
const staleTemp = time.Hour

// trimCache keeps the cache directory within limit bytes, removing the
// entries used least recently first, and removes temporary files older than
// staleTemp. Entries are whole files written by wazero with a rename, so
// another jsprof process that has one open keeps reading it, and one that
// finds it gone compiles afresh: removing is safe under concurrency. It
// never fails: a cache it cannot trim is still a cache.
func trimCache(dir string, limit int64, now time.Time) {
	type entry struct {
		path string
		size int64
		used time.Time
	}
	var entries []entry
	var total int64
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() {
			return nil
		}
		if strings.HasSuffix(path, ".tmp") {
			if now.Sub(info.ModTime()) > staleTemp {
				os.Remove(path)
			}
			return nil
		}
		if strings.HasSuffix(path, sealSuffix) {
			return nil // goes with its entry
		}
		e := entry{path: path, size: info.Size(), used: lastUse(info)}
		entries = append(entries, e)
		total += e.size
		return nil
	})
	if total <= limit {
		return
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].used.Before(entries[j].used) })
	for _, e := range entries {
		if total <= limit {
			break
		}
		if os.Remove(e.path) == nil {
			os.Remove(e.path + sealSuffix)
			total -= e.size
		}
	}
}

// clearCache removes every compiled module of the cache directory, after
// one was found damaged: which one wazero could not use is not known. It
// removes the entries and keeps their directories: wazero makes its
// directory only when a process opens the cache, so another process
// compiling meanwhile could no longer store its entry, and its run would
// fail. Temporary files are another process's entries being written:
// they are left to be renamed (trimCache removes them once stale).
func clearCache(dir string) error {
	subdirs, err := filepath.Glob(filepath.Join(dir, "wazero-*"))
	if err != nil {
		return err
	}
	for _, d := range subdirs {
		err := filepath.WalkDir(d, func(path string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || strings.HasSuffix(path, ".tmp") {
				return err
			}
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// EnvMB is jsprof's --cache-size default: $JSPROF_CACHE_SIZE, in MB, where
// it is a positive whole number, else DefaultMB, with the
// error to warn of when it is set to anything else.
func EnvMB() (int64, error) {
	v := os.Getenv("JSPROF_CACHE_SIZE")
	if v == "" {
		return DefaultMB, nil
	}
	mb, err := strconv.ParseInt(v, 10, 64)
	if err != nil || mb <= 0 || mb > 1<<40 {
		return DefaultMB, fmt.Errorf("JSPROF_CACHE_SIZE=%q is not a whole number of MB; the cache is kept within %d MB", v, DefaultMB)
	}
	return mb, nil
}
