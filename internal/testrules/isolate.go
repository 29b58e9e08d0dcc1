package testrules

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// IsolatedEnv names the environment variable that marks a test binary
// started by RunIsolated; its value is the name of the test it runs.
const IsolatedEnv = "JSPROF_TEST_ISOLATED"

// RunIsolated runs the rest of t's test in a process of its own, so that
// what the test measures of the process (its allocation, its goroutines,
// its peak memory) is the test's alone. Used as
//
//	if testrules.RunIsolated(t) {
//		return // passed in a process of its own
//	}
//
// In the test's own process it re-executes the test binary to run only
// t's test (-test.run matching t.Name() exactly, -test.short and the time
// left before -test.timeout passed on), with IsolatedEnv set, and reports
// true once that process has passed, its output logged; it fails t if the
// test failed or did not run there, and skips t if it was skipped there.
// In that process, it reports false: the test goes on. Whatever ran
// before the guard runs in both processes.
//
// The isolated process runs no other test, but runs every parallel
// subtest of t's test beside its siblings: a measurement belongs in a
// sequential test or subtest, or behind a guard of its own.
func RunIsolated(t *testing.T) bool {
	t.Helper()
	name := t.Name()
	if running := os.Getenv(IsolatedEnv); running != "" && related(running, name) {
		return false
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatalf("testrules: the test binary: %v", err)
	}
	args := []string{"-test.run=" + runPattern(name), "-test.count=1", "-test.v=true"}
	if testing.Short() {
		args = append(args, "-test.short")
	}
	if deadline, ok := t.Deadline(); ok {
		args = append(args, "-test.timeout="+max(time.Until(deadline), time.Second).String())
	}
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), IsolatedEnv+"="+name)
	out, err := cmd.CombinedOutput()
	quoted := quote(out)
	if err != nil {
		t.Fatalf("testrules: %s, run in a process of its own, failed (%v):\n%s", name, err, quoted)
	}
	switch result(out, name) {
	case "PASS":
		t.Logf("%s passed in a process of its own:\n%s", name, quoted)
		return true
	case "SKIP":
		t.Skipf("%s was skipped in a process of its own:\n%s", name, quoted)
	}
	t.Fatalf("testrules: %s did not run in a process of its own:\n%s", name, quoted)
	return false
}

// related says whether a process started by RunIsolated to run the test
// named running runs the test named name: it is that test, one of its
// subtests, or a test it is a subtest of (run on the way to it). Nothing
// else runs in that process.
func related(running, name string) bool {
	return running == name || strings.HasPrefix(name, running+"/") || strings.HasPrefix(running, name+"/")
}

// runPattern is the -test.run pattern that matches the test named name
// (as t.Name() spells it) and no other: each level of the name, quoted
// and anchored.
func runPattern(name string) string {
	levels := strings.Split(name, "/")
	for i, l := range levels {
		levels[i] = "^" + regexp.QuoteMeta(l) + "$"
	}
	return strings.Join(levels, "/")
}

// result is how the test named name ended in a test binary's verbose
// output: "PASS", "SKIP", "FAIL", or "" if it did not run.
func result(out []byte, name string) string {
	m := regexp.MustCompile(`(?m)^\s*--- (PASS|SKIP|FAIL): ` + regexp.QuoteMeta(name) + ` \(`).FindSubmatch(out)
	if m == nil {
		return ""
	}
	return string(m[1])
}

// quote indents a test binary's output behind "| ", so that none of its
// lines reads as the parent's own "=== RUN" or "--- PASS" line to
// test2json.
func quote(out []byte) string {
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	for i, l := range lines {
		lines[i] = "| " + l
	}
	return strings.Join(lines, "\n")
}
