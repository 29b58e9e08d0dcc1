package output

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/outfile"
	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// testResult is a small exact run's result: one JS function, f, whose
// add ran total instructions.
func testResult(t *testing.T, total uint64) Result {
	t.Helper()
	p := testProfile(t, jsprofile.Meta{Mode: jsprofile.ModeExact, TotalInstructions: total, CostModel: jsprofile.CostFuel})
	tables, err := report.FromProfile(p)
	require.NoError(t, err)
	return Result{Profile: p, Tables: tables}
}

// testProfile is an exact profile with meta's facts: one JS function, f,
// whose add ran meta.TotalInstructions.
func testProfile(t *testing.T, meta jsprofile.Meta) *profile.Profile {
	t.Helper()
	b := jsprofile.NewBuilder(meta)
	b.Add([]jsprofile.Frame{jsprofile.JSFrame("f", "app.js", 1, 2, 0x1000, 4), jsprofile.OpcodeFrame("add", 157)}, int64(meta.TotalInstructions), 2, 0)
	p, err := b.Profile()
	require.NoError(t, err)
	return p
}

// TestOpenRefusesReads: no output may be one of the files the run reads,
// nor another output; each refusal names both, and nothing is left on
// disk. Outputs apart from every read file are opened (the negative
// control), and nothing is on disk before they are written.
func TestOpenRefusesReads(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	module, source := filepath.Join(dir, "m.wasm"), filepath.Join(dir, "app.js")
	reads := []outfile.Named{{What: "the module being run", Path: module}, {What: "the --source file", Path: source}}
	for _, r := range reads {
		require.NoError(t, os.WriteFile(r.Path, []byte("read"), 0o644))
	}
	out := func(name string) string { return filepath.Join(dir, name) }
	tests := []struct {
		name string
		outs func() []Output
		want string // "": opened
	}{
		{"apart", func() []Output {
			return []Output{&File{Path: out("p.pb.gz")}, &Collapsed{Path: out("c.txt")}, &ReportJSON{Path: out("r.json")}}
		}, ""},
		{"the module", func() []Output { return []Output{&File{Path: module}} }, "-o " + module + ": that is the module being run"},
		{"the source", func() []Output {
			return []Output{&File{Path: out("p.pb.gz")}, &ReportJSON{Path: source}}
		}, "--report-json " + source + ": that is the --source file"},
		{"two outputs", func() []Output {
			return []Output{&File{Path: out("p.pb.gz")}, &Collapsed{Path: out("p.pb.gz")}}
		}, "-o and --collapsed both name " + out("p.pb.gz")},
		{"no directory", func() []Output {
			return []Output{&File{Path: out("p.pb.gz")}, &Collapsed{Path: out("none/c.txt")}}
		}, "none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var set outfile.Set
			outs := tt.outs()
			err := Open(context.Background(), outs, Opening{Files: &set, Reads: reads})
			if tt.want != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.want)
			} else {
				require.NoError(t, err)
				defer Discard(outs)
			}
			for _, o := range outs {
				for _, f := range o.(Named).Files() {
					if f.Path != module && f.Path != source {
						assert.NoFileExists(t, f.Path, "nothing is written before the guest ends")
					}
				}
			}
		})
	}
}

// TestWrite: Write writes each output, and only those: the profile as it
// is, its collapsed stacks, and the report's summary view as JSON,
// naming the profile's file, with the inputs' table, and as text.
// Discard after Write leaves the files written; Discard alone, none.
func TestWrite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		collapsed  bool
		reportJSON bool
		inputs     []report.InputRun
	}{
		{"profile", false, false, nil},
		{"all", true, true, nil},
		{"inputs", false, true, []report.InputRun{{Input: "a.json", TotalWasmInstructions: 10}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := func(name string) string { return filepath.Join(dir, name) }
			var text bytes.Buffer
			outs := []Output{&File{Path: path("p.pb.gz")}, &ReportText{W: &text, Profile: path("p.pb.gz")}}
			if tt.collapsed {
				outs = append(outs, &Collapsed{Path: path("c.txt")})
			}
			if tt.reportJSON {
				outs = append(outs, &ReportJSON{Path: path("r.json"), Profile: path("p.pb.gz")})
			}
			var set outfile.Set
			require.NoError(t, Open(context.Background(), outs, Opening{Files: &set}))
			r := testResult(t, 10)
			r.Inputs = tt.inputs
			require.NoError(t, Write(context.Background(), outs, r))
			Discard(outs)

			got, err := jsprofile.ReadFile(path("p.pb.gz"))
			require.NoError(t, err)
			assert.Equal(t, uint64(10), got.Meta.TotalInstructions)
			assert.Contains(t, text.String(), "p.pb.gz")
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Len(t, entries, 1+btoi(tt.collapsed)+btoi(tt.reportJSON), "the outputs asked for, and no temporary file")
			if tt.collapsed {
				c, err := os.ReadFile(path("c.txt"))
				require.NoError(t, err)
				assert.Equal(t, "f (app.js:2);op:add 10\n", string(c))
			}
			if tt.reportJSON {
				b, err := os.ReadFile(path("r.json"))
				require.NoError(t, err)
				var doc struct {
					Profile               string
					TotalWasmInstructions uint64 `json:"total_wasm_instructions"`
					Inputs                []struct{ Input string }
				}
				require.NoError(t, json.Unmarshal(b, &doc), string(b))
				assert.Equal(t, "p.pb.gz", doc.Profile)
				assert.Equal(t, uint64(10), doc.TotalWasmInstructions, string(b))
				assert.Len(t, doc.Inputs, len(tt.inputs), string(b))
			}
		})
	}

	t.Run("discarded", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		var set outfile.Set
		outs := []Output{&File{Path: filepath.Join(dir, "p.pb.gz")}, &ReportJSON{Path: filepath.Join(dir, "r.json")}, &Server{}}
		require.NoError(t, Open(context.Background(), outs, Opening{Files: &set}))
		Discard(outs)
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		assert.Empty(t, entries)
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestWriteCollapsed: stacks root first, merged when they read the same,
// sorted; zero values left out; names made one printable line each.
func TestWriteCollapsed(t *testing.T) {
	t.Parallel()
	b := jsprofile.NewBuilder(jsprofile.Meta{Mode: jsprofile.ModeExact, TotalInstructions: 100})
	fib := func(line int) jsprofile.Frame {
		return jsprofile.JSFrame("fib", "index.js", 1, line, 0x1000, uint32(line))
	}
	add := jsprofile.OpcodeFrame("add", 37)
	b.Add([]jsprofile.Frame{fib(2), add}, 10, 1, 0)
	b.Add([]jsprofile.Frame{fib(2), add}, 15, 2, 0)
	b.Add([]jsprofile.Frame{fib(3), add}, 20, 1, 0)
	b.Add([]jsprofile.Frame{jsprofile.JSFrame("a;b\nc", "x.js", 1, 1, 0x2000, 0)}, 0, 0, 0)
	b.Add([]jsprofile.Frame{jsprofile.BucketFrame(jsprofile.BucketOutside)}, 55, 0, 0)
	p, err := b.Profile()
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, WriteCollapsed(&out, p, jsprofile.ValueInstructions))
	assert.Equal(t, "(outside JS) 55\nfib (index.js:2);op:add 25\nfib (index.js:3);op:add 20\n", out.String())

	p.Sample = append(p.Sample, &profile.Sample{Location: p.Sample[0].Location, Value: []int64{5, 0, 0}})
	p.Sample[len(p.Sample)-1].Location[1].Line[0].Function.Name = "a;b\nc"
	out.Reset()
	require.NoError(t, WriteCollapsed(&out, p, jsprofile.ValueInstructions))
	assert.Contains(t, out.String(), "a:b c (index.js:2);op:add 30\n", "';' and a line break are not the format's")
}

// TestDir: each input's profile is named after its file, in the folder
// made for them, and created when opened; an input that made none leaves
// no file. Two inputs of one name are refused, naming both, and nothing
// is made.
func TestDir(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		inputs []string
		made   []bool   // by input: whether it made a profile
		want   []string // files in the folder
		err    string
	}{
		{"names", []string{"in/a.json", "b.json", "other/c"}, []bool{true, false, true}, []string{"a.pb.gz", "c.pb.gz"}, ""},
		{"none", nil, nil, []string{}, ""},
		{"one name twice", []string{"x/a.json", "y/a.json"}, nil, nil, "x/a.json and y/a.json would both be "},
		{"extension aside", []string{"a.json", "a.txt"}, nil, nil, "a.json and a.txt would both be "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "out")
			d, err := NewDir(dir, tt.inputs)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				assert.NoDirExists(t, dir)
				return
			}
			require.NoError(t, err)
			var set outfile.Set
			require.NoError(t, Open(context.Background(), []Output{d}, Opening{Files: &set}))
			for i, made := range tt.made {
				if made {
					writeEach(t, d, i, testResult(t, uint64(10*(i+1))).Profile)
				}
			}
			require.NoError(t, d.Write(context.Background(), Result{}))
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			got := []string{}
			for _, e := range entries {
				got = append(got, e.Name())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// writeEach gives w input i's profile p, as the pipeline does when its
// run ends.
func writeEach(t *testing.T, w EachWriter, i int, p *profile.Profile) {
	t.Helper()
	var raw bytes.Buffer
	require.NoError(t, jsprofile.Write(&raw, p))
	require.NoError(t, w.WriteEach(context.Background(), i, p, raw.Bytes()))
}

// TestDirHeldFromOpen: the folder is the one opened before the guests
// ran: renamed and replaced by a link afterwards, the profiles still go
// into it, never where the link leads.
func TestDirHeldFromOpen(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir, elsewhere := filepath.Join(base, "out"), filepath.Join(base, "elsewhere")
	require.NoError(t, os.Mkdir(elsewhere, 0o755))
	d, err := NewDir(dir, []string{"a.json"})
	require.NoError(t, err)
	var set outfile.Set
	require.NoError(t, Open(context.Background(), []Output{d}, Opening{Files: &set}))
	require.NoError(t, os.Rename(dir, filepath.Join(base, "moved")))
	require.NoError(t, os.Symlink(elsewhere, dir))
	writeEach(t, d, 0, testResult(t, 10).Profile)
	require.NoError(t, d.Write(context.Background(), Result{}))
	assert.FileExists(t, filepath.Join(base, "moved", "a.pb.gz"))
	assert.NoFileExists(t, filepath.Join(elsewhere, "a.pb.gz"))
}

// live is a guest watched: its window's profile, ended when done closes.
type live struct {
	done chan struct{}
	prof *profile.Profile
	err  error
}

func (l *live) Watchable() error { return l.err }
func (l *live) Window() func() (*profile.Profile, error) {
	return func() (*profile.Profile, error) { return l.prof, nil }
}
func (l *live) Done() <-chan struct{} { return l.done }

// TestServer: the live profile is served at /debug/pprof/profile until
// the guest ends; a bad period is refused; a run that cannot be watched
// is the error, naming the flag.
func TestServer(t *testing.T) {
	t.Parallel()
	l := &live{done: make(chan struct{}), prof: testResult(t, 10).Profile}
	var addr string
	s := &Server{Addr: "127.0.0.1:0", Listening: func(a string) { addr = a }}
	require.NoError(t, s.Watch(l))
	require.NotEmpty(t, addr)
	close(l.done) // the guest has ended: a request answers at once
	resp, err := http.Get("http://" + addr + "/debug/pprof/profile?seconds=60")
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	got, err := profile.ParseData(body)
	require.NoError(t, err)
	assert.Equal(t, int64(10), got.Sample[0].Value[jsprofile.ValueInstructions])

	resp, err = http.Get("http://" + addr + "/debug/pprof/profile?seconds=x")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.NoError(t, s.Write(context.Background(), Result{}))
	_, err = http.Get("http://" + addr + "/debug/pprof/profile")
	assert.Error(t, err, "stopped once written")

	err = (&Server{Addr: "127.0.0.1:0"}).Watch(&live{err: os.ErrInvalid})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--pprof-addr: ")
}

// TestListenOn (N12): an IPv4 address listens on IPv4 alone (0.0.0.0
// answered on every IPv6 address too), an IPv6 one on IPv6 alone; every
// address but the loopback's answers beyond this machine, and is said.
func TestListenOn(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr, network string
		open          bool
	}{
		{"127.0.0.1:6060", "tcp4", false},
		{"localhost:6060", "tcp", false},
		{"[::1]:6060", "tcp6", false},
		{"0.0.0.0:6060", "tcp4", true},
		{":6060", "tcp", true},
		{"[::]:6060", "tcp6", true},
		{"192.0.2.7:6060", "tcp4", true},
		{"example.com:6060", "tcp", true},
	}
	for _, tt := range tests {
		network, open := listenOn(tt.addr)
		assert.Equal(t, tt.network, network, tt.addr)
		assert.Equal(t, tt.open, open, tt.addr)
	}
}
