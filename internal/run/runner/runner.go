package runner

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/experimental/sysfs"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"

	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/printable"
	"github.com/jsprof/jsprof/internal/run/cachedir"
	"github.com/jsprof/jsprof/wasmcore"
)

// Mount grants the guest one host directory.
type Mount struct {
	Host  string // directory on the host
	Guest string // path the guest sees it at
}

// ParseMount parses the --dir syntax HOST[:GUEST]; GUEST defaults to HOST.
func ParseMount(s string) (Mount, error) {
	if s == "" {
		return Mount{}, errors.New("empty --dir")
	}
	host, guest, found := strings.Cut(s, ":")
	if !found {
		guest = host
	}
	if host == "" || guest == "" {
		return Mount{}, fmt.Errorf("--dir %q: want HOST[:GUEST]", s)
	}
	return Mount{Host: host, Guest: guest}, nil
}

// ParseMounts parses each --dir (ParseMount) and checks that its host
// directory is one.
func ParseMounts(specs []string) ([]Mount, error) {
	var mounts []Mount
	for _, s := range specs {
		m, err := ParseMount(s)
		if err != nil {
			return nil, err
		}
		if st, err := os.Stat(m.Host); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("--dir %s: not a directory", m.Host)
		}
		mounts = append(mounts, m)
	}
	return mounts, nil
}

// Plugin is a provider module preloaded for dynamic Javy modules, like
// `wasmtime run --preload NAMESPACE=plugin.wasm`.
type Plugin struct {
	Name      string // file name, for messages
	Wasm      []byte
	Namespace string // the module name the dynamic module imports it as
}

// Options configures one run.
type Options struct {
	Name string   // program name: argv[0] and messages
	Args []string // guest arguments after argv[0]
	Env  []string // "KEY=VALUE" entries; nothing of the host's is inherited
	// Dirs are directories the guest may use, and nothing outside them:
	// links that lead out are not followed.
	Dirs []Mount
	// Stdio. A read or write that blocks returns when the run's context is
	// done; the goroutine doing it is then left behind until it returns.
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Plugin *Plugin

	// Cache, when set, keeps compiled modules across runs.
	Cache wazero.CompilationCache
	// CompileLock, when set with Cache, is held while a module is
	// compiled (cachedir.Cache.LockCompile): runs compiling the same
	// module into one cache at once wait for the first, then load it.
	CompileLock func(ctx context.Context, wasm []byte) (unlock func())
	// Compiled, when set, is called once the modules are compiled (and
	// stored in Cache), before anything of them runs: where the cache's
	// new entries are sealed (CacheDir.Seal).
	Compiled func()
	// Config, when set, replaces the default compiler runtime config, which
	// closes the module when ctx is done (the cache is applied to it).
	Config wazero.RuntimeConfig
	// KeepOnContextDone leaves the guest running when ctx is done: the
	// caller stops it itself (a profiler at its checkpoints), keeping the
	// module readable. By default wazero closes the module.
	KeepOnContextDone bool
	// Deterministic replaces the host clocks and random source with wazero's
	// fixed ones, so two runs of the same input execute the same instructions.
	Deterministic bool
	// Link, when set, instantiates host modules of the caller's own (a
	// profiler's) before anything else; the module names it returns are then
	// provided rather than stubbed.
	Link func(ctx context.Context, rt wazero.Runtime) ([]string, error)
	// Context, when set, derives from Run's context the one everything of
	// the run is called with: linking, compiling, instantiating (start
	// functions), the plugin's initialization, the hooks below and the
	// entry. It adds what host functions and listeners of the caller's
	// find there (a profiler's meter).
	Context func(context.Context) context.Context
	// Instantiated, when set, is called with each instance — the plugin,
	// then the main module — before anything of it runs but its start
	// section.
	Instantiated func(ctx context.Context, mod api.Module) error

	// Entry, when set, is the export to run in place of _start or
	// shopify_main (function-runner's -e).
	Entry string
	// SkipPluginInit leaves the plugin's initialize-runtime export alone:
	// providers that come pre-initialized (Shopify's) are run without it,
	// as function-runner runs them.
	SkipPluginInit bool
	// LinkCompiled, when set, instantiates host modules that depend on the
	// main module's imports (an ABI served by the host), once it is
	// compiled and before its imports are stubbed; the module names it
	// returns are then provided.
	LinkCompiled func(ctx context.Context, rt wazero.Runtime, main wazero.CompiledModule) ([]string, error)
	// BeforeMain, when set, is called once the plugin (nil without one) is
	// instantiated and initialized, just before the main module is
	// instantiated: where function-runner hands a provider its input and
	// starts counting, so that the main module's start section, if any,
	// is counted with its export call. An error ends the run before the
	// main module exists.
	BeforeMain func(ctx context.Context, plugin api.Module) error
	// Around, when set, wraps the call of the entry: it does what must come
	// just before and after (a provider's in-memory I/O, a profiler's
	// measurement window) and calls call, whose error it returns as is.
	// Another error it returns ends the run as a trap: the guest's
	// output could not be had.
	Around func(ctx context.Context, in Instances, call func(context.Context) error) error
}

// Instances are the instances of a run, for Options.Around.
type Instances struct {
	Plugin api.Module // nil without a plugin
	Main   api.Module
}

// Result is how a guest ended.
type Result struct {
	// ExitCode is the guest's exit code: 0 when the entry point returned,
	// the proc_exit code, or cli.ExitTrap (a trap, as wasmtime reports it).
	ExitCode uint32
	// Trap is the trap (or host-call failure) that ended the guest, nil
	// otherwise.
	Trap error
	// Entry is the export that was run.
	Entry string
	// MemoryBytes is the size of the run's largest linear memory when it
	// ended (a memory never shrinks: the largest it grew to), as
	// function-runner reports it; a main module importing the plugin's
	// memory has one.
	MemoryBytes uint64
	// Uncached, when set, says why the compilation cache could not take
	// what was compiled (its directory removed during the run, a
	// read-only one): the run went again without it.
	Uncached error
}

// UnresolvedImportError is raised when the guest calls an import that the
// runner linked to a stub.
type UnresolvedImportError struct {
	Module, Name string
}

func (e *UnresolvedImportError) Error() string {
	// The names are the module's: whatever they hold stays on one line.
	return fmt.Sprintf("the guest called import %s.%s, which jsprof does not provide", printable.String(e.Module), printable.String(e.Name))
}

// entryPoints are tried in order: WASI commands, then older Javy modules.
var entryPoints = [...]string{"_start", "shopify_main"}

// Session is one wazero runtime with WASI instantiated, into which modules
// are linked with stubs for whatever they import that nothing provides.
type Session struct {
	rt     wazero.Runtime
	cached bool // the runtime has a compilation cache
	// lock, when set on a cached session, is held while Compile compiles
	// (Options.CompileLock).
	lock     func(ctx context.Context, wasm []byte) (unlock func())
	provided map[string]bool
	// deterministic: host functions that would read the host's randomness
	// return fixed values (Options.Deterministic).
	deterministic bool
}

// NewSession starts a runtime. cfg may be nil (the compiler); cache may be
// nil.
func NewSession(ctx context.Context, cfg wazero.RuntimeConfig, cache wazero.CompilationCache) (*Session, error) {
	if cfg == nil {
		cfg = wazero.NewRuntimeConfigCompiler().WithCloseOnContextDone(true)
	}
	if cache != nil {
		cfg = cfg.WithCompilationCache(cache)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		rt.Close(ctx)
		return nil, fmt.Errorf("instantiating WASI: %w", err)
	}
	return &Session{rt: rt, cached: cache != nil, provided: map[string]bool{wasi_snapshot_preview1.ModuleName: true}}, nil
}

// Close releases the runtime and every module in it.
func (s *Session) Close(ctx context.Context) error { return s.rt.Close(ctx) }

// Provide records module names that the caller instantiated in Runtime()
// itself, so that they are linked rather than stubbed.
func (s *Session) Provide(names ...string) {
	for _, n := range names {
		s.provided[n] = true
	}
}

// Runtime is the underlying wazero runtime.
func (s *Session) Runtime() wazero.Runtime { return s.rt }

// Compile compiles a module; name is used in errors. wazero's compiler
// cannot be interrupted, and a hostile module can keep it busy for
// minutes (wasmcore.CheckBounds): the module's bounds are checked while
// it compiles, and a module past them is refused as soon as that is
// known, as is a compilation under way when ctx is done (an interrupt),
// with ctx's cause. The compilation is then abandoned: the caller is
// about to exit. The check begins only if the compilation is not over
// within checkAfter (one from the cache takes 50-100 ms for an
// instrumented engine, and the check's decoding would cost such a warm
// run 20-40 ms and 4 MB; a cold one takes a second), and a compilation
// that ends first stops it.
func (s *Session) Compile(ctx context.Context, name string, wasm []byte) (wazero.CompiledModule, error) {
	type result struct {
		compiled wazero.CompiledModule
		err      error
	}
	if s.cached && s.lock != nil {
		defer s.lock(ctx, wasm)()
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() { done <- r }()
		defer s.damagedCache(name, &r.err)
		// One compilation worker per core: an engine's thousands of
		// functions compile side by side (a Javy plugin in 0.64 s on
		// two cores, against 1.1 s on one).
		ctx := experimental.WithCompilationWorkers(ctx, runtime.GOMAXPROCS(0))
		if r.compiled, r.err = s.rt.CompileModule(ctx, wasm); r.err != nil {
			r.err = fmt.Errorf("%s: %w", name, r.err)
		}
	}()
	checkCtx, stopCheck := context.WithCancel(ctx)
	defer stopCheck()
	var refused chan error
	slow := time.NewTimer(checkAfter)
	defer slow.Stop()
	for {
		select {
		case r := <-done:
			return r.compiled, r.err
		case <-slow.C:
			refused = make(chan error, 1)
			go func() { refused <- checkBounds(checkCtx, wasm) }()
		case err := <-refused:
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			refused = nil // within bounds: wait for the compiler
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
}

// checkAfter is how long a compilation runs before its module's bounds
// are checked (Compile): what the bounds allow compiles in about 1.5 s.
const checkAfter = 500 * time.Millisecond

// checkBounds is wasmcore.CheckBounds on a module's bytes; a module that
// does not decode is left for wazero to refuse, in its words.
func checkBounds(ctx context.Context, wasm []byte) error {
	m, err := wasmcore.Decode(wasm)
	if err != nil {
		return nil
	}
	if err := wasmcore.CheckBounds(ctx, m); errors.Is(err, wasmcore.ErrTooComplex) {
		return err
	}
	return nil
}

// ErrCacheUnwritable says that the compilation cache could not store what
// wazero compiled: its directory was removed since it was opened, or it
// cannot be written. The cache is an optimisation: Run then runs
// uncached (Result.Uncached).
var ErrCacheUnwritable = errors.New("the compilation cache cannot be written")

// cacheWriteFailed says whether err is wazero failing to store an entry:
// its temporary file (NAME.*.tmp) could not be created, written or
// renamed.
func cacheWriteFailed(err error) bool {
	var path *fs.PathError
	var link *os.LinkError
	return errors.As(err, &path) && strings.HasSuffix(path.Path, ".tmp") ||
		errors.As(err, &link) && strings.HasSuffix(link.Old, ".tmp")
}

// damagedCache turns what a damaged cache entry makes wazero do (an error
// naming its compilation cache, or a panic while it reads or links what
// it deserialized) into cachedir.ErrDamaged. Without a cache, a panic is
// wazero's own, on a module it should have rejected: it becomes an error
// naming the module, since a user's bad input must never crash jsprof.
func (s *Session) damagedCache(name string, err *error) {
	r := recover()
	switch {
	case r != nil && s.cached:
		*err = fmt.Errorf("%w (%v)", cachedir.ErrDamaged, r)
	case r != nil:
		*err = fmt.Errorf("%s: wazero failed on this module: %v", name, r)
	case s.cached && *err != nil && strings.Contains((*err).Error(), "compilationcache"):
		*err = fmt.Errorf("%w: %w", cachedir.ErrDamaged, *err)
	case s.cached && *err != nil && cacheWriteFailed(*err):
		*err = fmt.Errorf("%w: %w", ErrCacheUnwritable, *err)
	}
}

// Instantiate links stubs for the module's unprovided imports and
// instantiates it under cfg's name, which later modules can then import.
// Its start section runs; exported entry points such as _start do not.
func (s *Session) Instantiate(ctx context.Context, compiled wazero.CompiledModule, cfg wazero.ModuleConfig, name string) (api.Module, error) {
	if err := s.linkStubs(ctx, compiled); err != nil {
		return nil, err
	}
	ctx, release := ReservedMemory(ctx)
	mod, err := s.instantiate(ctx, name, compiled, cfg.WithName(name).WithStartFunctions())
	if err != nil {
		return nil, err
	}
	release(mod.Memory())
	s.provided[name] = true
	return mod, nil
}

// ModuleConfig is the WASI configuration of opts: stdio, arguments,
// environment and directories, and nothing of the host's beyond them. Its
// host calls do not watch any context, and the directories it opens are
// closed when garbage; Run uses ModuleConfigContext.
func ModuleConfig(opts Options) (wazero.ModuleConfig, error) {
	cfg, _, err := ModuleConfigContext(context.Background(), opts)
	return cfg, err
}

// ModuleConfigContext is ModuleConfig for a run that ctx can stop: a guest
// blocked in a host call (reading stdin, sleeping, writing to a pipe nobody
// drains) returns to Wasm when ctx is done (cancel.go). Each --dir is a
// file system the guest cannot leave (rootfs.go); release closes them,
// once the run is over.
func ModuleConfigContext(ctx context.Context, opts Options) (cfg wazero.ModuleConfig, release func(), err error) {
	cfg = wazero.NewModuleConfig().
		WithStdin(cancellableStdin(ctx, opts.Stdin)).
		WithStdout(cancellableOutput(ctx, opts.Stdout)).
		WithStderr(cancellableOutput(ctx, opts.Stderr)).
		WithArgs(append([]string{opts.Name}, opts.Args...)...)
	if !opts.Deterministic {
		// wazero's fixed clocks sleep not at all; the host's sleep is cut
		// short by ctx.
		cfg = cfg.WithSysWalltime().WithSysNanotime().WithNanosleep(nanosleep(ctx)).WithRandSource(rand.Reader)
	}
	for _, kv := range opts.Env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, nil, fmt.Errorf("--env %q: want KEY=VALUE", kv)
		}
		cfg = cfg.WithEnv(k, v)
	}
	var roots []*rootFS
	release = func() {
		for _, r := range roots {
			_ = r.Close()
		}
	}
	if len(opts.Dirs) > 0 {
		fsc := wazero.NewFSConfig().(sysfs.FSConfig)
		for _, d := range opts.Dirs {
			r, err := openRootFS(d.Host)
			if err != nil {
				release()
				return nil, nil, err
			}
			roots = append(roots, r)
			fsc = fsc.WithSysFSMount(r, d.Guest).(sysfs.FSConfig)
		}
		cfg = cfg.WithFSConfig(fsc.(wazero.FSConfig))
	}
	return cfg, release, nil
}

// InitializePlugin calls a Javy plugin's runtime initialization export if it
// still has one; `javy init-plugin` would have run it and removed it.
func InitializePlugin(ctx context.Context, plugin api.Module) error {
	for _, name := range []string{"initialize-runtime", "initialize_runtime"} {
		if fn := plugin.ExportedFunction(name); fn != nil {
			if _, err := fn.Call(ctx); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			return nil
		}
	}
	return nil
}

// WithTimeout returns a context under which Run stops the guest d after
// its modules are compiled, with cause as the context's cause (and so as
// Result.Trap). The time a compilation takes is not the guest's, and a
// cold compilation cache can take a second or more: a deadline set on
// the context itself would spend a short timeout on it. The timeout
// travels in the context, as a deadline does, so that it reaches Run
// through callers that only pass a context on (a profiler's).
func WithTimeout(ctx context.Context, d time.Duration, cause error) context.Context {
	return context.WithValue(ctx, timeoutKey{}, timeout{d: d, cause: cause})
}

type timeoutKey struct{}

type timeout struct {
	d     time.Duration
	cause error
}

// startTimeout starts the timeout ctx carries (WithTimeout), if any; the
// context returned carries none, so that a run nested in this one does
// not start it again.
func startTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	t, ok := ctx.Value(timeoutKey{}).(timeout)
	if !ok || t.d <= 0 {
		return ctx, func() {}
	}
	ctx = context.WithValue(ctx, timeoutKey{}, nil)
	return context.WithTimeoutCause(ctx, t.d, t.cause)
}

// Run compiles, links and runs a command module. Errors before the guest
// starts (invalid module, missing entry point, unlinkable import) are
// returned as err; how the guest ended, trap included, is in Result. A
// compilation cache that cannot be written is left out: the run goes
// again uncached, and Result.Uncached says why.
func Run(ctx context.Context, wasm []byte, opts Options) (Result, error) {
	if opts.Context != nil {
		ctx = opts.Context(ctx)
	}
	res, err := run(ctx, wasm, opts)
	if opts.Cache != nil && errors.Is(err, ErrCacheUnwritable) {
		// Nothing of the guest ran: compiling comes first.
		uncached := err
		opts.Cache = nil
		res, err = run(ctx, wasm, opts)
		res.Uncached = uncached
	}
	return res, err
}

func run(ctx context.Context, wasm []byte, opts Options) (Result, error) {
	cfg := opts.Config
	if cfg == nil {
		cfg = wazero.NewRuntimeConfigCompiler().WithCloseOnContextDone(!opts.KeepOnContextDone)
	}
	s, err := NewSession(ctx, cfg, opts.Cache)
	if s != nil {
		s.deterministic, s.lock = opts.Deterministic, opts.CompileLock
	}
	if err != nil {
		return Result{}, err
	}
	defer s.Close(ctx)
	if opts.Link != nil {
		names, err := s.link(ctx, opts.Link)
		if err != nil {
			return Result{}, err
		}
		s.Provide(names...)
	}
	// An interrupt while compiling is an error, the context's cause:
	// nothing of the guest ran.
	compiled, err := s.Compile(ctx, opts.Name, wasm)
	if err != nil {
		return Result{}, err
	}
	entry, err := findEntry(compiled, opts.Entry)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", opts.Name, err)
	}
	var pluginCompiled wazero.CompiledModule
	if opts.Plugin != nil {
		if pluginCompiled, err = s.Compile(ctx, "plugin "+opts.Plugin.Name, opts.Plugin.Wasm); err != nil {
			return Result{}, err
		}
	}
	if opts.Compiled != nil {
		opts.Compiled()
	}
	// The guest's time begins now that its modules are compiled: a
	// timeout (WithTimeout) counts from here.
	ctx, cancel := startTimeout(ctx)
	defer cancel()
	if opts.LinkCompiled != nil {
		names, err := opts.LinkCompiled(ctx, s.rt, compiled)
		if err != nil {
			return Result{}, err
		}
		s.Provide(names...)
	}
	modCfg, release, err := ModuleConfigContext(ctx, opts)
	if err != nil {
		return Result{}, err
	}
	defer release()
	var plugin api.Module
	if opts.Plugin != nil {
		plugin, err = s.Instantiate(ctx, pluginCompiled, modCfg, opts.Plugin.Namespace)
		if err != nil {
			err = fmt.Errorf("plugin %s: %w", opts.Plugin.Name, err)
			if ranStart(errors.Unwrap(err)) || ctx.Err() != nil {
				return ended(ctx, Result{Entry: "start"}, err), nil
			}
			return Result{}, err
		}
		if opts.Instantiated != nil {
			if err := opts.Instantiated(ctx, plugin); err != nil {
				return Result{}, err
			}
		}
		if !opts.SkipPluginInit {
			if err := InitializePlugin(ctx, plugin); err != nil {
				// The plugin's own code ran and failed: the guest trapped,
				// or was stopped (a limit, a timeout, an interrupt).
				return ended(ctx, Result{Entry: "initialize-runtime"}, fmt.Errorf("plugin %s: %w", opts.Plugin.Name, err)), nil
			}
		}
	}
	if opts.BeforeMain != nil {
		if err := opts.BeforeMain(ctx, plugin); err != nil {
			return Result{}, err
		}
	}
	mod, err := s.Instantiate(ctx, compiled, modCfg, opts.Name)
	if err != nil {
		if ranStart(err) || ctx.Err() != nil {
			// A start section ran: it exited, trapped or was stopped.
			return ended(ctx, Result{Entry: "start"}, fmt.Errorf("%s: %w", opts.Name, err)), nil
		}
		return Result{}, fmt.Errorf("%s: %w", opts.Name, err)
	}
	if opts.Instantiated != nil {
		if err := opts.Instantiated(ctx, mod); err != nil {
			return Result{}, err
		}
	}
	res := Result{Entry: entry}
	var callErr error
	call := func(ctx context.Context) error {
		_, callErr = mod.ExportedFunction(entry).Call(ctx)
		return callErr
	}
	if opts.Around != nil {
		err = opts.Around(ctx, Instances{Plugin: plugin, Main: mod}, call)
	} else {
		err = call(ctx)
	}
	for _, m := range []api.Module{mod, plugin} {
		if size, ok := memorySize(m); ok {
			res.MemoryBytes = max(res.MemoryBytes, size)
		}
	}
	if err != nil && err != callErr && callErr == nil {
		// The guest ran to its end; what came after (its output) failed.
		res.ExitCode, res.Trap = cli.ExitTrap, err
		return res, nil
	}
	return ended(ctx, res, callErr), nil
}

// ended is how the guest's code ended with err (nil: it returned): a
// proc_exit, a trap, or, when ctx is done, the context's cause. The run
// was stopped then (a deadline, an interrupt): even a guest that then
// returned by itself saw its host calls cut short, and an exit code
// wazero gave it when it closed the module on the context
// (sys.ExitCodeDeadlineExceeded, 4026531839; ExitCodeContextCanceled,
// 4294967295) is no guest's.
func ended(ctx context.Context, res Result, err error) Result {
	switch code, exited := exitCode(err); {
	case ctx.Err() != nil:
		res.ExitCode, res.Trap = cli.ExitTrap, context.Cause(ctx)
	case exited:
		res.ExitCode = code
	case err != nil:
		res.ExitCode, res.Trap = cli.ExitTrap, err
	}
	return res
}

// ranStart says whether an instantiation failed in the module's start
// function, rather than before it (linking, memory): wazero returns the
// guest's proc_exit as it is, and wraps a trap (or a host function's
// panic, a stop among them) as "start … failed: …".
func ranStart(err error) bool {
	if _, ok := exitCode(err); ok {
		return true
	}
	msg := err.Error()
	return strings.HasPrefix(msg, "start ") && strings.Contains(msg, " failed: ")
}

func findEntry(m wazero.CompiledModule, named string) (string, error) {
	exports := m.ExportedFunctions()
	if named != "" {
		fn, ok := exports[named]
		if !ok {
			return "", fmt.Errorf("no export %s to run (its exported functions: %s)", named, exportNames(exports))
		}
		if len(fn.ParamTypes()) != 0 {
			return "", fmt.Errorf("export %s takes %d parameters, want none", named, len(fn.ParamTypes()))
		}
		return named, nil
	}
	for _, name := range entryPoints {
		if fn, ok := exports[name]; ok {
			if len(fn.ParamTypes()) != 0 {
				return "", fmt.Errorf("entry point %s takes %d parameters, want none", name, len(fn.ParamTypes()))
			}
			return name, nil
		}
	}
	return "", fmt.Errorf("no _start or shopify_main export: not a command module (for a dynamic Javy module, is it a plugin? pass the module that imports it)")
}

// linkStubs instantiates, for every module name the module imports that is
// not provided, a host module whose functions fail naming the import.
func (s *Session) linkStubs(ctx context.Context, m wazero.CompiledModule) error {
	type fn struct {
		name            string
		params, results []api.ValueType
	}
	stubs := map[string]map[string]fn{}
	{
		for _, def := range m.ImportedFunctions() {
			module, name, _ := def.Import()
			if s.provided[module] {
				continue
			}
			if stubs[module] == nil {
				stubs[module] = map[string]fn{}
			}
			stubs[module][name] = fn{name, def.ParamTypes(), def.ResultTypes()}
		}
		for _, def := range m.ImportedMemories() {
			module, name, _ := def.Import()
			if !s.provided[module] {
				return fmt.Errorf("the module imports memory %s.%s, which jsprof does not provide (a dynamic Javy module needs --plugin)", module, name)
			}
		}
	}
	modules := make([]string, 0, len(stubs))
	for m := range stubs {
		modules = append(modules, m)
	}
	sort.Strings(modules)
	for _, module := range modules {
		b := s.rt.NewHostModuleBuilder(module)
		for _, f := range stubs[module] {
			failure := &UnresolvedImportError{Module: module, Name: f.name}
			impl := api.GoModuleFunc(func(context.Context, api.Module, []uint64) { panic(failure) })
			if known := s.knownHostFunction(module, f.name, f.params, f.results); known != nil {
				impl = known
			}
			b.NewFunctionBuilder().WithGoModuleFunction(impl, f.params, f.results).Export(f.name)
		}
		if _, err := b.Instantiate(ctx); err != nil {
			return fmt.Errorf("linking stubs for %s: %w", module, err)
		}
		s.provided[module] = true
	}
	return nil
}

// knownHostFunction implements the few host functions of known embedders
// that a program can reach without meaning to depend on its host, so that
// profiling it does not stop there; nil for the rest.
//
// The Chainlink CRE Javy plugin (1.7.0) seeds Math.random from
// env.random_seed(mode) -> i64: any 64 bits will do, fixed when the run is
// deterministic.
func (s *Session) knownHostFunction(module, name string, params, results []api.ValueType) api.GoModuleFunc {
	if module == "env" && name == "random_seed" && slices.Equal(params, []api.ValueType{api.ValueTypeI32}) && slices.Equal(results, []api.ValueType{api.ValueTypeI64}) {
		deterministic := s.deterministic
		return func(_ context.Context, _ api.Module, stack []uint64) {
			seed := uint64(0x6a7370726f66) // "jsprof"
			if !deterministic {
				var b [8]byte
				_, _ = rand.Read(b[:])
				seed = binary.LittleEndian.Uint64(b[:])
			}
			stack[0] = seed
		}
	}
	return nil
}

func exitCode(err error) (uint32, bool) {
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), true
	}
	return 0, false
}

// exportNames lists exported functions' names, sorted, for messages.
func exportNames(exports map[string]api.FunctionDefinition) string {
	names := make([]string, 0, len(exports))
	for n := range exports {
		names = append(names, n)
	}
	if len(names) == 0 {
		return "none"
	}
	sort.Strings(names)
	if len(names) > 8 {
		names = append(names[:8], "…")
	}
	return strings.Join(names, ", ")
}

// memorySize is the size of m's memory; ok is false when it has none
// (wazero then returns a nil *MemoryInstance as an api.Memory).
func memorySize(m api.Module) (size uint64, ok bool) {
	if m == nil {
		return 0, false
	}
	mem := m.Memory()
	if mem == nil {
		return 0, false
	}
	if v := reflect.ValueOf(mem); v.Kind() == reflect.Pointer && v.IsNil() {
		return 0, false
	}
	return uint64(mem.Size()), true
}

// link calls a Link function, with damagedCache's recovery: it may compile
// modules of its own (the meter's listened functions) through the cache.
func (s *Session) link(ctx context.Context, link func(context.Context, wazero.Runtime) ([]string, error)) (names []string, err error) {
	defer s.damagedCache("linking", &err)
	return link(ctx, s.rt)
}

// instantiate is the runtime's InstantiateModule, with damagedCache's
// recovery: instantiating is where wazero first uses what it read from the
// cache.
func (s *Session) instantiate(ctx context.Context, name string, compiled wazero.CompiledModule, cfg wazero.ModuleConfig) (mod api.Module, err error) {
	defer s.damagedCache(name, &err)
	return s.rt.InstantiateModule(ctx, compiled, cfg)
}
