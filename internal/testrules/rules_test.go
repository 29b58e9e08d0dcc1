package testrules_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/testrules"
)

// TestRulesHold: every test of the repository keeps the rules (doc.go).
func TestRulesHold(t *testing.T) {
	root := moduleRoot(t)
	violations, err := testrules.Check(root)
	require.NoError(t, err)
	var lines []string
	for _, v := range violations {
		lines = append(lines, v.String())
	}
	assert.Empty(t, strings.Join(lines, "\n"), "tests that break the rules of internal/testrules (doc.go), paths from %s", root)
}

// TestRulesBite: in the negative control, testdata/control, the checker
// reports exactly the lines marked "// want RULE", and every rule is
// marked at least once; the control's owners of the facts (internal/cli,
// jsframes/jsprofile) define them unreported.
func TestRulesBite(t *testing.T) {
	const dir = "testdata/control"
	want := wantComments(t, dir)
	violations, err := testrules.Check(dir)
	require.NoError(t, err)
	var got []string
	for _, v := range violations {
		got = append(got, fmt.Sprintf("%s:%d: %s", v.Pos.Filename, v.Pos.Line, v.Rule))
		assert.NotEmpty(t, v.Message)
	}
	assert.Equal(t, want, got)
	for _, rule := range []string{testrules.RuleProcessState, testrules.RuleParallelAllocs, testrules.RuleWallTime, testrules.RuleOneOwner} {
		assert.True(t, slices.ContainsFunc(want, func(w string) bool { return strings.HasSuffix(w, ": "+rule) }), "the control breaks %s", rule)
	}
	assert.NotContains(t, strings.Join(want, "\n"), "clean_test.go", "the clean half breaks no rule")
	assert.NotContains(t, strings.Join(got, "\n"), "internal/cli/", "the owner of exit codes may define them")
	assert.NotContains(t, strings.Join(got, "\n"), "jsframes/jsprofile/", "the owner of mode and bucket names may define them")
}

// wantComments is the "file:line: rule" of each "// want rule" comment in
// the files of dir, in order.
func wantComments(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	re := regexp.MustCompile(`// want ([a-z-]+)$`)
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		for line := 1; sc.Scan(); line++ {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				out = append(out, fmt.Sprintf("%s:%d: %s", filepath.Base(f), line, m[1]))
			}
		}
	}
	return out
}

// moduleRoot is the directory of the go.mod above this package's, which
// must be the project's.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	require.NoError(t, err)
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			require.Contains(t, string(b), "module github.com/jsprof/jsprof\n", "the project's go.mod")
			return dir
		}
		require.NotEqual(t, dir, filepath.Dir(dir), "no go.mod above the package")
		dir = filepath.Dir(dir)
	}
}

// TestRunIsolated: the rest of a test, or subtest, whatever its name,
// runs in another process started for it alone, with IsolatedEnv naming
// it; the test's own process goes on only once that process has passed.
func TestRunIsolated(t *testing.T) {
	for i, name := range []string{"plain", "with spaces", "regexp (.*) [chars]"} {
		t.Run(name, func(t *testing.T) {
			mark := func(pid int) string {
				return filepath.Join(os.TempDir(), fmt.Sprintf("jsprof-testrules-isolated-%d-%d", pid, i))
			}
			if testrules.RunIsolated(t) {
				b, err := os.ReadFile(mark(os.Getpid()))
				require.NoError(t, err, "the isolated process ran the test")
				require.NoError(t, os.Remove(mark(os.Getpid())))
				assert.Equal(t, t.Name(), string(b))
				return
			}
			require.Equal(t, t.Name(), os.Getenv(testrules.IsolatedEnv))
			require.NoError(t, os.WriteFile(mark(os.Getppid()), []byte(t.Name()), 0o600))
		})
	}
}
