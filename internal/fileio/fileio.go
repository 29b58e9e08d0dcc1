package fileio

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrTooLarge is the error of a read past its bound.
var ErrTooLarge = errors.New("too large")

// OpenRegular opens path for reading if it is a regular file, and fails
// otherwise, at once: a FIFO is opened without waiting for a writer, and
// refused, as a device or a socket is.
func OpenRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s: not a regular file", path)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadRegular reads the regular file at path (OpenRegular), of at most
// limit bytes.
func ReadRegular(path string, limit int64) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := ReadLimited(f, limit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// ReadNamed reads the file name that an untrusted file named (a source
// map's source, a profile's file), relative to dir, the directory the
// naming is resolved in: only a relative name that stays under dir is
// read, opened through an os.Root of dir (no absolute path, no "..", no
// link leading out), a regular file (OpenRegular's rules), of at most
// limit bytes. Any other name is an error naming it: the caller reads
// nothing else.
func ReadNamed(dir, name string, limit int64) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", name)
	}
	b, err := ReadLimited(f, limit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return b, nil
}

// ReadLimited reads r to its end, failing with ErrTooLarge past limit
// bytes rather than reading on.
func ReadLimited(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: more than %s", ErrTooLarge, Size(limit))
	}
	return b, nil
}

// ReadMaybeGzip reads r, inflating it if it is gzip (as pprof profiles
// are), failing with ErrTooLarge past limit bytes, before or after
// inflating.
func ReadMaybeGzip(r io.Reader, limit int64) ([]byte, error) {
	br := bufio.NewReader(r)
	magic, _ := br.Peek(2)
	if len(magic) < 2 || magic[0] != 0x1f || magic[1] != 0x8b {
		return ReadLimited(br, limit)
	}
	gz, err := gzip.NewReader(br)
	if err != nil {
		return nil, err
	}
	b, err := ReadLimited(gz, limit)
	if errors.Is(err, ErrTooLarge) {
		return nil, fmt.Errorf("%w uncompressed", err)
	}
	return b, err
}

// Size says a bound in bytes in the largest whole binary unit.
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
