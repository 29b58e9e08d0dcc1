package extension

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/fileio"
	"github.com/jsprof/jsprof/internal/printable"
)

// TOMLName is the extension's configuration file, as Shopify CLI names it.
const TOMLName = "shopify.extension.toml"

// SchemaName is the function API's schema beside the toml (shopify app
// function typegen writes it; function-runner's --schema-path).
const SchemaName = "schema.graphql"

// defaultModule is where Shopify CLI writes a function's module when the
// toml's [extensions.build] gives no path.
const defaultModule = "dist/index.wasm"

// fixturesDir is where shopify app function generate-fixture writes.
const fixturesDir = "tests/fixtures"

// maxTOMLBytes bounds the toml: a function's is a few hundred bytes.
const maxTOMLBytes = 1 << 20

// Target is one of the function's targets: what Shopify runs it for.
type Target struct {
	// Name is the target, as Shopify names it
	// (cart.lines.discounts.generate.run).
	Name string
	// Export is the module's export that runs it (kebab-case,
	// cart-lines-discounts-generate-run); "" when the toml names none:
	// the module's own entry (_start).
	Export string
	// InputQuery is the path of the target's input query ("" when none).
	InputQuery string
}

// Extension is a function's extension folder, as Shopify CLI reads it.
type Extension struct {
	Dir    string // the folder holding the toml
	Handle string
	Type   string
	// Module is the path of the built module ([extensions.build] path,
	// else dist/index.wasm), whether or not it exists yet.
	Module string
	// Schema is the path of schema.graphql; "" when there is none.
	Schema  string
	Targets []Target
	// Fixtures is the folder of Shopify CLI's test fixtures; "" when none.
	Fixtures string
	// Entry is the JS function's entry (src/index.js or .ts); "" for a
	// function in another language.
	Entry string
	// Provider is the provider a JS function is built with.
	Provider Provider
}

// tomlFile is the part of shopify.extension.toml jsprof reads: the
// unified form ([[extensions]]) and the older flat one (the same fields
// at the top).
type tomlFile struct {
	tomlExtension
	Extensions []tomlExtension `toml:"extensions"`
}

type tomlExtension struct {
	Name      string `toml:"name"`
	Handle    string `toml:"handle"`
	Type      string `toml:"type"`
	Targeting []struct {
		Target     string `toml:"target"`
		InputQuery string `toml:"input_query"`
		Export     string `toml:"export"`
	} `toml:"targeting"`
	Build struct {
		Path string `toml:"path"`
	} `toml:"build"`
}

// ErrNoExtension: the folder holds no shopify.extension.toml.
var ErrNoExtension = errors.New("no " + TOMLName)

// Load reads the extension folder dir.
func Load(dir string) (*Extension, error) {
	tomlPath := filepath.Join(dir, TOMLName)
	data, err := fileio.ReadRegular(tomlPath, maxTOMLBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", dir, ErrNoExtension)
	}
	if err != nil {
		return nil, err
	}
	return parse(dir, tomlPath, data)
}

// parse reads the toml's data; dir is the extension's folder.
func parse(dir, tomlPath string, data []byte) (*Extension, error) {
	var f tomlFile
	if _, err := toml.Decode(string(data), &f); err != nil {
		return nil, fmt.Errorf("%s: %s", tomlPath, printable.String(cli.FirstLine(err.Error())))
	}
	te := f.tomlExtension
	if len(f.Extensions) > 0 {
		functions := 0
		for _, e := range f.Extensions {
			if e.Type == "function" || len(e.Targeting) > 0 && e.Build.Path != "" {
				te = e
				functions++
			}
		}
		if functions != 1 {
			te = f.Extensions[0]
		}
	}
	if te.Type != "" && te.Type != "function" {
		return nil, fmt.Errorf("%s: the extension is a %s, not a function", tomlPath, printable.Name(te.Type))
	}
	e := &Extension{Dir: dir, Handle: te.Handle, Type: te.Type}
	if e.Handle == "" {
		e.Handle = te.Name
	}
	modulePath := te.Build.Path
	if modulePath == "" {
		modulePath = defaultModule
	}
	var err error
	if e.Module, err = inside(dir, modulePath, tomlPath, "[extensions.build] path"); err != nil {
		return nil, err
	}
	for i, t := range te.Targeting {
		target := Target{Name: t.Target, Export: t.Export}
		if t.InputQuery != "" {
			field := fmt.Sprintf("targeting[%d].input_query", i)
			if target.InputQuery, err = inside(dir, t.InputQuery, tomlPath, field); err != nil {
				return nil, err
			}
		}
		if !validExport(target.Export) {
			return nil, fmt.Errorf("%s: targeting[%d].export %s is not a Wasm export name Shopify CLI writes (lower-case letters, digits and '-')", tomlPath, i, printable.Name(target.Export))
		}
		e.Targets = append(e.Targets, target)
	}
	if _, err := os.Stat(filepath.Join(dir, SchemaName)); err == nil {
		e.Schema = filepath.Join(dir, SchemaName)
	}
	if st, err := os.Stat(filepath.Join(dir, fixturesDir)); err == nil && st.IsDir() {
		e.Fixtures = filepath.Join(dir, fixturesDir)
	}
	for _, entry := range []string{"src/index.js", "src/index.ts"} {
		if _, err := os.Stat(filepath.Join(dir, entry)); err == nil {
			e.Entry = filepath.Join(dir, entry)
			break
		}
	}
	if e.Entry != "" {
		e.Provider = findProvider(dir)
	}
	return e, nil
}

// inside is path (relative to dir, as the toml names it) joined to dir,
// refused when it leaves dir: a folder from anyone must not make jsprof
// read elsewhere.
func inside(dir, path, tomlPath, field string) (string, error) {
	rel := filepath.FromSlash(strings.TrimPrefix(path, "./"))
	if !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%s: %s %s leaves the extension's folder", tomlPath, field, printable.Name(path))
	}
	return filepath.Join(dir, rel), nil
}

// validExport: a name Shopify CLI writes as a Wasm export, and nothing a
// terminal could take for a control sequence.
func validExport(name string) bool {
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// Find is the extension folder at path: path itself when it holds a
// shopify.extension.toml; an app's root folder with exactly one function
// extension under extensions/ (more than one: an error naming them).
// ErrNoExtension when path is neither.
func Find(path string) (*Extension, error) {
	e, err := Load(path)
	if !errors.Is(err, ErrNoExtension) {
		return e, err
	}
	tomls, _ := filepath.Glob(filepath.Join(path, "extensions", "*", TOMLName))
	var found []*Extension
	var handles []string
	for _, t := range tomls {
		e, err := Load(filepath.Dir(t))
		if err != nil || e.Type != "function" && len(e.Targets) == 0 {
			continue // another kind of extension, or one jsprof cannot read
		}
		found = append(found, e)
		handles = append(handles, filepath.Base(e.Dir))
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("%s: %w (and no function under extensions/)", path, ErrNoExtension)
	case 1:
		return found[0], nil
	}
	return nil, fmt.Errorf("%s: the app has %d functions (%s); give one's folder, e.g. jsprof run %s", path, len(found), printable.Name(strings.Join(handles, ", ")), filepath.Join(path, "extensions", handles[0]))
}

// Target is the target with export name ("" when the extension has
// one target: that one).
func (e *Extension) Target(export string) (Target, bool) {
	for _, t := range e.Targets {
		if t.Export == export {
			return t, true
		}
	}
	return Target{}, false
}

// Describe says in one line what was found, for the command to print.
func (e *Extension) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "function %s: %s", printable.Name(e.Handle), printable.Name(rel(e.Dir, e.Module)))
	var names []string
	for _, t := range e.Targets {
		if t.Export != "" {
			names = append(names, printable.Name(t.Export))
		} else {
			names = append(names, printable.Name(t.Name)+" (_start)")
		}
	}
	switch len(names) {
	case 0:
	case 1:
		fmt.Fprintf(&b, ", 1 target: %s", names[0])
	default:
		fmt.Fprintf(&b, ", %d targets: %s", len(names), strings.Join(names, ", "))
	}
	switch {
	case e.Provider.Given:
	case e.Provider.Path != "":
		fmt.Fprintf(&b, "; provider %s", printable.Name(e.Provider.Path))
	case e.Provider.Name != "":
		fmt.Fprintf(&b, "; provider %s not found", e.Provider.Name)
	}
	if e.Schema != "" {
		fmt.Fprintf(&b, "; %s", SchemaName)
	}
	if e.Fixtures != "" {
		fmt.Fprintf(&b, "; fixtures in %s", fixturesDir)
	}
	return b.String()
}

// NotBuilt is the one-line error for a function whose module is not
// there yet, naming how to build it.
func (e *Extension) NotBuilt() error {
	hint := "build it with 'shopify app function build'"
	if e.Entry != "" && e.Provider.Name != "" {
		var exports string
		for _, t := range e.Targets {
			if t.Export != "" {
				exports += " --export " + t.Export
			}
		}
		hint += fmt.Sprintf(", or bundle %s with esbuild and 'jsprof build --dynamic --plugin %s.wasm%s BUNDLE.js -o %s'", printable.Name(rel(e.Dir, e.Entry)), e.Provider.Name, exports, printable.Name(rel(e.Dir, e.Module)))
	}
	return fmt.Errorf("function %s is not built: %s does not exist; %s", printable.Name(e.Handle), printable.Name(e.Module), hint)
}

// rel is path relative to dir when it is inside it.
func rel(dir, path string) string {
	if r, err := filepath.Rel(dir, path); err == nil && filepath.IsLocal(r) {
		return filepath.ToSlash(r)
	}
	return path
}
