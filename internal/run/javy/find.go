package javy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jsprof/jsprof/internal/fileio"
	"github.com/jsprof/jsprof/internal/name/sourcemap"
	"github.com/jsprof/jsprof/internal/printable"
	"github.com/jsprof/jsprof/wasmcore"
)

// Finding a program's JS: in the module (ReadSource), beside it, beside
// a profile of it, or in the files the user gave.

// SourceFile is the text of a JS file, for the HTML report to annotate.
type SourceFile struct {
	// Name is the file's name; its base name is matched to the profile's
	// JS file names.
	Name string
	Text []byte
	// From says where the text came from, for the page: "--source
	// index.js", "index.wasm (javy_source)".
	From string
}

// ModuleSource reads the JS a Javy module carries (ReadSource). The file
// is named as jsprof build recorded it when it did, else name. A module
// without the section returns ErrNoSource, and the file's name without
// its text (what jsprof build recorded before it embedded the JS).
func ModuleSource(wasm []byte, name string) (SourceFile, error) {
	m, err := wasmcore.Decode(wasm)
	if err != nil {
		return SourceFile{}, err
	}
	return decodedSource(m, name)
}

// decodedSource is ModuleSource of a module decoded already.
func decodedSource(m *wasmcore.Module, name string) (SourceFile, error) {
	recorded, text, err := ReadSource(m)
	if recorded != "" {
		name = recorded
	}
	switch {
	case errors.Is(err, ErrNoSource):
		return SourceFile{Name: name}, err
	case err != nil:
		return SourceFile{}, err
	}
	return SourceFile{Name: name, Text: text, From: JavySourceSection}, nil
}

// ModuleFileSource reads the JS the module read from the file module
// carries, or the JS file it names from beside it (a module an earlier
// jsprof build made records only its JS file's name); nil and why when
// there is neither.
func ModuleFileSource(wasm []byte, module string) (src *SourceFile, note string, err error) {
	m, err := wasmcore.Decode(wasm)
	if err != nil {
		return nil, "", err
	}
	return decodedFileSource(m, module)
}

// decodedFileSource is ModuleFileSource of a module decoded already.
func decodedFileSource(m *wasmcore.Module, module string) (src *SourceFile, note string, err error) {
	s, err := decodedSource(m, "")
	switch {
	case err == nil:
		s.From = module + " (" + s.From + ")"
		return &s, "", nil
	case !errors.Is(err, ErrNoSource):
		return nil, "", err
	case s.Name != "":
		beside := BesideModule(module, s.Name)
		if text, err := fileio.ReadRegular(beside, maxFoundBytes); err == nil {
			return &SourceFile{Name: s.Name, Text: text, From: beside + " (named by " + module + ")"}, "", nil
		}
		return nil, fmt.Sprintf("it was built from %s and carries no JS source, and %s is not beside it", printable.Name(s.Name), printable.Name(s.Name)), nil
	}
	return nil, err.Error(), nil
}

// maxFoundBytes bounds a file read because a profile or a module names
// it, rather than the user: such a name may be anything (a FIFO from a
// bundle unpacked from a tar blocked jsprof report --html for ever), so
// only a regular file is read, without blocking, and only so much of it
// (internal/fileio).
const maxFoundBytes = 512 << 20

// ReadSources reads the JS files given (jsprof report --source), and the
// JS the module file module carries (--module; ModuleFileSource): note
// says why that module annotates nothing, when it does not.
func ReadSources(files []string, module string) (srcs []SourceFile, note string, err error) {
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			return nil, "", fmt.Errorf("--source: %w", err)
		}
		srcs = append(srcs, SourceFile{Name: f, Text: text, From: "--source " + f})
	}
	if module == "" {
		return srcs, "", nil
	}
	wasm, err := os.ReadFile(module)
	if err != nil {
		return nil, "", fmt.Errorf("--module: %w", err)
	}
	src, note, err := ModuleFileSource(wasm, module)
	switch {
	case err != nil:
		return nil, "", fmt.Errorf("--module %s: %w", module, err)
	case src != nil:
		srcs = append(srcs, *src)
	}
	return srcs, note, nil
}

// ProfileModuleSource is the JS of the module a profile was made of, when
// nothing else says where the JS is: the profile names its module (by its
// file's name), and the module is looked for beside the profile, then in
// the current directory, where jsprof build and jsprof run leave it. A
// module not found, or without JS, annotates nothing; the page says how
// to give the JS.
func ProfileModuleSource(profilePath, module string) []SourceFile {
	if module == "" {
		return nil
	}
	name := filepath.Base(module) // the profile names a file, not a path to follow
	for _, p := range []string{filepath.Join(filepath.Dir(profilePath), name), name} {
		wasm, err := fileio.ReadRegular(p, maxFoundBytes)
		if err != nil {
			continue
		}
		if src, _, err := ModuleFileSource(wasm, p); err == nil && src != nil {
			return []SourceFile{*src}
		}
	}
	return nil
}

// ModuleProgram is the JS a module carries (javy_source), or that the
// file jsprof build recorded holds, beside the module; source (--source)
// names the file instead. m is the module decoded (the run has decoded
// it already: decoding it again cost a warm run of an empty program 4–8
// ms).
func ModuleProgram(m *wasmcore.Module, modulePath, source string) sourcemap.Program {
	if source != "" {
		text, err := os.ReadFile(source)
		if err != nil {
			return sourcemap.Program{Path: source, Why: err.Error()}
		}
		return sourcemap.Program{Text: text, Path: source}
	}
	src, note, err := decodedFileSource(m, modulePath)
	switch {
	case err != nil:
		return sourcemap.Program{Why: err.Error()}
	case src == nil:
		return sourcemap.Program{Why: note}
	}
	name := src.Name
	if name == "" {
		name = "index.js" // a Javy CLI module: only the directory matters
	}
	return sourcemap.Program{Text: src.Text, Path: BesideModule(modulePath, name)}
}
