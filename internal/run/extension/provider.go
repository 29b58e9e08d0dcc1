package extension

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jsprof/jsprof/internal/fileio"
)

// Provider is the provider Shopify CLI builds a JS function with.
type Provider struct {
	// Name is its namespace (shopify_functions_javy_v4); "" when the
	// folder's @shopify/shopify_function is not found or not known.
	Name string
	// Path is where Shopify CLI keeps it; "" when not found.
	Path string
	// Why says why Path is "".
	Why string
	// Given: the command line gives the provider (--plugin); Name still
	// says which Shopify CLI would build with.
	Given bool
}

// libraryPackage is the package.json of the Shopify Functions JavaScript
// library, whose major version chooses the provider (Shopify CLI's
// deriveJavaScriptBinaryDependencies).
const libraryPackage = "node_modules/@shopify/shopify_function/package.json"

// providerVersion is the provider's version for the library's major
// version; "" for one Shopify CLI does not build with.
func providerVersion(major string) string {
	switch major {
	case "0", "1":
		return "1"
	case "2":
		return "4"
	}
	return ""
}

// cliBins are the folders, under a node_modules, in which Shopify CLI
// downloads its binaries: the bundled CLI's bin/ (its chunks are in
// dist/, the binaries beside it), and the app package's when it is
// installed on its own.
func cliBins() []string { return []string{"@shopify/cli/bin", "@shopify/app/dist/cli/services/bin"} }

// maxPackageBytes bounds a package.json read.
const maxPackageBytes = 1 << 20

// findProvider finds the provider for the extension folder dir: the
// library's version found up from dir, then the provider file in Shopify
// CLI's bin folder, in a node_modules up from dir or a global one.
func findProvider(dir string) Provider {
	pkg := findUp(dir, filepath.FromSlash(libraryPackage))
	if pkg == "" {
		return Provider{Why: "the Shopify Functions JavaScript library (@shopify/shopify_function) is not installed: npm install, or give the provider with --plugin"}
	}
	data, err := fileio.ReadRegular(pkg, maxPackageBytes)
	if err != nil {
		return Provider{Why: err.Error()}
	}
	var p struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return Provider{Why: fmt.Sprintf("%s: %v", pkg, err)}
	}
	major, _, _ := strings.Cut(p.Version, ".")
	v := providerVersion(major)
	if v == "" {
		return Provider{Why: fmt.Sprintf("%s: version %.20q is not one Shopify CLI builds with; give the provider with --plugin", pkg, p.Version)}
	}
	name := "shopify_functions_javy_v" + v
	for _, bin := range cliBins() {
		rel := filepath.Join("node_modules", filepath.FromSlash(bin), name+".wasm")
		if path := findUp(dir, rel); path != "" {
			return Provider{Name: name, Path: path}
		}
	}
	for _, root := range globalModules() {
		for _, bin := range cliBins() {
			path := filepath.Join(root, filepath.FromSlash(bin), name+".wasm")
			if isFile(path) {
				return Provider{Name: name, Path: path}
			}
		}
	}
	return Provider{Name: name, Why: name + ".wasm is not where Shopify CLI keeps it (node_modules/@shopify/cli/bin; shopify app function build downloads it): give it with --plugin"}
}

// findUp is the first dir/rel, dir's parent/rel, …, that is a regular
// file; "" when none.
func findUp(dir, rel string) string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		if path := filepath.Join(dir, rel); isFile(path) {
			return path
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// globalModules are the folders npm installs global packages in: npm's
// prefix (NPM_CONFIG_PREFIX), then the usual ones of Linux, Homebrew and
// a user's own prefix.
func globalModules() []string {
	var roots []string
	if p := os.Getenv("NPM_CONFIG_PREFIX"); p != "" {
		roots = append(roots, filepath.Join(p, "lib", "node_modules"))
	}
	roots = append(roots, "/usr/local/lib/node_modules", "/usr/lib/node_modules", "/opt/homebrew/lib/node_modules")
	if home, err := os.UserHomeDir(); err == nil {
		roots = append(roots, filepath.Join(home, ".npm-global", "lib", "node_modules"))
	}
	return roots
}
