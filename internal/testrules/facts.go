package testrules

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// RuleOneOwner: a constant that defines an exit code, a mode name or a
// bucket name in a package other than the fact's owner.
const RuleOneOwner = "one-owner"

// The owners of the facts, as directories relative to their module's
// root (or to the root checked, where no go.mod is above them).
const (
	// exitOwner defines every exit code.
	exitOwner = "internal/cli"
	// namesOwner defines the mode and bucket names: they are names of
	// the profile format.
	namesOwner = "jsframes/jsprofile"
)

var (
	// exitName: a name that says it is an exit code (ExitUsage,
	// exitFailure, MaxExitStatus).
	exitName = regexp.MustCompile(`^(?:[Ee]xit|.*Exit)(?:[A-Z0-9_]|$)`)
	// codeName: a name that may hold an exit code (trapCode, timeoutStatus).
	codeName = regexp.MustCompile(`(?i)code|status`)
	// modeName and bucketName: Mode* and Bucket*, exported or not.
	modeName   = regexp.MustCompile(`^[Mm]ode(?:[A-Z0-9_]|$)`)
	bucketName = regexp.MustCompile(`^[Bb]ucket(?:[A-Z0-9_]|$)`)
)

// exitNumbers are the exit codes whose number alone gives them away
// (cli.ExitLimit, ExitSignalBase, ExitTrap).
var exitNumbers = map[string]bool{"124": true, "128": true, "134": true}

// fact says which fact a constant called name, of value (nil: repeated
// from the spec above it), defines: "an exit code", "a mode name", "a
// bucket name", or "" for none.
//
//   - an exit code: a name like exitName whose value is not a string (a
//     string is the name of something about exit codes, like a profile
//     comment's key), or a name like codeName whose value is 124, 128 or
//     134;
//   - a mode name: a name like modeName whose value is a string, or
//     another package's Mode* constant (an alias is a second definition);
//   - a bucket name: a name like bucketName whose value is a string in
//     parentheses, as buckets are named, or another package's Bucket*
//     constant.
func fact(name string, value ast.Expr) string {
	str, isStr := stringValue(value)
	switch {
	case exitName.MatchString(name) && !isStr,
		codeName.MatchString(name) && isNumber(value, exitNumbers):
		return "an exit code"
	case modeName.MatchString(name) && (isStr || aliases(value, "Mode")):
		return "a mode name"
	case bucketName.MatchString(name) && (isStr && strings.HasPrefix(str, "(") && strings.HasSuffix(str, ")") || aliases(value, "Bucket")):
		return "a bucket name"
	}
	return ""
}

// stringValue is value's string, if it is a string literal.
func stringValue(value ast.Expr) (string, bool) {
	lit, ok := value.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// isNumber says whether value is an integer literal among numbers.
func isNumber(value ast.Expr, numbers map[string]bool) bool {
	lit, ok := value.(*ast.BasicLit)
	return ok && lit.Kind == token.INT && numbers[lit.Value]
}

// aliases says whether value is another package's constant whose name
// starts with prefix (pkg.ModeExact).
func aliases(value ast.Expr, prefix string) bool {
	sel, ok := value.(*ast.SelectorExpr)
	return ok && strings.HasPrefix(sel.Sel.Name, prefix)
}

// owner is the package that may define a fact.
func owner(fact string) string {
	if fact == "an exit code" {
		return exitOwner
	}
	return namesOwner
}

// checkFacts returns where f, a file of the package in dir (relative to
// its module's root), defines a fact whose owner is another package: its
// constants at the top level and in function bodies.
func checkFacts(fset *token.FileSet, f *ast.File, dir string) []Violation {
	var out []Violation
	ast.Inspect(f, func(n ast.Node) bool {
		d, ok := n.(*ast.GenDecl)
		if !ok || d.Tok != token.CONST {
			return true
		}
		for _, s := range d.Specs {
			vs := s.(*ast.ValueSpec)
			for i, id := range vs.Names {
				var value ast.Expr
				if i < len(vs.Values) {
					value = vs.Values[i]
				}
				what := fact(id.Name, value)
				if what == "" || owner(what) == dir {
					continue
				}
				out = append(out, Violation{Pos: fset.Position(id.Pos()), Rule: RuleOneOwner,
					Message: id.Name + " defines " + what + ", which only " + owner(what) + " defines"})
			}
		}
		return false
	})
	return out
}

// moduleDir is dir relative to the nearest go.mod at or above it within
// root, or to root where there is none, with slashes.
func moduleDir(root, dir string, modules map[string]string) string {
	base := root
	for d := dir; ; d = filepath.Dir(d) {
		if _, ok := modules[d]; ok {
			base = d
			break
		}
		if d == root || d == filepath.Dir(d) {
			break
		}
	}
	rel, err := filepath.Rel(base, dir)
	if err != nil {
		return ""
	}
	return filepath.ToSlash(rel)
}
