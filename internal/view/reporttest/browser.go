package reporttest

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Browser drives headless Chromium over its DevTools protocol on a pipe
// (--remote-debugging-pipe: JSON messages separated by NUL bytes on file
// descriptors 3 and 4), enough to load a page, run JS in it, click and
// take screenshots: the tests of the pages' script (the flame graph's
// zoom and search) and the screenshots of docs/img.
type Browser struct {
	t       testing.TB
	cmd     *exec.Cmd
	w       *os.File
	mu      sync.Mutex
	nextID  int
	waiting map[int]chan cdpMessage
	session string
	done    chan struct{}
	Width   int
	Height  int
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    any             `json:"params,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// NewBrowser starts headless Chromium with a viewport of width × height
// CSS pixels, or skips (fails in CI) when there is none.
func NewBrowser(t testing.TB, width, height int) *Browser {
	t.Helper()
	bin := Chromium(t)
	dir := t.TempDir()
	cmdR, cmdW, err := os.Pipe() // Chromium reads commands on fd 3
	require.NoError(t, err)
	resR, resW, err := os.Pipe() // and writes responses on fd 4
	require.NoError(t, err)
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars", "--mute-audio",
		"--remote-debugging-pipe", "--user-data-dir="+filepath.Join(dir, "profile"), "about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, resW}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	cmdR.Close()
	resW.Close()
	b := &Browser{t: t, cmd: cmd, w: cmdW, waiting: map[int]chan cdpMessage{}, done: make(chan struct{}), Width: width, Height: height}
	go b.read(resR)
	t.Cleanup(func() {
		cmdW.Close()
		cmd.Process.Kill()
		cmd.Wait()
		resR.Close()
	})
	var target struct {
		TargetID string `json:"targetId"`
	}
	b.Call("Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	b.Call("Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	b.session = attached.SessionID
	b.Call("Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil)
	b.Call("Page.enable", nil, nil)
	return b
}

func (b *Browser) read(r *os.File) {
	defer close(b.done)
	br := bufio.NewReader(r)
	for {
		msg, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m cdpMessage
		if json.Unmarshal(msg[:len(msg)-1], &m) != nil || m.ID == 0 {
			continue // an event
		}
		b.mu.Lock()
		ch := b.waiting[m.ID]
		delete(b.waiting, m.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
}

// Call sends a DevTools command and decodes its result into out (unless
// nil).
func (b *Browser) Call(method string, params any, out any) {
	b.t.Helper()
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan cdpMessage, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	req := cdpMessage{ID: id, Method: method, Params: params}
	if !strings.HasPrefix(method, "Target.") {
		req.SessionID = b.session
	}
	msg, err := json.Marshal(req)
	require.NoError(b.t, err)
	_, err = b.w.Write(append(msg, 0))
	require.NoError(b.t, err, "chromium: %s", method)
	select {
	case m := <-ch:
		if m.Error != nil {
			b.t.Fatalf("chromium: %s: %s", method, m.Error.Message)
		}
		if out != nil {
			require.NoError(b.t, json.Unmarshal(m.Result, out), "%s", method)
		}
	case <-b.done:
		b.t.Fatalf("chromium: %s: the browser went away", method)
	case <-time.After(90 * time.Second):
		b.t.Fatalf("chromium: %s: no answer in 90s", method)
	}
}

// Open loads a page (a file path, and a fragment, without '#') and waits
// for it to have loaded and for ready (a JS expression) to be true.
func (b *Browser) Open(path, fragment, ready string) {
	b.t.Helper()
	abs, err := filepath.Abs(path)
	require.NoError(b.t, err)
	url := "file://" + abs
	if fragment != "" {
		url += "#" + fragment
	}
	b.Call("Page.navigate", map[string]any{"url": "about:blank"}, nil) // a new document, even for another fragment
	b.Call("Page.navigate", map[string]any{"url": url}, nil)
	cond := fmt.Sprintf("location.href === %q && document.readyState === 'complete'", url)
	if ready != "" {
		cond += " && !!(" + ready + ")"
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		var ok bool
		b.Eval(cond, &ok)
		if ok {
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("chromium: %s: not ready (%s) after 60s", path, ready)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Eval runs a JS expression in the page and decodes its value into out
// (unless nil).
func (b *Browser) Eval(expr string, out any) {
	b.t.Helper()
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	b.Call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &res)
	if res.ExceptionDetails != nil {
		b.t.Fatalf("chromium: %s: %s %s", expr, res.ExceptionDetails.Text, res.ExceptionDetails.Exception.Description)
	}
	if out != nil && len(res.Result.Value) > 0 {
		require.NoError(b.t, json.Unmarshal(res.Result.Value, out), "%s = %s", expr, res.Result.Value)
	}
}

// Rect is an element's box in CSS pixels, relative to the viewport.
type Rect struct{ X, Y, Width, Height float64 }

// Rect returns the box of the first element matching a CSS selector.
func (b *Browser) Rect(selector string) Rect {
	b.t.Helper()
	var r *Rect
	b.Eval(fmt.Sprintf(`(function(){var e=document.querySelector(%q); if(!e) return null; var r=e.getBoundingClientRect(); return {X:r.x,Y:r.y,Width:r.width,Height:r.height};})()`, selector), &r)
	require.NotNil(b.t, r, "no element %s", selector)
	return *r
}

// Click presses and releases the left button at a point of the viewport,
// as a person's click.
func (b *Browser) Click(x, y float64) {
	b.t.Helper()
	for _, typ := range []string{"mouseMoved", "mousePressed", "mouseReleased"} {
		b.Call("Input.dispatchMouseEvent", map[string]any{"type": typ, "x": x, "y": y, "button": "left", "clickCount": 1}, nil)
	}
}

// Screenshot captures the viewport, or with full the whole page.
func (b *Browser) Screenshot(full bool) image.Image {
	b.t.Helper()
	params := map[string]any{"format": "png"}
	if full {
		var size struct{ W, H float64 }
		b.Eval(`({W: document.documentElement.scrollWidth, H: document.documentElement.scrollHeight})`, &size)
		params["captureBeyondViewport"] = true
		params["clip"] = map[string]any{"x": 0, "y": 0, "width": size.W, "height": size.H, "scale": 1}
	}
	var res struct {
		Data string `json:"data"`
	}
	b.Call("Page.captureScreenshot", params, &res)
	raw, err := base64.StdEncoding.DecodeString(res.Data)
	require.NoError(b.t, err)
	img, err := png.Decode(bytes.NewReader(raw))
	require.NoError(b.t, err)
	return img
}

// SavePNG writes a screenshot.
func SavePNG(t testing.TB, path string, img image.Image) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
}

// DocsImage is where the screenshots of the documentation go (docs/img),
// written when the tests run with -update.
func DocsImage(name string) string {
	return filepath.Join(dir(), "..", "..", "..", "docs", "img", name)
}

// Chromium finds headless Chromium (Debian's package chromium) or skips;
// in CI, where scripts/setup.sh installs it, its absence is a failure.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const why = "headless Chromium not found (Debian: apt-get install chromium): the HTML is not rendered"
	if os.Getenv("CI") != "" {
		t.Fatal(why)
	}
	t.Skip(why)
	return ""
}

// SelfContained checks that a page loads nothing: no script, stylesheet,
// image, font or frame from anywhere, and no script but its own, inline.
func SelfContained(t testing.TB, page string) {
	t.Helper()
	for _, bad := range []string{"<link", "<img", "<iframe", "src=", "@import", "url(", "http://", "https://", "fetch(", "XMLHttpRequest", "import("} {
		assert.NotContains(t, page, bad)
	}
	for _, tag := range regexp.MustCompile(`<script[^>]*>`).FindAllString(page, -1) {
		assert.Contains(t, []string{"<script>", `<script type="application/json" id="flame-data">`}, tag, "inline scripts and data only")
	}
}
