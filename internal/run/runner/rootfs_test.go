//go:build unix

package runner

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDirMountCannotBeLeft runs testdata/escape.c with a host directory
// mounted at /sandbox: every way out of it (links the guest makes, relative
// or absolute, links that were there before, .. in paths) fails, nothing
// outside is read or written, and ordinary file operations inside work.
func TestDirMountCannotBeLeft(t *testing.T) {
	wasm, err := os.ReadFile("testdata/escape.wasm")
	require.NoError(t, err)
	top := t.TempDir()
	granted, outside := filepath.Join(top, "granted"), filepath.Join(top, "outside")
	require.NoError(t, os.MkdirAll(filepath.Join(granted, "sub"), 0o755))
	require.NoError(t, os.MkdirAll(outside, 0o755))
	secret := filepath.Join(outside, "secret.txt")
	require.NoError(t, os.WriteFile(secret, []byte("SECRET\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(granted, "data.txt"), []byte("data\n"), 0o644))
	require.NoError(t, os.Symlink("../outside/secret.txt", filepath.Join(granted, "prerel")))
	require.NoError(t, os.Symlink(secret, filepath.Join(granted, "preabs")))
	require.NoError(t, os.Symlink("../outside", filepath.Join(granted, "predir")))

	var stdout, stderr bytes.Buffer
	res, err := Run(context.Background(), wasm, Options{
		Name: "escape", Stdout: &stdout, Stderr: &stderr,
		Dirs: []Mount{{Host: granted, Guest: "/sandbox"}},
	})
	require.NoError(t, err)
	require.Nil(t, res.Trap, stderr.String())
	require.Equal(t, uint32(0), res.ExitCode, stderr.String())
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		name, result, ok := strings.Cut(line, ": ")
		require.True(t, ok, line)
		got[name] = result
	}

	const ok = "ok"
	tests := []struct {
		op   string
		want string // "ok...", or "" for any failure
	}{
		// Making a link is fine when its target is relative (following
		// it out is what fails); an absolute one is refused, as wasmtime does.
		{"symlink-relative", ok},
		{"read-relative", ""},
		{"symlink-deep", ok},
		{"read-deep", ""},
		{"symlink-dangling", ok},
		{"write-dangling", ""},
		{"symlink-absolute", ""},
		{"read-absolute", ""},
		{"stat-relative", ""},
		{"lstat-relative", ok},
		{"read-prerel", ""},
		{"write-prerel", ""},
		{"read-preabs", ""},
		{"read-predir", ""},
		{"list-predir", ""},
		{"mkdir-predir", ""},
		{"read-dotdot", ""},
		{"read-sub-dotdot", ""},
		{"rename-out", ""},

		{"write", ok},
		{"read", "ok new file"},
		{"stat", ok},
		{"size", "ok 9"},
		{"mkdir", ok},
		{"rename", ok},
		{"read-moved", "ok new file"},
		{"symlink-inside", ok},
		{"read-inside-link", "ok new file"},
		{"symlink-inside-dotdot", ok},
		{"read-inside-dotdot", "ok data"},
		{"readlink", "ok made/moved.txt"},
		{"list", "ok dangling,data.txt,dotlink,inlink,made,passwd,preabs,predir,prerel,rel,sub"},
		{"unlink", ok},
		{"rmdir", ok},
		{"unlink-dir", "Is a directory"},
		{"rmdir-file", "Not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.op, func(t *testing.T) {
			result, ran := got[tt.op]
			require.True(t, ran, "the guest did not report %s:\n%s", tt.op, stdout.String())
			switch tt.want {
			case "":
				assert.NotRegexp(t, "^ok", result, "must fail")
				assert.NotContains(t, result, "SECRET")
				assert.NotContains(t, result, "root:")
			default:
				assert.Equal(t, tt.want, result)
			}
		})
	}

	// Nothing outside changed.
	b, err := os.ReadFile(secret)
	require.NoError(t, err)
	assert.Equal(t, "SECRET\n", string(b))
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	require.Len(t, entries, 1, "nothing created outside")
	assert.Equal(t, "secret.txt", entries[0].Name())
}

// TestRootFS exercises the file system of a mount directly, for what the C
// guest does not reach: flags, special files, offsets, times, directory
// rewinds.
func TestRootFS(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f.txt"), []byte("hello"), 0o644))
	require.NoError(t, os.Symlink("f.txt", filepath.Join(dir, "link")))
	require.NoError(t, os.Symlink("..", filepath.Join(dir, "up")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	r, err := openRootFS(dir)
	require.NoError(t, err)
	defer r.Close()

	opens := []struct {
		name string
		path string
		flag experimentalsys.Oflag
		want experimentalsys.Errno
	}{
		{"file", "f.txt", experimentalsys.O_RDONLY, 0},
		{"root", ".", experimentalsys.O_RDONLY, 0},
		{"root slash", "/", experimentalsys.O_RDONLY, 0},
		{"link followed", "link", experimentalsys.O_RDONLY, 0},
		{"link with O_NOFOLLOW", "link", experimentalsys.O_RDONLY | experimentalsys.O_NOFOLLOW, experimentalsys.ELOOP},
		{"file as directory", "f.txt", experimentalsys.O_DIRECTORY, experimentalsys.ENOTDIR},
		{"directory for writing", ".", experimentalsys.O_DIRECTORY | experimentalsys.O_RDWR, experimentalsys.EISDIR},
		{"fifo refused, without blocking", "fifo", experimentalsys.O_RDONLY, experimentalsys.EACCES},
		{"link to the parent", "up/x", experimentalsys.O_RDONLY, experimentalsys.EPERM},
		{"dot-dot", "../x", experimentalsys.O_RDONLY, experimentalsys.EPERM},
		{"missing", "nothing", experimentalsys.O_RDONLY, experimentalsys.ENOENT},
		{"exclusive create of an existing file", "f.txt", experimentalsys.O_CREAT | experimentalsys.O_EXCL | experimentalsys.O_WRONLY, experimentalsys.EEXIST},
	}
	for _, tt := range opens {
		t.Run(tt.name, func(t *testing.T) {
			f, errno := r.OpenFile(tt.path, tt.flag, 0o600)
			assert.Equal(t, tt.want, errno)
			if errno == 0 {
				assert.Equal(t, experimentalsys.Errno(0), f.Close())
			}
		})
	}

	t.Run("contents", func(t *testing.T) {
		f, errno := r.OpenFile("g.txt", experimentalsys.O_RDWR|experimentalsys.O_CREAT, 0o600)
		require.Zero(t, errno)
		defer f.Close()
		n, errno := f.Write([]byte("abcdef"))
		require.Zero(t, errno)
		assert.Equal(t, 6, n)
		n, errno = f.Pwrite([]byte("XY"), 2)
		require.Zero(t, errno)
		assert.Equal(t, 2, n)
		buf := make([]byte, 10)
		n, errno = f.Pread(buf, 1)
		require.Zero(t, errno)
		assert.Equal(t, "bXYef", string(buf[:n]))
		require.Zero(t, f.Truncate(3))
		off, errno := f.Seek(0, io.SeekEnd)
		require.Zero(t, errno)
		assert.Equal(t, int64(3), off)
		require.Zero(t, f.SetAppend(true))
		assert.True(t, f.IsAppend())
		_, errno = f.Seek(0, io.SeekStart)
		require.Zero(t, errno)
		_, errno = f.Write([]byte("!"))
		require.Zero(t, errno)
		st, errno := f.Stat()
		require.Zero(t, errno)
		assert.Equal(t, int64(4), st.Size, "appended, not written at 0")
		require.Zero(t, f.Utimens(experimentalsys.UTIME_OMIT, 1_500_000_000_123_456_789))
		st, errno = f.Stat()
		require.Zero(t, errno)
		assert.Equal(t, int64(1_500_000_000_123_456_789), st.Mtim)
		_, errno = f.Readdir(-1)
		assert.Equal(t, experimentalsys.ENOTDIR, errno)
	})

	t.Run("directory", func(t *testing.T) {
		d, errno := r.OpenFile(".", experimentalsys.O_RDONLY|experimentalsys.O_DIRECTORY, 0)
		require.Zero(t, errno)
		defer d.Close()
		list := func() map[string]bool {
			entries, errno := d.Readdir(-1)
			require.Zero(t, errno)
			names := map[string]bool{}
			for _, e := range entries {
				assert.NotZero(t, e.Ino, e.Name)
				names[e.Name] = true
			}
			return names
		}
		first := list()
		assert.True(t, first["f.txt"] && first["link"] && first["fifo"], "%v", first)
		assert.Empty(t, list(), "read to the end")
		_, errno = d.Seek(0, io.SeekStart)
		require.Zero(t, errno)
		assert.Equal(t, first, list(), "rewound")
		_, errno = d.Seek(1, io.SeekStart)
		assert.Equal(t, experimentalsys.EISDIR, errno)
		_, errno = d.Read(make([]byte, 1))
		assert.Equal(t, experimentalsys.EISDIR, errno)
	})

	t.Run("paths", func(t *testing.T) {
		assert.Equal(t, experimentalsys.EPERM, r.Symlink("/etc/passwd", "abs"))
		assert.Zero(t, r.Symlink("../../etc/passwd", "rel"), "made, not followed")
		_, errno := r.Stat("rel")
		assert.Equal(t, experimentalsys.EPERM, errno)
		_, errno = r.Lstat("rel")
		assert.Zero(t, errno)
		target, errno := r.Readlink("rel")
		assert.Zero(t, errno)
		assert.Equal(t, "../../etc/passwd", target)
		assert.Equal(t, experimentalsys.EPERM, r.Utimens("rel", 0, 0), "times of what the link leads to, outside")
		assert.Equal(t, experimentalsys.EPERM, r.Chmod("up/x", 0o644))
		assert.Equal(t, experimentalsys.EPERM, r.Link("up/x", "hard"))
		assert.Equal(t, experimentalsys.EPERM, r.Rename("f.txt", "up/stolen"))
		assert.Equal(t, experimentalsys.EPERM, r.Mkdir("up/made", 0o755))
		assert.Zero(t, r.Link("f.txt", "hard"))
		assert.Zero(t, r.Mkdir("d", 0o755))
		assert.Equal(t, experimentalsys.EEXIST, r.Mkdir("d", 0o755))
		assert.Equal(t, experimentalsys.ENOENT, r.Mkdir("f.txt/d", 0o755))
		assert.Equal(t, experimentalsys.EISDIR, r.Unlink("d"))
		assert.Equal(t, experimentalsys.ENOTDIR, r.Rmdir("hard"))
		assert.Zero(t, r.Unlink("hard"))
		assert.Zero(t, r.Rmdir("d"))
		assert.Zero(t, r.Unlink("up"), "a link to a directory is unlinked, not followed")
	})
}
