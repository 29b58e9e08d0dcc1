// Package link finds what a module links, by its own imports (Link):
// nothing (a static Javy module), a Javy plugin (a dynamic module), or a
// Shopify Functions provider with its I/O, among the --plugin files and
// folders of providers (function-runner's providers/ layout); and reads
// the module and plugin files it is given (ReadModule, LoadPlugin), each
// --plugin path checked first, whatever the module links (CheckPlugins).
//
// It owns which file answers which import, and refuses a module that
// imports jsprof's own instrumentation names. How a plugin is run
// belongs to internal/run/runner, a provider's I/O to
// internal/run/shopify, a plugin's sections to internal/run/javy.
package link
