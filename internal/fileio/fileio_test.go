//go:build unix

package fileio

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	_, err := w.Write(b)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// TestReadMaybeGzip: plain and gzip input up to the bound is read (and
// inflated); one byte more is refused, before or after inflating.
func TestReadMaybeGzip(t *testing.T) {
	const limit = 1000
	at, over := bytes.Repeat([]byte{'x'}, limit), bytes.Repeat([]byte{'x'}, limit+1)
	tests := []struct {
		name    string
		in      []byte
		want    []byte
		wantErr string
	}{
		{"plain, at the bound", at, at, ""},
		{"plain, over", over, nil, "too large: more than 1000 bytes"},
		{"gzip, at the bound", gzipped(t, at), at, ""},
		{"gzip, over", gzipped(t, over), nil, "too large: more than 1000 bytes uncompressed"},
		{"empty", nil, []byte{}, ""},
		{"gzip magic only", []byte{0x1f, 0x8b}, nil, "unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadMaybeGzip(bytes.NewReader(tt.in), limit)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestOpenRegular: a regular file opens; a FIFO (no writer: opening it
// would block), a directory and a device are refused at once.
func TestOpenRegular(t *testing.T) {
	dir := t.TempDir()
	file, fifo := filepath.Join(dir, "f"), filepath.Join(dir, "fifo")
	require.NoError(t, os.WriteFile(file, []byte("ok"), 0o644))
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	b, err := ReadRegular(file, 10)
	require.NoError(t, err)
	assert.Equal(t, "ok", string(b))
	for _, p := range []string{fifo, dir, os.DevNull} {
		_, err := OpenRegular(p)
		assert.EqualError(t, err, p+": not a regular file")
	}
	_, err = ReadRegular(file, 1)
	assert.ErrorIs(t, err, ErrTooLarge)
}

// TestReadNamed: a file an untrusted file names is read only as a
// relative name under the directory, a regular file within the bound;
// an absolute name, a way out by .. or by a link, a FIFO (refused at
// once, never waited on), a folder and a file past the bound are errors.
func TestReadNamed(t *testing.T) {
	t.Parallel()
	top := t.TempDir()
	dir := filepath.Join(top, "dir")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "src"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "src", "run.ts"), []byte("run"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "big.ts"), make([]byte, 100), 0o644))
	secret := filepath.Join(top, "secret.txt")
	require.NoError(t, os.WriteFile(secret, []byte("SECRET"), 0o600))
	require.NoError(t, os.Symlink(secret, filepath.Join(dir, "link.ts")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo.ts"), 0o644))
	tests := []struct {
		name string
		want string // "": read
	}{
		{"src/run.ts", ""},
		{"./src/../src/run.ts", ""},
		{secret, "escapes"},
		{"../secret.txt", "escapes"},
		{"link.ts", "escapes"},
		{"fifo.ts", "not a regular file"},
		{"src", "not a regular file"},
		{"big.ts", "too large"},
		{"absent.ts", "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := ReadNamed(dir, tt.name, 50)
			if tt.want == "" {
				require.NoError(t, err)
				assert.Equal(t, "run", string(b))
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Nil(t, b)
		})
	}
}
