package testrules

import (
	"go/ast"
	"go/token"
	"strings"
)

// testify is the import path prefix of testify's assert and require.
const testify = "github.com/stretchr/testify/"

// failing says whether a call of the method named name with args
// arguments fails a test, as testing.TB's Error, Errorf, Fatal, Fatalf,
// Fail and FailNow do (an error's Error method takes no arguments).
func failing(name string, args int) bool {
	switch name {
	case "Errorf", "Fatal", "Fatalf", "Fail", "FailNow":
		return true
	case "Error":
		return args > 0
	}
	return false
}

// onTimes says whether a testify assertion's arguments are times: a clock
// reading in them is a wall-time assertion too.
func onTimes(assertion string) bool {
	switch assertion {
	case "WithinDuration", "WithinDurationf", "WithinRange", "WithinRangef":
		return true
	}
	return false
}

// flow follows durations read from the clock through one function, the
// function literals in it included, by the keys of the expressions that
// hold them ("elapsed", "m.elapsed": a variable, or a path of fields; an
// element stands for its whole array, slice or map).
type flow struct {
	a      *analyzer
	d      *decl
	f      *fileInfo
	dur    map[string]bool // keys holding durations read from the clock
	clock  map[string]bool // keys holding readings of the clock
	assert map[string]bool // keys holding assert.New or require.New objects
}

// flow follows the durations of d: with params, its parameters' too, as
// the calls seen so far pass them (decl.durParams). (A duration passed
// in and returned is seen at the call, in its arguments: the results
// that count as durations whatever the arguments are found without.)
func (a *analyzer) flow(d *decl, params bool) *flow {
	fl := &flow{a: a, d: d, f: d.file, dur: map[string]bool{}, clock: map[string]bool{}, assert: map[string]bool{}}
	for i, name := range paramNames(d.fn.Type) {
		if params && d.durParams[i] && name != "" && name != "_" {
			fl.dur[name] = true
		}
	}
	for fl.pass() {
	}
	return fl
}

// pass follows assignments once through the function; it reports whether
// it marked anything new.
func (fl *flow) pass() bool {
	changed := false
	ast.Inspect(fl.d.fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			changed = fl.assign(n.Lhs, n.Rhs) || changed
		case *ast.ValueSpec:
			lhs := make([]ast.Expr, len(n.Names))
			for i, id := range n.Names {
				lhs[i] = id
			}
			changed = fl.assign(lhs, n.Values) || changed
		case *ast.RangeStmt:
			if fl.isDur(n.X) {
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if e != nil {
						changed = mark(fl.dur, e) || changed
					}
				}
			}
		}
		return true
	})
	return changed
}

// assign marks what lhs gets from rhs.
func (fl *flow) assign(lhs, rhs []ast.Expr) bool {
	changed := false
	if len(lhs) == len(rhs) {
		for i, r := range rhs {
			if fl.isDur(r) {
				changed = mark(fl.dur, lhs[i]) || changed
			}
			if fl.isClock(r) {
				changed = mark(fl.clock, lhs[i]) || changed
			}
			if fl.isAsserter(r) {
				changed = mark(fl.assert, lhs[i]) || changed
			}
		}
		return changed
	}
	if len(rhs) != 1 {
		return false
	}
	call, ok := rhs[0].(*ast.CallExpr)
	if !ok { // v, ok := m[k], x.(T), <-c
		if fl.isDur(rhs[0]) {
			changed = mark(fl.dur, lhs[0])
		}
		return changed
	}
	all := fl.isDur(call.Fun) // a function value that returns a duration
	for i, l := range lhs {
		if all || fl.resultIsDur(call, i) {
			changed = mark(fl.dur, l) || changed
		}
	}
	return changed
}

// mark records the key of e in set; it reports whether it was new.
func mark(set map[string]bool, e ast.Expr) bool {
	k := key(e)
	if k == "" || set[k] {
		return false
	}
	set[k] = true
	return true
}

// key is the variable, or path of fields, that e reads or writes; "" if
// it is none.
func key(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		if e.Name != "_" {
			return e.Name
		}
	case *ast.SelectorExpr:
		if k := key(e.X); k != "" {
			return k + "." + e.Sel.Name
		}
	case *ast.IndexExpr:
		return key(e.X)
	case *ast.StarExpr:
		return key(e.X)
	case *ast.ParenExpr:
		return key(e.X)
	case *ast.UnaryExpr:
		if e.Op == token.AND {
			return key(e.X)
		}
	}
	return ""
}

// isDur says whether e's value is computed from a duration read from the
// clock. A function literal's value is, when one of its results is.
func (fl *flow) isDur(e ast.Expr) bool {
	return fl.reaches(e, fl.dur, fl.isDur, fl.durCall, fl.litReturnsDur)
}

// durCall says whether call returns a duration read from the clock
// whatever its arguments: time.Since, time.Until, testing.Benchmark, a
// clock reading's Sub, or a function of the package whose result is one.
func (fl *flow) durCall(call *ast.CallExpr) bool {
	switch fl.f.qualified(call.Fun) {
	case "time.Since", "time.Until", "testing.Benchmark":
		return true
	}
	if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Sub" && fl.f.qualified(sel) == "" {
		if fl.isClock(sel.X) {
			return true
		}
		for _, arg := range call.Args {
			if fl.isClock(arg) {
				return true
			}
		}
	}
	for _, d := range fl.callees(call) {
		if len(d.durResults) > 0 {
			return true
		}
	}
	return false
}

// resultIsDur says whether result i of call is a duration read from the
// clock.
func (fl *flow) resultIsDur(call *ast.CallExpr, i int) bool {
	for _, d := range fl.callees(call) {
		if d.durResults[i] {
			return true
		}
	}
	return false
}

// litReturnsDur says whether a function literal returns a duration read
// from the clock.
func (fl *flow) litReturnsDur(lit *ast.FuncLit) bool {
	found := false
	inspectOwn(lit.Body, func(n ast.Node) {
		if r, ok := n.(*ast.ReturnStmt); ok && !found {
			for _, e := range r.Results {
				found = found || fl.isDur(e)
			}
		}
	})
	return found
}

// isClock says whether e's value is computed from a reading of the clock.
func (fl *flow) isClock(e ast.Expr) bool {
	return fl.reaches(e, fl.clock, fl.isClock,
		func(call *ast.CallExpr) bool { return fl.f.qualified(call.Fun) == "time.Now" },
		func(*ast.FuncLit) bool { return false })
}

// reaches says whether e's value is computed from what marked holds (by
// variable or path of fields), from a call that call accepts, or from a
// function literal that lit accepts; self follows a key-value pair's
// value and a selector's operand. isDur and isClock are its two uses.
func (fl *flow) reaches(e ast.Expr, marked map[string]bool, self func(ast.Expr) bool, call func(*ast.CallExpr) bool, lit func(*ast.FuncLit) bool) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			found = lit(n)
			return false
		case *ast.KeyValueExpr:
			found = self(n.Value)
			return false
		case *ast.Ident:
			found = marked[n.Name]
		case *ast.SelectorExpr:
			if fl.f.qualified(n) != "" {
				return false
			}
			found = marked[key(n)] || self(n.X)
			return false
		case *ast.CallExpr:
			found = call(n)
		}
		return !found
	})
	return found
}

// isAsserter says whether e is assert.New(...) or require.New(...).
func (fl *flow) isAsserter(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	q := fl.f.qualified(call.Fun)
	return q == testify+"assert.New" || q == testify+"require.New"
}

// assertion is the name of the testify assertion call makes; "" if it
// makes none.
func (fl *flow) assertion(call *ast.CallExpr) string {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	if q := fl.f.qualified(sel); strings.HasPrefix(q, testify+"assert.") || strings.HasPrefix(q, testify+"require.") {
		if sel.Sel.Name == "New" {
			return ""
		}
		return sel.Sel.Name
	}
	if fl.assert[key(sel.X)] {
		return sel.Sel.Name
	}
	return ""
}

// callees is the functions of the package call may call, by name.
func (fl *flow) callees(call *ast.CallExpr) []*decl {
	switch fun := call.Fun.(type) {
	case *ast.Ident:
		return fl.f.pkg.funcs[fun.Name]
	case *ast.SelectorExpr:
		if fl.f.qualified(fun) != "" {
			return fl.a.ownFuncs(fl.f, fun)
		}
		return fl.f.pkg.methods[fun.Sel.Name]
	}
	return nil
}

// results is the positions of the function's results that carry a
// duration read from the clock.
func (fl *flow) results() []int {
	names := resultNames(fl.d.fn.Type)
	tainted := map[int]bool{}
	for i, name := range names {
		if name != "" && fl.dur[name] {
			tainted[i] = true
		}
	}
	inspectOwn(fl.d.fn.Body, func(n ast.Node) {
		r, ok := n.(*ast.ReturnStmt)
		if !ok {
			return
		}
		switch {
		case len(r.Results) == len(names):
			for i, e := range r.Results {
				if fl.isDur(e) {
					tainted[i] = true
				}
			}
		case len(r.Results) == 1:
			if call, ok := r.Results[0].(*ast.CallExpr); ok {
				for i := range names {
					if fl.resultIsDur(call, i) {
						tainted[i] = true
					}
				}
			}
		}
	})
	var out []int
	for i := range names {
		if tainted[i] {
			out = append(out, i)
		}
	}
	return out
}

// argFlow is a duration passed as argument i to callee.
type argFlow struct {
	callee *decl
	i      int
}

// argsOut is the durations the function passes to the package's
// functions.
func (fl *flow) argsOut() []argFlow {
	var out []argFlow
	ast.Inspect(fl.d.fn.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		callees := fl.callees(call)
		if len(callees) == 0 {
			return true
		}
		for i, arg := range call.Args {
			if !fl.isDur(arg) {
				continue
			}
			for _, c := range callees {
				params := paramNames(c.fn.Type)
				switch {
				case i < len(params):
					out = append(out, argFlow{c, i})
				case variadic(c.fn.Type):
					out = append(out, argFlow{c, len(params) - 1})
				}
			}
		}
		return true
	})
	return out
}

// sinks is where a duration read from the clock decides whether the test
// fails: the arguments of a testify assertion (a clock reading too, for
// those on times), and the condition of an if, or a switch's tag or case,
// whose branch fails the test.
func (fl *flow) sinks() []token.Pos {
	var out []token.Pos
	ast.Inspect(fl.d.fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			name := fl.assertion(n)
			if name == "" {
				return true
			}
			for _, arg := range n.Args {
				if fl.isDur(arg) || onTimes(name) && fl.isClock(arg) {
					out = append(out, n.Pos())
					break
				}
			}
		case *ast.IfStmt:
			if fl.isDur(n.Cond) && (fl.fails(n.Body) || n.Else != nil && fl.fails(n.Else)) {
				out = append(out, n.Cond.Pos())
			}
		case *ast.SwitchStmt:
			tag := n.Tag != nil && fl.isDur(n.Tag)
			for _, st := range n.Body.List {
				cc := st.(*ast.CaseClause)
				decides := tag
				for _, e := range cc.List {
					decides = decides || fl.isDur(e)
				}
				if decides && fl.fails(cc) {
					out = append(out, cc.Pos())
				}
			}
		}
		return true
	})
	return out
}

// fails says whether n fails the test: t.Error, t.Fatal and the like, a
// testify assertion, or a panic.
func (fl *flow) fails(n ast.Node) bool {
	found := false
	inspectOwn(n, func(n ast.Node) {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return
		}
		switch fun := call.Fun.(type) {
		case *ast.Ident:
			found = fun.Name == "panic"
		case *ast.SelectorExpr:
			found = failing(fun.Sel.Name, len(call.Args)) || fl.assertion(call) != ""
		}
	})
	return found
}

// inspectOwn calls f for the nodes of n, not entering function literals.
func inspectOwn(n ast.Node, f func(ast.Node)) {
	ast.Inspect(n, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		if n != nil {
			f(n)
		}
		return true
	})
}

// paramNames is the names of a function's parameters, one for each
// ("" for one unnamed).
func paramNames(ft *ast.FuncType) []string {
	return fieldNames(ft.Params)
}

// resultNames is the names of a function's results, one for each ("" for
// one unnamed).
func resultNames(ft *ast.FuncType) []string {
	return fieldNames(ft.Results)
}

func fieldNames(fl *ast.FieldList) []string {
	if fl == nil {
		return nil
	}
	var out []string
	for _, f := range fl.List {
		if len(f.Names) == 0 {
			out = append(out, "")
		}
		for _, n := range f.Names {
			out = append(out, n.Name)
		}
	}
	return out
}

// variadic says whether a function's last parameter is variadic.
func variadic(ft *ast.FuncType) bool {
	if ft.Params == nil || len(ft.Params.List) == 0 {
		return false
	}
	_, ok := ft.Params.List[len(ft.Params.List)-1].Type.(*ast.Ellipsis)
	return ok
}
