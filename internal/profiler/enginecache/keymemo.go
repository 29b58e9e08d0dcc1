package enginecache

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jsprof/jsprof/internal/measure/meter"
)

// A static module's prepared entry is found by a digest of the module
// without its program (Key), and making that module and digesting
// it took 7-9 ms of every run's start: most of what profiling adds to an
// empty program's. The key is remembered, by the module file's identity,
// in a small file beside the entries, and read back while the file is
// unchanged, as build tools remember a file's digest. A file changed since
// has another identity, and is digested anew.

// memoDir is the prepared cache's subdirectory of remembered keys.
const memoDir = "files"

// settleTime is how long a file must have been left unchanged for its key
// to be remembered or read back: one being written, or rewritten within
// the file system's timestamp resolution, keeps its identity meanwhile.
const settleTime = 2 * time.Second

// KeyMemo is the remembered key of one module file under one jsprof and
// one set of meter options.
type KeyMemo struct {
	path string // of the memo
}

// Remembered is what a memo holds: the entry's key and the program
// segment that was detached (-1: none).
type Remembered struct {
	Key     string `json:"key"`
	Segment int    `json:"segment"`
}

// NewKeyMemo returns the memo of module file path, or nil when there can
// be none: no cache, no file, or a file changed too recently.
func NewKeyMemo(cacheDir, path string, opts meter.Options, now time.Time) *KeyMemo {
	if cacheDir == "" || path == "" {
		return nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil
	}
	info, err := os.Stat(abs)
	if err != nil || !info.Mode().IsRegular() || now.Sub(info.ModTime()) < settleTime {
		return nil
	}
	build, err := executableIdentity()
	if err != nil {
		return nil
	}
	o, err := json.Marshal(opts)
	if err != nil {
		return nil
	}
	h := sha256.New()
	for _, part := range []string{abs, strconv.FormatInt(info.Size(), 10), strconv.FormatInt(info.ModTime().UnixNano(), 10), fileIdentity(info), build, string(o)} {
		fmt.Fprintf(h, "%d:%s", len(part), part)
	}
	return &KeyMemo{path: filepath.Join(cacheDir, subdir, memoDir, hex.EncodeToString(h.Sum(nil)))}
}

// Load returns the remembered key; false when there is none, or it is
// damaged.
func (k *KeyMemo) Load() (Remembered, bool) {
	var r Remembered
	if k == nil {
		return r, false
	}
	b, err := os.ReadFile(k.path)
	if err != nil || json.Unmarshal(b, &r) != nil || len(r.Key) != 2*sha256.Size || strings.Trim(r.Key, "0123456789abcdef") != "" || r.Segment < -1 {
		return Remembered{}, false
	}
	return r, true
}

// Store remembers a key; failing, it leaves none (the memo is an
// optimization).
func (k *KeyMemo) Store(r Remembered) {
	if k == nil {
		return
	}
	b, err := json.Marshal(r)
	if err != nil || os.MkdirAll(filepath.Dir(k.path), 0o755) != nil {
		return
	}
	writeRenamed(k.path, b)
}
