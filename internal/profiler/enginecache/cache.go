package enginecache

import (
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/internal/measure/meter"
	"github.com/jsprof/jsprof/internal/name/bytecode"
	"github.com/jsprof/jsprof/internal/name/natives"
	"github.com/jsprof/jsprof/wasmcore"
)

// subdir is the cache's subdirectory.
const subdir = "jsprof-prepared-v1"

// Entry is a cache entry.
type Entry struct {
	Report     *dispatch.Report `json:"report"`
	Plan       *meter.Plan      `json:"plan"`
	Facts      *Facts           `json:"facts"`
	WasmSHA256 string           `json:"wasm_sha256"` // of the instrumented module
}

// Facts is what naming needs to know of an engine, found in the
// engine module and its analysis alone: the natives its function lists
// declare (natives.Scan) and the spec its programs' bytecode is read with
// (bytecode.EngineSpecForModule). Each parses a catalogue built into
// jsprof and scans the engine's data, tens of milliseconds that every run
// of the engine would spend for the same result: the cache keeps them
// with the engine. An error is kept as its message, said again as it was.
type Facts struct {
	Natives    []Native             `json:"natives"` // never omitted: [] is none found, null an error
	NativesErr string               `json:"natives_error,omitempty"`
	Spec       *bytecode.EngineSpec `json:"spec,omitempty"`
	SpecErr    string               `json:"spec_error,omitempty"`
}

// FactsOf finds the facts of the engine m, as r analysed it. m is the
// engine as it is prepared and cached (for a static module, without its
// program: neither reads a passive data segment).
func FactsOf(m *wasmcore.Module, r *dispatch.Report) *Facts {
	f := &Facts{}
	if cat, err := natives.Scan(m, r); err != nil {
		f.NativesErr = errMessage(err)
	} else {
		f.Natives = NativesOf(cat)
	}
	if spec, err := bytecode.EngineSpecForModule(m, r); err != nil {
		f.SpecErr = errMessage(err)
	} else {
		f.Spec = &spec
	}
	return f
}

func errMessage(err error) string {
	if msg := err.Error(); msg != "" {
		return msg
	}
	return "unknown error"
}

// NativesFound returns the engine's natives, or why they could not be found.
func (f *Facts) NativesFound() ([]Native, error) {
	if f.NativesErr != "" {
		return nil, errors.New(f.NativesErr)
	}
	return f.Natives, nil
}

// SpecFound returns the engine's bytecode spec, or why there is none.
func (f *Facts) SpecFound() (bytecode.EngineSpec, error) {
	if f.SpecErr != "" {
		return bytecode.EngineSpec{}, errors.New(f.SpecErr)
	}
	return *f.Spec, nil
}

// check says whether facts read back are whole and fit the analysis.
func (f *Facts) check(r *dispatch.Report) error {
	switch {
	case f == nil || (f.Natives == nil) == (f.NativesErr == "") || (f.Spec == nil) == (f.SpecErr == ""):
		return errors.New("incomplete entry")
	case f.Spec != nil && f.Spec.Family != r.Engine.Family:
		return errors.New("the engine's bytecode spec and its analysis disagree")
	}
	return nil
}

// Key names the entry of an engine instrumented with opts by this
// jsprof: the running executable, the options and the engine's bytes,
// engine or, when detached is set, the encoding of that module (a static
// module without its program), digested as it is written: on a hit, the
// key is all it is needed for.
func Key(engine []byte, detached *wasmcore.Module, opts meter.Options) (string, error) {
	build, err := executableIdentity()
	if err != nil {
		return "", err
	}
	o, err := json.Marshal(opts)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, part := range [][]byte{[]byte(build), o} {
		fmt.Fprintf(h, "%d:", len(part))
		h.Write(part)
	}
	// The engine comes last, so that its length need not be known first.
	if detached == nil {
		h.Write(engine)
	} else if err := detached.EncodeTo(h); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// executableIdentity names the running jsprof: the Go build ID its
// linker wrote in an ELF note, a digest of what it was built from, so
// that a copy of the same build (go test's binary, linked into a new
// folder on every run; a binary installed again) finds the entries of
// the last; or, without one, its path, size and modification time. A
// rebuilt jsprof (another instrumentation, perhaps) never reads the
// entries of the previous one.
func executableIdentity() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if id := goBuildID(exe); id != "" {
		return "go-build-id|" + id, nil
	}
	info, err := os.Stat(exe)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s|%d|%d", exe, info.Size(), info.ModTime().UnixNano()), nil
}

// goBuildID reads the Go build ID note of an ELF executable; "" when it
// has none (another format, a stripped note).
func goBuildID(exe string) string {
	f, err := elf.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	sec := f.Section(".note.go.buildid")
	if sec == nil || sec.Size > 1<<10 {
		return ""
	}
	note, err := sec.Data()
	// namesz, descsz and type (4 bytes each), the name "Go\x00\x00", the ID.
	if err != nil || len(note) < 16 || string(note[12:16]) != "Go\x00\x00" {
		return ""
	}
	n := binary.LittleEndian.Uint32(note[4:8])
	if uint64(n) > uint64(len(note)-16) {
		return ""
	}
	return string(note[16 : 16+n])
}

// Load reads the entry for key, or reports false: absent, or
// damaged (then removed). The instrumented module is read and digested
// while the .json is decoded: a run waits for the longer of the two only.
func Load(dir, key string) (wasm []byte, p *Entry, ok bool) {
	base := filepath.Join(dir, subdir, key)
	meta, err := os.ReadFile(base + ".json")
	if err != nil {
		return nil, nil, false
	}
	var (
		sum  [sha256.Size]byte
		werr error
		read = make(chan struct{})
	)
	go func() {
		defer close(read)
		if wasm, werr = readMapped(base + ".wasm"); werr == nil {
			sum = sha256.Sum256(wasm)
		}
	}()
	p = &Entry{}
	err = json.Unmarshal(meta, p)
	<-read
	if err == nil {
		err = werr
	}
	if err == nil {
		err = p.check(sum)
	}
	if err != nil {
		os.Remove(base + ".json")
		os.Remove(base + ".wasm")
		return nil, nil, false
	}
	return wasm, p, true
}

// check says whether an entry read back is whole and consistent.
// sum is the instrumented module's digest.
func (p *Entry) check(sum [sha256.Size]byte) error {
	switch {
	case p.Report == nil || p.Report.Dispatch == nil || p.Plan == nil:
		return errors.New("incomplete entry")
	case p.WasmSHA256 != hex.EncodeToString(sum[:]):
		return errors.New("the instrumented module does not match its entry")
	case p.Plan.OriginalDispatchFunc != p.Report.Dispatch.FunctionIndex:
		return errors.New("the plan and the analysis disagree")
	}
	return p.Facts.check(p.Report)
}

// Store writes an entry; failing, it leaves none (the cache is an
// optimization: the run goes on).
func Store(dir, key string, wasm []byte, r *dispatch.Report, plan *meter.Plan, facts *Facts) {
	sum := sha256.Sum256(wasm)
	// The functions the analysis considered are for `jsprof analyze` to
	// show; a run reads the one it chose. They were half of the entry, and
	// decoding it is part of every run's start.
	kept := *r
	kept.Candidates, kept.OmittedCandidates = nil, 0
	meta, err := json.Marshal(Entry{Report: &kept, Plan: plan, Facts: facts, WasmSHA256: hex.EncodeToString(sum[:])})
	if err != nil {
		return
	}
	d := filepath.Join(dir, subdir)
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
