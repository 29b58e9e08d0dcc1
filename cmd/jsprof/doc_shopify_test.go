package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
)

// docBlocks are the fenced blocks of a Markdown page whose language is
// lang, in order.
func docBlocks(t *testing.T, page, lang string) []string {
	t.Helper()
	b, err := os.ReadFile(page)
	require.NoError(t, err)
	var blocks []string
	for _, m := range regexp.MustCompile("(?ms)^```"+lang+"\n(.*?)^```$").FindAllStringSubmatch(string(b), -1) {
		blocks = append(blocks, m[1])
	}
	return blocks
}

// docCommands are the commands of a page's sh blocks, a command's
// continued lines joined and its comment dropped.
func docCommands(t *testing.T, page string) []string {
	t.Helper()
	var cmds []string
	for _, block := range docBlocks(t, page, "sh") {
		for _, c := range strings.Split(strings.ReplaceAll(block, "\\\n", " "), "\n") {
			if c, _, _ = strings.Cut(c, "#"); strings.TrimSpace(c) != "" {
				cmds = append(cmds, strings.Join(strings.Fields(c), " "))
			}
		}
	}
	return cmds
}

// notHere are the commands of docs/shopify-functions.md a test cannot run,
// by their start, with why: nothing else of the page is left out.
var notHere = []struct{ prefix, why string }{
	{"npm create @shopify/app", "needs npm's registry and Shopify CLI"},
	{"cd my-app", "the app npm create makes"},
	{"shopify app generate extension", "needs Shopify CLI; fixtures/shopify/app is what it lays out"},
	{"mkdir runs && cp ~/.local/state/shopify-cli-nodejs/", "production's logs: the test writes one as Shopify CLI does"},
	{"go tool pprof -http=:", "serves until stopped"},
}

// TestShopifyFunctionsDoc runs docs/shopify-functions.md as written, in
// order, in the discount function's extension folder as Shopify CLI lays
// it out (fixtures/shopify/app), with function-runner's providers in
// providers/ and the pinned npm packages in node_modules: the doc's
// entry.ts, esbuild (npx esbuild is the pinned one), every jsprof
// command, exit 0 each. What the doc shows of their output is checked
// where it is the user's first sight: the folder's one line, the
// TypeScript found through the map jsprof build recorded.
func TestShopifyFunctionsDoc(t *testing.T) {
	page, err := filepath.Abs(filepath.Join("..", "..", "docs", "shopify-functions.md"))
	require.NoError(t, err)
	src, err := filepath.Abs(filepath.Join("..", "..", "fixtures", "shopify", "app", "extensions", "discount-function"))
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "discount-function")
	require.NoError(t, os.CopyFS(dir, os.DirFS(src)))
	require.NoError(t, os.Symlink(fixtures.NPMModules(t), filepath.Join(dir, "node_modules")))
	require.NoError(t, os.Symlink(fixtures.ProvidersDir(t), filepath.Join(dir, "providers")))
	t.Chdir(dir)
	for _, block := range docBlocks(t, page, "ts") {
		if name, ok := strings.CutPrefix(block, "// "); ok {
			name, _, _ = strings.Cut(name, ":")
			require.NoError(t, os.WriteFile(name, []byte(block), 0o644))
		}
	}
	// Production's run of one target, as Shopify CLI logs it.
	input, err := os.ReadFile(filepath.Join("inputs", "cart-lines-discounts-generate-run.json"))
	require.NoError(t, err)
	log, err := json.Marshal(map[string]any{"shopId": 1, "apiClientId": 1830457, "logType": "function_run", "status": "success",
		"source": "discount-function", "sourceNamespace": "extensions", "logTimestamp": "2026-11-28T10:00:00Z",
		"payload": map[string]any{"export": "cart-lines-discounts-generate-run", "input": json.RawMessage(input), "inputBytes": len(input),
			"output": map[string]any{}, "outputBytes": 2, "logs": []string{}, "functionId": "e57b4d31", "fuelConsumed": 392523,
			"target": "cart.lines.discounts.generate.run"}})
	require.NoError(t, err)

	commands := docCommands(t, page)
	ran, skipped := 0, 0
	for _, c := range commands {
		if c == "shopify app function build" {
			// Shopify CLI's build is the doc's section 4: its esbuild and
			// jsprof build commands, run here first.
			for _, b := range commands {
				if strings.HasPrefix(b, "npx esbuild entry.ts") || strings.HasPrefix(b, "jsprof build --dynamic") && strings.Contains(b, "--export") {
					runDocCommand(t, b)
				}
			}
			continue
		}
		if i := slices.IndexFunc(notHere, func(n struct{ prefix, why string }) bool { return strings.HasPrefix(c, n.prefix) }); i >= 0 {
			t.Logf("not run: %s (%s)", c, notHere[i].why)
			if strings.HasPrefix(c, "mkdir runs") {
				require.NoError(t, os.MkdirAll("runs", 0o755))
				require.NoError(t, os.WriteFile(filepath.Join("runs", "20261128_100000_000Z_extensions_discount-function_a1b2c3.json"), log, 0o644))
			}
			skipped++
			continue
		}
		if strings.Contains(c, "base.pb.gz") {
			// CI keeps the base's profile: the same run, as main built it.
			runDocCommand(t, "jsprof run -q --plugin providers/ --input tests/fixtures/ -o base.pb.gz dist/function.wasm")
		}
		got := runDocCommand(t, c)
		switch {
		case c == "jsprof run --plugin providers/":
			assert.Contains(t, got.stderr, "jsprof: function discount-function: dist/function.wasm, 2 targets: cart-lines-discounts-generate-run, cart-delivery-options-discounts-generate-run; schema.graphql; fixtures in tests/fixtures\n")
			assert.Contains(t, got.stderr, "jsprof: tests/fixtures/cart-lines-discounts-generate-run.json: the output is the fixture's")
		case strings.Contains(c, "--input runs/"):
			assert.Contains(t, got.stderr, "production", "the log's count beside jsprof's")
		case strings.HasPrefix(c, "jsprof report --by function"):
			assert.Contains(t, got.stdout, "cartLinesDiscountsGenerateRun (src/cart_lines_discounts_generate_run.ts:", "the TypeScript, without --source")
		}
		assert.NotContains(t, got.stderr, "warning", c)
		ran++
	}
	assert.Equal(t, len(notHere), skipped, "each command left out is still in the doc")
	assert.Greater(t, ran, 12, "the doc's commands are read")
}

// runDocCommand runs one of the doc's commands in the current directory:
// npx esbuild (the pinned esbuild) or jsprof; it must succeed.
func runDocCommand(t *testing.T, c string) invocation {
	t.Helper()
	args := strings.Fields(c)
	switch {
	case len(args) > 2 && args[0] == "npx" && args[1] == "esbuild":
		out, err := exec.Command(fixtures.Esbuild(t), append(args[2:], "--log-level=warning")...).CombinedOutput()
		require.NoError(t, err, "%s: %s", c, out)
		return invocation{}
	case args[0] == "jsprof":
		if args[1] == "run" && !slices.Contains(args, "-o") {
			args = append(args[:2], append([]string{"-o", "jsprof.pb.gz"}, args[2:]...)...) // the default, which the test helper moves
		}
		got := jsprof(t, "", args[1:]...)
		require.Equal(t, 0, got.code, "%s: %s", c, got.stderr)
		return got
	}
	t.Fatalf("the doc's command %q is neither run here nor listed in notHere", c)
	return invocation{}
}
