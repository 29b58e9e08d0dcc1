package throw

import (
	"bytes"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/pprof/profile"

	"github.com/jsprof/jsprof/internal/printable"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// Tail passes what is written on to W and keeps the last bytes of it:
// where a guest that trapped told its uncaught error (Run.GuestOutput).
// It is safe for concurrent writes.
type Tail struct {
	W    io.Writer
	mu   sync.Mutex
	kept []byte
}

// tailBytes is how much of the guest's stderr a Tail keeps: an error's
// message and backtrace are a few hundred bytes.
const tailBytes = 16 << 10

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.kept = append(t.kept, p...)
	if len(t.kept) > 2*tailBytes {
		t.kept = append(t.kept[:0], t.kept[len(t.kept)-tailBytes:]...)
	}
	t.mu.Unlock()
	if t.W == nil {
		return len(p), nil
	}
	return t.W.Write(p)
}

// Bytes is the last bytes written, up to tailBytes.
func (t *Tail) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return bytes.Clone(t.kept[max(0, len(t.kept)-tailBytes):])
}

// backtraceLine is one frame of a QuickJS backtrace: "    at f (index.js:3:5)",
// "    at parse (native)", "    at <input>:1:1".
var backtraceLine = regexp.MustCompile(`^\s+at (?:(.*?) \((.*)\)|(.*))$`)

// Uncaught reads the uncaught JS error a Javy engine told on stderr (or in
// a provider's logs) before it trapped, from the last of what the guest
// wrote: the message (without Javy's "Error while running JS: Uncaught "),
// and QuickJS's backtrace, innermost first, in the engine's naming
// (function.mjs). ok is false when the text holds no error jsprof can
// tell from the guest's own output. The text is the guest's: the message
// is one line of printable text, at most 500 bytes.
func Uncaught(text []byte) (message string, backtrace []jsprofile.ThrowFrame, ok bool) {
	lines := strings.Split(strings.ReplaceAll(string(text), "\r\n", "\n"), "\n")
	last := -1 // the last backtrace line
	for i := len(lines) - 1; i >= 0; i-- {
		if backtraceLine.MatchString(lines[i]) {
			last = i
			break
		}
	}
	const javyPrefix = "Error while running JS: "
	if last < 0 {
		for i := len(lines) - 1; i >= 0; i-- {
			if strings.HasPrefix(lines[i], javyPrefix) {
				return cleanMessage(lines[i]), nil, true
			}
		}
		return "", nil, false
	}
	first := last
	for first > 0 && backtraceLine.MatchString(lines[first-1]) {
		first--
	}
	if first == 0 || strings.TrimSpace(lines[first-1]) == "" {
		return "", nil, false
	}
	for _, l := range lines[first : last+1] {
		if len(backtrace) == 64 {
			break
		}
		backtrace = append(backtrace, backtraceFrame(backtraceLine.FindStringSubmatch(l)))
	}
	return cleanMessage(lines[first-1]), backtrace, true
}

// backtraceFrame reads one matched backtrace line.
func backtraceFrame(m []string) jsprofile.ThrowFrame {
	name, where := m[1], m[2]
	if m[3] != "" {
		where = m[3]
	}
	if where == "native" {
		return jsprofile.ThrowFrame{Function: clip(name, 200), Native: true}
	}
	// FILE:LINE or FILE:LINE:COLUMN.
	var nums []int64
	for len(nums) < 2 {
		i := strings.LastIndexByte(where, ':')
		n, err := strconv.ParseInt(where[i+1:], 10, 64)
		if i < 0 || err != nil || n <= 0 {
			break
		}
		nums, where = append(nums, n), where[:i]
	}
	f := jsprofile.ThrowFrame{Function: clip(name, 200), File: clip(where, 200)}
	if len(nums) > 0 {
		f.Line = nums[len(nums)-1]
	}
	return f
}

func cleanMessage(s string) string {
	s = strings.TrimPrefix(strings.TrimSpace(s), "Error while running JS: ")
	return clip(strings.TrimPrefix(s, "Uncaught "), 500)
}

// clip is s made printable (printable.String), with its ends trimmed and
// cut to at most n bytes, on a character's boundary.
func clip(s string, n int) string {
	s = strings.TrimSpace(printable.String(s))
	if len(s) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = strings.TrimSpace(s[:cut])
	}
	return s
}

// Find is the Throw of a run that trapped, told in output (Uncaught),
// its stack read from the run's own profile p; nil when the output tells
// no error.
func Find(p *profile.Profile, output []byte) *jsprofile.Throw {
	msg, backtrace, ok := Uncaught(output)
	if !ok {
		return nil
	}
	t := &jsprofile.Throw{Message: msg, Stack: []jsprofile.ThrowFrame{}}
	if jp, err := jsprofile.Read(p); err == nil {
		if s := jp.ThrowStack(backtrace); s != nil {
			t.Stack = s
		}
	}
	return t
}
