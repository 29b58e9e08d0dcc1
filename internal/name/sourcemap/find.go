package sourcemap

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/jsprof/jsprof/internal/fileio"
	"github.com/jsprof/jsprof/internal/printable"
)

// MaxBytes bounds a source map read from a file or a data: URL. Reading
// and checking a map takes up to about 17 times its size in memory (a
// segment of 2 bytes, "A,", decodes to 24) and time linear in it: 32 MiB
// keeps that under 600 MB and a few seconds, where real bundles' maps are
// a few MiB.
const MaxBytes = 32 << 20

// Loaded is a map and where it came from.
type Loaded struct {
	Map *Map
	// From says where, for messages and the profile: the file's path, or
	// "inline (function.js)" for a data: URL in the program.
	From string
}

// ErrNoURL: the program has no sourceMappingURL comment.
var ErrNoURL = errors.New("no sourceMappingURL comment")

// URL returns the value of the program's last sourceMappingURL comment
// (`//# sourceMappingURL=VALUE`, or the older `//@`), as bundlers write
// it at the end of their output; "" when there is none.
func URL(src []byte) string {
	for rest := src; ; {
		i := bytes.LastIndex(rest, []byte("sourceMappingURL="))
		if i < 0 {
			return ""
		}
		// The comment's start: "//# ", "//@ ", or "/*# " for CSS-style
		// comments some tools write.
		if j := i - 4; j >= 0 && (string(rest[j:j+3]) == "//#" || string(rest[j:j+3]) == "//@" || string(rest[j:j+3]) == "/*#") && (rest[j+3] == ' ' || rest[j+3] == '\t') {
			v := rest[i+len("sourceMappingURL="):]
			if k := bytes.IndexAny(v, " \t\r\n"); k >= 0 {
				v = v[:k]
			}
			return strings.TrimSuffix(string(v), "*/")
		}
		rest = rest[:i]
	}
}

// FromFile reads the map at path; its sources are relative to its
// directory. It gives up with ctx's cause when ctx is done.
func FromFile(ctx context.Context, path string) (Loaded, error) {
	data, err := readFile(path)
	if err != nil {
		return Loaded{}, err
	}
	m, err := Parse(ctx, data, filepath.Dir(path))
	if err != nil {
		return Loaded{}, fmt.Errorf("%s: %w", path, err)
	}
	return Loaded{Map: m, From: path}, nil
}

// FromSource finds the map of the program src, whose file is srcPath (its
// directory is where a map file and the sources of an inline map are
// looked for), as its sourceMappingURL comment says: an inline data: URL,
// or a file relative to the program. ErrNoURL when it has none; a URL
// with a scheme other than data: or file: is refused (jsprof fetches
// nothing). It gives up with ctx's cause when ctx is done.
func FromSource(ctx context.Context, src []byte, srcPath string) (Loaded, error) {
	u := URL(src)
	if u == "" {
		return Loaded{}, ErrNoURL
	}
	dir := filepath.Dir(srcPath)
	if strings.HasPrefix(u, "data:") {
		data, err := decodeDataURL(u)
		if err != nil {
			return Loaded{}, fmt.Errorf("%s: the inline source map: %w", filepath.Base(srcPath), err)
		}
		m, err := Parse(ctx, data, dir)
		if err != nil {
			return Loaded{}, fmt.Errorf("%s: the inline source map: %w", filepath.Base(srcPath), err)
		}
		return Loaded{Map: m, From: "inline (" + filepath.Base(srcPath) + ")"}, nil
	}
	p, err := url.PathUnescape(u)
	if err != nil {
		p = u
	}
	if pu, err := url.Parse(u); err == nil && len(pu.Scheme) > 1 {
		if pu.Scheme != "file" {
			return Loaded{}, fmt.Errorf("%s: sourceMappingURL %q: jsprof reads maps from files and data: URLs only (give the map with --source-map)", filepath.Base(srcPath), oneLine(u))
		}
		p = pu.Path
	}
	p = filepath.FromSlash(p)
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return FromFile(ctx, p)
}

// decodeDataURL decodes a data: URL's JSON: base64, or percent-encoded
// text.
func decodeDataURL(u string) ([]byte, error) {
	meta, data, ok := strings.Cut(strings.TrimPrefix(u, "data:"), ",")
	if !ok {
		return nil, errors.New("a data: URL without a comma")
	}
	if len(data) > MaxBytes*4/3+4 {
		return nil, fmt.Errorf("more than %d MiB", MaxBytes>>20)
	}
	if strings.HasSuffix(meta, ";base64") {
		b, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			// Some tools leave the padding out.
			if b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(data, "=")); err != nil {
				return nil, fmt.Errorf("base64: %w", err)
			}
		}
		return b, nil
	}
	s, err := url.PathUnescape(data)
	if err != nil {
		return nil, err
	}
	return []byte(s), nil
}

// readFile reads a map file, a regular file of at most MaxBytes (a FIFO
// or a device named by a sourceMappingURL would block the run).
func readFile(path string) ([]byte, error) { return fileio.ReadRegular(path, MaxBytes) }

// oneLine keeps untrusted text to one printable line for a message.
func oneLine(s string) string {
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return printable.String(s)
}
