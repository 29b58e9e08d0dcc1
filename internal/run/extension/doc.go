// Package extension reads a Shopify Function's extension folder as
// Shopify CLI lays it out and reads it (Load, Find): shopify.extension.toml
// (the function's targets, each with its Wasm export and input query; the
// built module's path, [extensions.build] path or dist/index.wasm), the
// schema beside it (schema.graphql), the fixtures Shopify CLI writes
// (tests/fixtures), and the provider Shopify CLI builds JS functions
// with: the major version of the @shopify/shopify_function package the
// folder uses chooses it (0 or 1: shopify_functions_javy_v1; 2:
// shopify_functions_javy_v4), and Shopify CLI keeps it in its package's
// bin folder (node_modules/@shopify/cli/bin), found up from the folder.
//
// The toml and package.json are the user's own files, but a folder may
// come from anyone: every file is read as a regular file, bounded, and a
// path the toml names must stay inside the extension folder.
//
// It owns where Shopify CLI keeps each of these files and what the
// toml's fields mean. It does not read the module, the schema or the
// query (internal/run/link, the scale-limit analysis), nor run anything.
package extension
