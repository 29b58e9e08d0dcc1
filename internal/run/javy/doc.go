// Package javy produces the modules that `javy build` produces, from any Javy
// plugin and without the Javy CLI: dynamic modules that import the plugin,
// and static modules that carry a pre-initialized snapshot of the plugin
// (what Wizer does for Javy) with the program's bytecode embedded.
//
// It knows the plugin ABIs seen in published plugins: the
// newer one (initialize-runtime, cabi_realloc, compile-src, invoke with a
// has-name flag), the older one (initialize_runtime, canonical_abi_realloc,
// compile_src, invoke with a nullable name) and the oldest provider
// (javy_quickjs_provider_v2: no initialize export, eval_bytecode).
//
// BuildJS builds a program's JS with a plugin (Compile, then BuildStatic
// or BuildDynamic), as jsprof compare does; BuildFile also embeds the JS
// and its file's name (jsprof build). Either may add exports (exports.go:
// ExportsNamed, from kebab-case names such as a Shopify Function toml's
// targets' exports): Wasm exports that call the JS export of the
// camelCase name through the plugin's invoke, as Javy's codegen makes one
// per export of a `-C wit` world. A failure that is not the JS's own
// is a BuildError, a syntax error a CompileError; FileBuildError words
// jsprof build's.
//
// It owns the program's JS carried in a module: the javy_source section
// (EmbedSource, ReadSource) and jsprof.source (NameSource, SourceOf), in
// source.go; and finding a program's JS and source map where jsprof is
// not running it: in a module, beside it or beside a profile of it, or
// in the files given (find.go: ModuleSource, ReadSources,
// ProfileModuleSource, ModuleProgram, which the run checks its map
// against), and the map's use for a saved profile, the HTML source view
// and a build's compile error (mapped.go: MapSaved, ReportSources,
// CompileErrorAt). It reads and checks maps only through package
// sourcemap, and shows nothing: htmlview renders the files it finds.
//
// It edits modules only through wasmcore and runs them only through
// runner's sessions (calling their exports with wazero's api).
package javy
