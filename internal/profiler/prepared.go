package profiler

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/jsframes/meter"
)

// Analysing and instrumenting an engine takes a few hundred milliseconds
// (the dispatch analysis, the instruction counter, renumbering every call
// for the injected imports) and gives the same result every time for the
// same engine, options and jsprof: the prepared engine cache keeps it,
// beside wazero's compiled modules (Options.CacheDir), so that a run pays
// for it once per engine.
//
// An entry is two files named by the key: KEY.wasm, the instrumented
// module, and KEY.json, the analysis and the plan. Both are written to
// temporary files and renamed, the .json last: a reader that finds the
// .json finds a complete .wasm, and concurrent writers of one key write the
// same bytes. What is read back is checked (the plan's indices against the
// instrumented module's digest, recorded in the .json); an entry that fails
// is removed and made again, never trusted. The cache directory's size
// bound (jsprof's --cache-size) covers these files too.

// preparedDir is the cache's subdirectory.
const preparedDir = "jsprof-prepared-v1"

// prepared is a cache entry.
type prepared struct {
	Report     *dispatch.Report `json:"report"`
	Plan       *meter.Plan      `json:"plan"`
	WasmSHA256 string           `json:"wasm_sha256"` // of the instrumented module
}

// preparedKey names the entry of an engine instrumented with opts by this
// jsprof: the engine's bytes, the options and the running executable.
func preparedKey(engine []byte, opts meter.Options) (string, error) {
	build, err := executableIdentity()
	if err != nil {
		return "", err
	}
	o, err := json.Marshal(opts)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, part := range [][]byte{[]byte(build), o, engine} {
		fmt.Fprintf(h, "%d:", len(part))
		h.Write(part)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// executableIdentity names the running jsprof: its path, size and
// modification time. A rebuilt jsprof (another instrumentation, perhaps)
// never reads the entries of the previous one.
func executableIdentity() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	info, err := os.Stat(exe)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s|%d|%d", exe, info.Size(), info.ModTime().UnixNano()), nil
}

// loadPrepared reads the entry for key, or reports false: absent, or
// damaged (then removed).
func loadPrepared(dir, key string) (wasm []byte, p *prepared, ok bool) {
	base := filepath.Join(dir, preparedDir, key)
	meta, err := os.ReadFile(base + ".json")
	if err != nil {
		return nil, nil, false
	}
	wasm, err = os.ReadFile(base + ".wasm")
	if err == nil {
		p = &prepared{}
		err = json.Unmarshal(meta, p)
	}
	if err == nil {
		err = p.check(wasm)
	}
	if err != nil {
		os.Remove(base + ".json")
		os.Remove(base + ".wasm")
		return nil, nil, false
	}
	return wasm, p, true
}

// check says whether an entry read back is whole and consistent.
func (p *prepared) check(wasm []byte) error {
	sum := sha256.Sum256(wasm)
	switch {
	case p.Report == nil || p.Report.Dispatch == nil || p.Plan == nil:
		return errors.New("incomplete entry")
	case p.WasmSHA256 != hex.EncodeToString(sum[:]):
		return errors.New("the instrumented module does not match its entry")
	case p.Plan.OriginalDispatchFunc != p.Report.Dispatch.FunctionIndex:
		return errors.New("the plan and the analysis disagree")
	}
	return nil
}

// storePrepared writes an entry; failing, it leaves none (the cache is an
// optimization: the run goes on).
func storePrepared(dir, key string, wasm []byte, r *dispatch.Report, plan *meter.Plan) {
	sum := sha256.Sum256(wasm)
	meta, err := json.Marshal(prepared{Report: r, Plan: plan, WasmSHA256: hex.EncodeToString(sum[:])})
	if err != nil {
		return
	}
	d := filepath.Join(dir, preparedDir)
	if os.MkdirAll(d, 0o755) != nil {
		return
	}
	base := filepath.Join(d, key)
	if writeRenamed(base+".wasm", wasm) != nil {
		return
	}
	if writeRenamed(base+".json", meta) != nil {
		os.Remove(base + ".wasm")
	}
}

// writeRenamed writes b to a temporary file beside path and renames it
// there, so that a reader sees all of it or nothing.
func writeRenamed(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
