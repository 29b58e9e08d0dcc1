package testrules

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The rules, as Violation.Rule names them.
const (
	// RuleProcessState: process-wide state read on a path from a test
	// (doc.go).
	RuleProcessState = "process-state"
	// RuleParallelAllocs: testing.AllocsPerRun reached from a parallel
	// test.
	RuleParallelAllocs = "parallel-allocs"
	// RuleWallTime: a duration read from the clock decides whether a test
	// fails.
	RuleWallTime = "wall-time"
)

// guardPath is the import path of this package, whose RunIsolated is the
// guard the rules recognize.
const guardPath = "github.com/jsprof/jsprof/internal/testrules"

// readsProcessState says whether the function q ("import/path.Name")
// reads process-wide state.
func readsProcessState(q string) bool {
	switch q {
	case "runtime.ReadMemStats", "runtime.NumGoroutine", "runtime/metrics.Read", "runtime/debug.ReadGCStats",
		"runtime/pprof.Lookup", "syscall.Getrusage", "golang.org/x/sys/unix.Getrusage":
		return true
	}
	return false
}

// procStats matches a string naming a /proc file of a process's
// statistics, or a field of /proc/PID/status.
var procStats = regexp.MustCompile(`/proc/(?:self|thread-self|%d|%v|[0-9]+)/(?:statm|status|stat|smaps_rollup|smaps|io|schedstat|sched|clear_refs)(?:$|[^A-Za-z_])|\b(?:VmHWM|VmRSS|VmPeak|VmSize|RssAnon)\b`)

// skipDir says whether Check leaves out a directory named name: testdata,
// node_modules, and those whose names start with "." or "_" (the go
// command ignores them too).
func skipDir(name string) bool {
	return name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// Violation is one place where a test breaks a rule.
type Violation struct {
	Pos     token.Position // Filename relative to the root checked
	Rule    string         // RuleProcessState, RuleParallelAllocs, RuleWallTime or RuleOneOwner
	Message string
}

func (v Violation) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", v.Pos.Filename, v.Pos.Line, v.Rule, v.Message)
}

// Check reads every *_test.go file under root (not entering testdata,
// node_modules, or directories whose names start with "." or "_") and
// returns where they break the rules, by file and line; and, for
// RuleOneOwner, every other Go file there too.
func Check(root string) ([]Violation, error) {
	dirs := map[string][]string{}  // directory → its test files
	var sources []string           // every Go file, for RuleOneOwner
	modules := map[string]string{} // directory → module path, where a go.mod is
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case d.Name() == "go.mod":
			mod, err := modulePath(p)
			if err != nil {
				return err
			}
			modules[filepath.Dir(p)] = mod
		case strings.HasSuffix(d.Name(), "_test.go"):
			dirs[filepath.Dir(p)] = append(dirs[filepath.Dir(p)], p)
			sources = append(sources, p)
		case strings.HasSuffix(d.Name(), ".go"):
			sources = append(sources, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var out []Violation
	for _, p := range sources {
		f, err := parseFile(fset, root, p)
		if err != nil {
			return nil, err
		}
		out = append(out, checkFacts(fset, f, moduleDir(root, filepath.Dir(p), modules))...)
	}
	for _, dir := range slices.Sorted(maps.Keys(dirs)) {
		a := &analyzer{fset: fset, pkgs: map[string]*pkgInfo{}, importPath: importPath(root, dir, modules)}
		for _, p := range dirs[dir] {
			f, err := parseFile(fset, root, p)
			if err != nil {
				return nil, err
			}
			a.add(f)
		}
		out = append(out, a.check()...)
	}
	slices.SortFunc(out, func(x, y Violation) int {
		if c := strings.Compare(x.Pos.Filename, y.Pos.Filename); c != 0 {
			return c
		}
		if x.Pos.Line != y.Pos.Line {
			return x.Pos.Line - y.Pos.Line
		}
		return strings.Compare(x.Rule, y.Rule)
	})
	return out, nil
}

// parseFile parses the Go file p, named relative to root.
func parseFile(fset *token.FileSet, root, p string) (*ast.File, error) {
	src, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return nil, fmt.Errorf("naming %s: %w", p, err)
	}
	f, err := parser.ParseFile(fset, filepath.ToSlash(rel), src, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("parsing: %w", err)
	}
	return f, nil
}

// modulePath reads the module path of a go.mod file.
func modulePath(gomod string) (string, error) {
	b, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module"); ok {
			if p, err := strconv.Unquote(strings.TrimSpace(rest)); err == nil {
				return p, nil
			}
			return strings.TrimSpace(rest), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", gomod)
}

// importPath is the import path of the package in dir, from the nearest
// go.mod at or above it within root; "" if there is none.
func importPath(root, dir string, modules map[string]string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if mod, ok := modules[d]; ok {
			rel, err := filepath.Rel(d, dir)
			if err != nil {
				return ""
			}
			return path.Join(mod, filepath.ToSlash(rel))
		}
		if d == root || d == filepath.Dir(d) {
			return ""
		}
	}
}

// analyzer holds the test files of one directory: its package's and its
// external test package's.
type analyzer struct {
	fset       *token.FileSet
	importPath string
	pkgs       map[string]*pkgInfo // by package name
	decls      []*decl
	lits       []*unit
}

// pkgInfo is the top-level functions and methods of one package's test
// files, by name, and its constants and variables that name a /proc file
// of statistics.
type pkgInfo struct {
	name    string
	funcs   map[string][]*decl
	methods map[string][]*decl
	procs   map[string]string // name → the path or field it names
}

// fileInfo is a test file's package and imports.
type fileInfo struct {
	pkg     *pkgInfo
	imports map[string]string // local name → import path
}

// decl is a top-level function or method.
type decl struct {
	fn   *ast.FuncDecl
	file *fileInfo
	unit *unit
	// Durations flowing in and out (RuleWallTime): by parameter and by
	// result position.
	durParams, durResults map[int]bool
}

// unit is a function body: a declared function's, or a function
// literal's.
type unit struct {
	name     string
	decl     *decl
	refs     []ref
	sinks    []sink
	parallel bool // its body calls X.Parallel()
}

// ref is a reference from a unit to the units it may run; guarded when it
// is made after a RunIsolated guard.
type ref struct {
	to      []*unit
	guarded bool
}

// sink is a read of process-wide state, or a call of AllocsPerRun.
type sink struct {
	pos     token.Pos
	rule    string
	what    string
	guarded bool
}

// add reads the declarations of a test file of the directory.
func (a *analyzer) add(f *ast.File) {
	name := f.Name.Name
	p := a.pkgs[name]
	if p == nil {
		p = &pkgInfo{name: name, funcs: map[string][]*decl{}, methods: map[string][]*decl{}, procs: map[string]string{}}
		a.pkgs[name] = p
	}
	fi := &fileInfo{pkg: p, imports: map[string]string{}}
	for _, imp := range f.Imports {
		ip, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		local := path.Base(ip)
		if imp.Name != nil {
			local = imp.Name.Name
		} else if ip == a.importPath {
			local = strings.TrimSuffix(name, "_test")
		}
		fi.imports[local] = ip
	}
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok {
			for _, spec := range gd.Specs {
				if vs, ok := spec.(*ast.ValueSpec); ok {
					for i, v := range vs.Values {
						if what := procLiteral(v); what != "" && i < len(vs.Names) {
							p.procs[vs.Names[i].Name] = what
						}
					}
				}
			}
		}
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		dd := &decl{fn: fn, file: fi, durParams: map[int]bool{}, durResults: map[int]bool{}}
		dd.unit = &unit{name: declName(fn), decl: dd, parallel: callsParallel(fn.Body)}
		a.decls = append(a.decls, dd)
		if fn.Recv == nil {
			p.funcs[fn.Name.Name] = append(p.funcs[fn.Name.Name], dd)
		} else {
			p.methods[fn.Name.Name] = append(p.methods[fn.Name.Name], dd)
		}
	}
}

// declName is a function's name, with its receiver's type for a method.
func declName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fn.Name.Name
		}
		return fn.Name.Name
	}
}

// check builds the call graph and applies the rules.
func (a *analyzer) check() []Violation {
	for _, d := range a.decls {
		a.collect(d.unit, d.file, d.fn.Body)
	}
	var out []Violation
	out = append(out, a.checkReads()...)
	out = append(out, a.checkWallTime()...)
	return out
}

// isTest says whether a top-level function named name is run by go test
// as a test (prefix "Test"), or as a fuzz target (prefix "Fuzz").
func isTest(name, prefix string) bool {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok || name == "TestMain" {
		return false
	}
	return rest == "" || !('a' <= rest[0] && rest[0] <= 'z')
}

// callsParallel says whether a body calls X.Parallel() at its top level,
// as a parallel test or subtest does.
func callsParallel(body *ast.BlockStmt) bool {
	for _, st := range body.List {
		if es, ok := st.(*ast.ExprStmt); ok {
			if c, ok := es.X.(*ast.CallExpr); ok && len(c.Args) == 0 {
				if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Parallel" {
					return true
				}
			}
		}
	}
	return false
}

// isGuard says whether st is `if testrules.RunIsolated(t) { return }`.
func isGuard(f *fileInfo, st ast.Stmt) bool {
	is, ok := st.(*ast.IfStmt)
	if !ok || is.Init != nil || is.Else != nil || len(is.Body.List) != 1 {
		return false
	}
	if _, ok := is.Body.List[0].(*ast.ReturnStmt); !ok {
		return false
	}
	c, ok := is.Cond.(*ast.CallExpr)
	if !ok || len(c.Args) != 1 {
		return false
	}
	return f.qualified(c.Fun) == guardPath+".RunIsolated"
}

// qualified is "import/path.Name" when e is a name another package
// exports, as this file imports it; "" otherwise.
func (f *fileInfo) qualified(e ast.Expr) string {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	id, ok := sel.X.(*ast.Ident)
	if !ok {
		return ""
	}
	p, ok := f.imports[id.Name]
	if !ok {
		return ""
	}
	return p + "." + sel.Sel.Name
}

// collect records what the statements of body refer to, and what they
// read, in u: the statements after a guard as guarded.
func (a *analyzer) collect(u *unit, f *fileInfo, body *ast.BlockStmt) {
	guarded := false
	for _, st := range body.List {
		if isGuard(f, st) {
			guarded = true
			continue
		}
		a.walk(u, f, st, guarded)
	}
}

// walk records what n refers to, and reads, in u; a function literal in
// it becomes a unit of its own, which u refers to.
func (a *analyzer) walk(u *unit, f *fileInfo, n ast.Node, guarded bool) {
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			lit := &unit{
				name:     fmt.Sprintf("%s (func literal, line %d)", u.decl.unit.name, a.fset.Position(n.Pos()).Line),
				decl:     u.decl,
				parallel: callsParallel(n.Body),
			}
			a.lits = append(a.lits, lit)
			a.collect(lit, f, n.Body)
			u.refs = append(u.refs, ref{to: []*unit{lit}, guarded: guarded})
			return false
		case *ast.SelectorExpr:
			if q := f.qualified(n); q != "" {
				switch {
				case readsProcessState(q):
					u.sinks = append(u.sinks, sink{pos: n.Pos(), rule: RuleProcessState, what: shortName(q), guarded: guarded})
				case q == "testing.AllocsPerRun":
					u.sinks = append(u.sinks, sink{pos: n.Pos(), rule: RuleParallelAllocs, what: q, guarded: guarded})
				}
				if to := unitsOf(a.ownFuncs(f, n)); len(to) > 0 {
					u.refs = append(u.refs, ref{to: to, guarded: guarded})
				}
				return false
			}
			if to := unitsOf(f.pkg.methods[n.Sel.Name]); len(to) > 0 {
				u.refs = append(u.refs, ref{to: to, guarded: guarded})
			}
			a.walk(u, f, n.X, guarded)
			return false
		case *ast.Ident:
			if to := unitsOf(f.pkg.funcs[n.Name]); len(to) > 0 {
				u.refs = append(u.refs, ref{to: to, guarded: guarded})
			}
			if what, ok := f.pkg.procs[n.Name]; ok {
				u.sinks = append(u.sinks, sink{pos: n.Pos(), rule: RuleProcessState, what: what, guarded: guarded})
			}
		case *ast.BasicLit:
			if what := procLiteral(n); what != "" {
				u.sinks = append(u.sinks, sink{pos: n.Pos(), rule: RuleProcessState, what: what, guarded: guarded})
			}
		}
		return true
	})
}

// procLiteral is the /proc file of statistics, or the field of one, that
// the string literal e names (quoted); "" if e is no such literal.
func procLiteral(e ast.Expr) string {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return ""
	}
	s, err := strconv.Unquote(lit.Value)
	if err != nil || !procStats.MatchString(s) {
		return ""
	}
	return strconv.Quote(procStats.FindString(s))
}

// ownFuncs is the top-level functions that a qualified name sel refers to
// when it names the package under test from its external test package.
func (a *analyzer) ownFuncs(f *fileInfo, sel *ast.SelectorExpr) []*decl {
	id := sel.X.(*ast.Ident)
	if a.importPath == "" || f.imports[id.Name] != a.importPath {
		return nil
	}
	if p := a.pkgs[strings.TrimSuffix(f.pkg.name, "_test")]; p != nil && p != f.pkg {
		return p.funcs[sel.Sel.Name]
	}
	return nil
}

// unitsOf is the units of functions ds.
func unitsOf(ds []*decl) []*unit {
	var out []*unit
	for _, d := range ds {
		out = append(out, d.unit)
	}
	return out
}

// shortName is "runtime.ReadMemStats" for "runtime.ReadMemStats",
// "metrics.Read" for "runtime/metrics.Read".
func shortName(q string) string {
	return q[strings.LastIndexByte(q[:strings.LastIndexByte(q, '.')], '/')+1:]
}

// step is a unit reached from a root, and the step before it.
type step struct {
	u    *unit
	prev *step
}

// path is the names of the units from the root to s, arrows between.
func (s *step) path() string {
	var names []string
	for ; s != nil; s = s.prev {
		names = append(names, s.u.name)
	}
	slices.Reverse(names)
	return strings.Join(names, " → ")
}

// reach walks the graph from root, along guarded references too when
// guarded is true, and calls visit once for each unit reached.
func reach(root *unit, guarded bool, visit func(*step)) {
	seen := map[*unit]bool{root: true}
	queue := []*step{{u: root}}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		visit(s)
		for _, r := range s.u.refs {
			if r.guarded && !guarded {
				continue
			}
			for _, to := range r.to {
				if !seen[to] {
					seen[to] = true
					queue = append(queue, &step{u: to, prev: s})
				}
			}
		}
	}
}

// checkReads applies RuleProcessState and RuleParallelAllocs.
func (a *analyzer) checkReads() []Violation {
	var roots []*unit
	for _, d := range a.decls {
		if d.fn.Recv == nil && isTest(d.fn.Name.Name, "Test") {
			roots = append(roots, d.unit)
		}
	}
	for _, l := range a.lits {
		if l.parallel {
			roots = append(roots, l)
		}
	}
	type key struct {
		pos  token.Pos
		rule string
	}
	found := map[key]bool{}
	var out []Violation
	for _, root := range roots {
		reach(root, false, func(s *step) {
			for _, sk := range s.u.sinks {
				if sk.guarded || found[key{sk.pos, sk.rule}] {
					continue
				}
				var msg string
				switch sk.rule {
				case RuleProcessState:
					msg = fmt.Sprintf("%s reads the whole process's state, on a path from a test: %s; measure it in a benchmark, or after `if testrules.RunIsolated(t) { return }`", sk.what, s.path())
				case RuleParallelAllocs:
					if !root.parallel {
						continue
					}
					msg = fmt.Sprintf("%s counts the whole process's allocations, in a parallel test: %s", sk.what, s.path())
				}
				found[key{sk.pos, sk.rule}] = true
				out = append(out, Violation{Pos: a.fset.Position(sk.pos), Rule: sk.rule, Message: msg})
			}
		})
	}
	return out
}

// checkWallTime applies RuleWallTime to the functions reachable from a
// test or fuzz target.
func (a *analyzer) checkWallTime() []Violation {
	reached := map[*decl]bool{}
	for _, d := range a.decls {
		if d.fn.Recv == nil && (isTest(d.fn.Name.Name, "Test") || isTest(d.fn.Name.Name, "Fuzz")) {
			reach(d.unit, true, func(s *step) { reached[s.u.decl] = true })
		}
	}
	a.propagateDurations(reached)
	var out []Violation
	for _, d := range a.decls {
		if !reached[d] {
			continue
		}
		for _, pos := range a.flow(d, true).sinks() {
			out = append(out, Violation{Pos: a.fset.Position(pos), Rule: RuleWallTime,
				Message: fmt.Sprintf("in %s, a duration read from the clock decides whether the test fails; report it from a benchmark (b.ReportMetric), or only log it", d.unit.name)})
		}
	}
	return out
}

// propagateDurations finds, to a fixed point, which results of the
// package's test functions are durations read from the clock whatever
// their arguments, then which parameters of theirs the functions reached
// from a test pass such durations to.
func (a *analyzer) propagateDurations(reached map[*decl]bool) {
	for changed := true; changed; {
		changed = false
		for _, d := range a.decls {
			for _, i := range a.flow(d, false).results() {
				if !d.durResults[i] {
					d.durResults[i], changed = true, true
				}
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for _, d := range a.decls {
			if !reached[d] {
				continue
			}
			for _, arg := range a.flow(d, true).argsOut() {
				if !arg.callee.durParams[arg.i] {
					arg.callee.durParams[arg.i], changed = true, true
				}
			}
		}
	}
}
