package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/fixtures/js"
	"github.com/jsprof/jsprof/wasmcore"
)

// asProcessEnv, set in the environment, makes the test binary a process of
// its own: "jsprof" is jsprof's main, "wazero" a plain wazero embedding
// (plainWazero). BenchmarkStartup runs both as whole processes, as users
// run jsprof.
const asProcessEnv = "JSPROF_TEST_AS_PROCESS"

func TestMain(m *testing.M) {
	switch os.Getenv(asProcessEnv) {
	case "jsprof":
		main()
	case "wazero":
		os.Exit(plainWazero(os.Args[1:]))
	}
	// Every command a test runs, in process or as a child, compiles into
	// the cache the other packages' tests share, not the user's own
	// (~/.cache/jsprof), unless the test names one; and keeps it within
	// what the whole suite compiles (fixtures.CacheMB), so that no run
	// evicts what a later test needs.
	for _, env := range [][2]string{
		{"JSPROF_CACHE_DIR", fixtures.CompileCacheDir()},
		{"JSPROF_CACHE_SIZE", strconv.Itoa(fixtures.CacheMB)},
	} {
		if os.Getenv(env[0]) != "" {
			continue
		}
		if err := os.Setenv(env[0], env[1]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	os.Exit(m.Run())
}

// plainWazero runs module args[1] with wazero's compilation cache in
// directory args[0], as `wazero run -cachedir` does: WASI, and the
// module's other imported functions as stubs that return zeros (the Javy
// plugins import a few from "env"). It returns the guest's exit code.
func plainWazero(args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "plainWazero: want CACHE_DIR MODULE")
		return 2
	}
	ctx := context.Background()
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "plainWazero:", err)
		return 1
	}
	cache, err := wazero.NewCompilationCacheWithDir(args[0])
	if err != nil {
		return fail(err)
	}
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(cache))
	defer r.Close(ctx)
	wasm, err := os.ReadFile(args[1])
	if err != nil {
		return fail(err)
	}
	cfg := wazero.NewModuleConfig().WithStdin(os.Stdin).WithStdout(os.Stdout).WithStderr(os.Stderr).WithArgs(filepath.Base(args[1]))
	if _, err := plainInstance(ctx, r, wasm, cfg); err != nil {
		var exit *sys.ExitError
		if errors.As(err, &exit) {
			return int(exit.ExitCode())
		}
		return fail(err)
	}
	return 0
}

// plainInstance instantiates and runs module wasm in r as a plain wazero
// embedding does: WASI, and its other imported functions as stubs that
// return zeros.
func plainInstance(ctx context.Context, r wazero.Runtime, wasm []byte, cfg wazero.ModuleConfig) (api.Module, error) {
	wasi_snapshot_preview1.MustInstantiate(ctx, r)
	m, err := wasmcore.Decode(wasm)
	if err != nil {
		return nil, err
	}
	stubs := map[string]wazero.HostModuleBuilder{}
	for _, imp := range m.Imports {
		if imp.Kind != wasmcore.ExternFunc || imp.Module == wasi_snapshot_preview1.ModuleName {
			continue
		}
		if stubs[imp.Module] == nil {
			stubs[imp.Module] = r.NewHostModuleBuilder(imp.Module)
		}
		ft := m.Types[imp.Func]
		results := len(ft.Results)
		stubs[imp.Module].NewFunctionBuilder().
			WithGoModuleFunction(api.GoModuleFunc(func(_ context.Context, _ api.Module, stack []uint64) {
				clear(stack[:results])
			}), apiTypes(ft.Params), apiTypes(ft.Results)).
			Export(imp.Name)
	}
	for name, b := range stubs {
		if _, err := b.Instantiate(ctx); err != nil {
			return nil, fmt.Errorf("stubs of %s: %w", name, err)
		}
	}
	return r.InstantiateWithConfig(ctx, wasm, cfg)
}

func apiTypes(ts []wasmcore.ValType) []api.ValueType {
	out := make([]api.ValueType, len(ts))
	for i, t := range ts {
		out[i] = api.ValueType(t)
	}
	return out
}

// fib30 is fixtures/js/fib.js's program at n = 30: about 0.2 s of guest.
const fib30 = `function fib(n) {
  if (n < 2) return n;
  return fib(n - 1) + fib(n - 2);
}
console.log("fib(30) = " + fib(30));
`

// BenchmarkStartup measures jsprof as users run it: whole processes (the
// test binary as jsprof, and as a plain wazero embedding), warm caches
// (the engine compiled and prepared once before), on an empty program,
// on fib(30) (call-heavy) and on fixtures/js/cart.js (JSON and natives),
// each mode against plain wazero (issue 40's table); and a program never seen
// before, built with the plugin seen already, profiled for the first time
// against a warm plain run of it. Each ratio is the median, over the
// iterations, of one iteration's profiled run over its plain run: the two
// run back to back, so that a burst of load on the machine moves one
// iteration's ratio, not the figure.
func BenchmarkStartup(b *testing.B) {
	if testing.Short() {
		b.Skip("runs whole processes on a real engine")
	}
	self, err := os.Executable()
	require.NoError(b, err)
	dir := b.TempDir()
	cacheDir := filepath.Join(dir, "cache")
	process := func(as string, args ...string) time.Duration {
		cmd := exec.Command(self, args...)
		cmd.Env = append(os.Environ(), asProcessEnv+"="+as)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		elapsed := time.Since(start)
		require.NoError(b, err, "%s %s: %s", as, strings.Join(args, " "), out)
		return elapsed
	}
	plain := func(module string) time.Duration { return process("wazero", cacheDir, module) }
	modes := []struct {
		name  string
		flags []string
	}{
		{"off", []string{"--mode", "off"}},
		{"exact", nil},
		{"sample", []string{"--mode", "sample"}},
	}
	profiled := func(mode []string, module string) time.Duration {
		args := []string{"run", "-q", "--cache-dir", cacheDir}
		if !slices.Contains(mode, "off") { // --mode off writes no profile, and refuses -o
			args = append(args, "-o", filepath.Join(dir, "p.pb.gz"))
		}
		return process("jsprof", append(append(args, mode...), module)...)
	}
	write := func(name, src string) string {
		p := filepath.Join(dir, name+".wasm")
		require.NoError(b, os.WriteFile(p, buildSource(b, "javy-plugin-1.7.0", src), 0o644))
		return p
	}
	cart, err := os.ReadFile(filepath.Join(js.Dir(), "cart.js"))
	require.NoError(b, err)
	programs := []struct{ name, module string }{
		{"empty", write("empty", "")},
		{"fib30", write("fib30", fib30)},
		{"cart", write("cart", string(cart))},
	}
	for _, p := range programs { // warm the caches
		plain(p.module)
		for _, m := range modes {
			profiled(m.flags, p.module)
		}
	}
	times := map[string][]time.Duration{}
	b.ResetTimer()
	for i := range b.N {
		for _, p := range programs {
			times[p.name+"-plain"] = append(times[p.name+"-plain"], plain(p.module))
			for _, m := range modes {
				times[p.name+"-"+m.name] = append(times[p.name+"-"+m.name], profiled(m.flags, p.module))
			}
		}
		b.StopTimer()
		unseen := write(fmt.Sprint("unseen", i), fmt.Sprintf("console.log(%d);\n", 1000+i))
		plain(unseen) // compiles it
		b.StartTimer()
		times["unseen-plain"] = append(times["unseen-plain"], plain(unseen))
		times["unseen-exact"] = append(times["unseen-exact"], profiled(nil, unseen))
	}
	b.StopTimer()
	for _, p := range programs {
		base := times[p.name+"-plain"]
		b.ReportMetric(medianOf(base, nil), p.name+"-plain-s")
		for _, m := range modes {
			b.ReportMetric(medianOf(times[p.name+"-"+m.name], base), p.name+"-"+m.name+"/plain")
		}
	}
	b.ReportMetric(medianOf(times["unseen-exact"], times["unseen-plain"]), "unseen-first-exact/plain")
}

// medianOf is the median of ts in seconds, or, with bases, of ts[i] ÷
// bases[i].
func medianOf(ts, bases []time.Duration) float64 {
	vs := make([]float64, len(ts))
	for i, t := range ts {
		vs[i] = t.Seconds()
		if bases != nil {
			vs[i] = float64(t) / float64(bases[i])
		}
	}
	slices.Sort(vs)
	if n := len(vs); n%2 == 0 {
		return (vs[n/2-1] + vs[n/2]) / 2
	}
	return vs[len(vs)/2]
}

// TestStaticProgramsShareCaches: twenty programs built with one plugin,
// each profiled for the first time, share one compiled module and one
// prepared engine (the program is detached from what is compiled), and
// each is still named from its own bytecode.
func TestStaticProgramsShareCaches(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("profiles twenty programs")
	}
	cache := t.TempDir()
	var files []int
	var size int64
	for i := range 20 {
		src := fmt.Sprintf("function f%d(n) {\n  return n < 2 ? n : f%d(n - 1) + f%d(n - 2);\n}\nconsole.log(f%d(%d));\n", i, i, i, i, 5+i%7)
		module := filepath.Join(t.TempDir(), "index.wasm")
		require.NoError(t, os.WriteFile(module, buildSource(t, "javy-plugin-1.7.0", src), 0o644))
		doc := filepath.Join(t.TempDir(), "report.json")
		var stderr strings.Builder
		code := Main(context.Background(), []string{"run", "-q", "--cache-dir", cache, "-o", filepath.Join(t.TempDir(), "p.pb.gz"), "--report-json", doc, module},
			stdio{in: strings.NewReader(""), out: &strings.Builder{}, err: &stderr})
		require.Equal(t, 0, code, stderr.String())
		b, err := os.ReadFile(doc)
		require.NoError(t, err)
		var report struct {
			Functions []struct {
				Name string `json:"name"`
				Line int    `json:"line"`
			} `json:"functions"`
		}
		require.NoError(t, json.Unmarshal(b, &report))
		named := map[string]int{}
		for _, f := range report.Functions {
			named[f.Name] = f.Line
		}
		assert.Equal(t, 1, named[fmt.Sprint("f", i)], "program %d's function, at its line", i)

		n, sz := dirFiles(t, cache)
		files = append(files, n)
		if i == 0 {
			size = sz
		} else {
			assert.Equal(t, size, sz, "program %d added to the caches", i)
		}
	}
	assert.Equal(t, files[0], files[19], "files in the cache directory after 1 and 20 programs")
}

// dirFiles counts the files under dir and their bytes.
func dirFiles(t *testing.T, dir string) (n int, size int64) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		n++
		size += info.Size()
		return nil
	}))
	return n, size
}

func TestMedianOf(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		var out []time.Duration
		for _, x := range v {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	for _, c := range []struct {
		name      string
		ts, bases []time.Duration
		want      float64
	}{
		{"odd, seconds", ms(300, 100, 200), nil, 0.2},
		{"even, seconds", ms(400, 100, 300, 200), nil, 0.25},
		{"ratios pair by iteration", ms(120, 300, 110), ms(100, 100, 100), 1.2},
		{"a burst moves one ratio only", ms(110, 900, 115), ms(100, 150, 100), 1.15},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.InDelta(t, c.want, medianOf(c.ts, c.bases), 1e-9)
		})
	}
}
