package javy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/andybalholm/brotli"

	"github.com/jsprof/jsprof/wasmcore"
)

// The program's JS, as a module carries it: its text in the javy_source
// custom section (EmbedSource writes it, ReadSource reads it), its file's
// name in jsprof.source (NameSource, SourceOf). This file is the one
// owner of both sections.

// SourceSection names the custom section in which jsprof build records the
// JS file a module was built from: Javy compiles every program as
// "function.mjs", and profiles are more useful with the user's file name,
// which pprof can then find to list source lines.
const SourceSection = "jsprof.source"

// NameSource records the JS file a built module came from: its path
// relative to the module's folder (RecordedName), so that the file and
// the source map beside it are found from the module wherever the build
// ran (BesideModule).
func NameSource(module []byte, file string) []byte {
	return wasmcore.AppendCustomSection(module, SourceSection, []byte(file))
}

// RecordedName is what NameSource records of the JS file js for a module
// written to module: js's path relative to the module's folder, with
// forward slashes ("function.js", "dist/function.js"), or its base name
// when it is not under that folder.
func RecordedName(js, module string) string {
	absJS, err1 := filepath.Abs(js)
	absModule, err2 := filepath.Abs(module)
	if err1 == nil && err2 == nil {
		if rel, err := filepath.Rel(filepath.Dir(absModule), absJS); err == nil && filepath.IsLocal(rel) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.Base(js)
}

// BesideModule is where the JS file a module records (recorded, as
// NameSource wrote it) is, from the module's path: under the module's
// folder. The module is untrusted: a recorded path that leaves the
// folder (../, absolute) is taken for its base name, beside the module.
func BesideModule(module, recorded string) string {
	rel := filepath.FromSlash(recorded)
	if !filepath.IsLocal(rel) {
		rel = path.Base(recorded)
	}
	return filepath.Join(filepath.Dir(module), rel)
}

// JavySourceSection is the custom section in which `javy build` embeds the
// program's JS, Brotli-compressed, for tools to show it: jsprof report
// --html annotates the profile's lines with it (ReadSource).
const JavySourceSection = "javy_source"

// EmbedSource adds a program's JS to the module built from it as `javy
// build` does: Brotli-compressed (at the best compression, as Javy's CLI
// writes it) in a javy_source custom section. jsprof build does, so that
// the module carries what its profiles need to be read line by line.
func EmbedSource(module, src []byte) ([]byte, error) {
	var compressed bytes.Buffer
	w := brotli.NewWriterLevel(&compressed, brotli.BestCompression)
	if _, err := w.Write(src); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return wasmcore.AppendCustomSection(module, JavySourceSection, compressed.Bytes()), nil
}

// CompiledName is the file name Javy's plugins compile every program as.
const CompiledName = "function.mjs"

// SourceOf returns the name of the file NameSource recorded (its base
// name: the profile names files as Javy's CompiledName does), "" when
// none.
func SourceOf(m *wasmcore.Module) string {
	for _, c := range m.Customs {
		if c.Name == SourceSection && len(c.Data) > 0 {
			return path.Base(string(c.Data))
		}
	}
	return ""
}

// maxSourceBytes bounds a decompressed javy_source section.
const maxSourceBytes = 64 << 20

// ErrNoSource: the module carries no JS source.
var ErrNoSource = errors.New("the module carries no JS source (no javy_source custom section: the Javy CLI and jsprof build embed it, unless the Javy CLI is told not to)")

// ReadSource reads the JS a Javy module carries in its javy_source custom
// section, Brotli-compressed (what the Javy CLI writes by default) or
// plain, and the file's name NameSource recorded ("" when none). A module
// without the section returns the name and ErrNoSource.
func ReadSource(m *wasmcore.Module) (name string, text []byte, err error) {
	var data []byte
	found := false
	for _, c := range m.Customs {
		switch c.Name {
		case JavySourceSection:
			data, found = c.Data, true
		case SourceSection:
			name = string(c.Data)
		}
	}
	if !found {
		return name, nil, ErrNoSource
	}
	if text, err = decodeSource(data); err != nil {
		return "", nil, fmt.Errorf("%s section: %w", JavySourceSection, err)
	}
	return name, text, nil
}

// decodeSource decompresses a javy_source section; a section that is not
// Brotli but UTF-8 text is the source, uncompressed.
func decodeSource(data []byte) ([]byte, error) {
	r := brotli.NewReader(bytes.NewReader(data))
	text, err := io.ReadAll(io.LimitReader(r, maxSourceBytes+1))
	switch {
	case err == nil && len(text) > maxSourceBytes:
		return nil, fmt.Errorf("more than %d MiB of source", maxSourceBytes>>20)
	case err == nil && utf8.Valid(text):
		return text, nil
	case utf8.Valid(data):
		return data, nil
	case err != nil:
		return nil, fmt.Errorf("neither Brotli nor text: %w", err)
	}
	return nil, errors.New("the source is not UTF-8")
}

// IsSourceFile says whether a file's name is a JavaScript or TypeScript source's.
func IsSourceFile(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".js", ".mjs", ".cjs", ".ts", ".mts", ".jsx", ".tsx":
		return true
	}
	return false
}
