package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/printable"
	"github.com/jsprof/jsprof/wasmcore"
)

const analyzeSynopsis = `jsprof analyze [--json] module.wasm

Finds the QuickJS-style interpreter in a module: the dispatch function and its
br_table, how opcode bytes reach it, and which engine release it is; and tells
the module's Javy shape (static, dynamic, plugin, older Javy, none). A module
without an interpreter is no error: the report says why none was found.
The JSON schema is in docs/analyze.md.`

func cmdAnalyze(ctx context.Context, args []string, io stdio) int {
	fs := cli.NewFlagSet("analyze", analyzeSynopsis, io.err)
	asJSON := fs.Bool("json", false, "write one JSON object instead of the readable report")
	if code, done := cli.Parse(fs, args, io.out, io.err); done {
		return code
	}
	if fs.NArg() != 1 {
		return cli.BadCommandLine(io.err, fs, fmt.Sprintf("want one module, have %d", fs.NArg()))
	}
	path := fs.Arg(0)
	wasm, err := os.ReadFile(path)
	if err != nil {
		return fail(io, cli.ExitFailure, err)
	}
	m, err := wasmcore.Decode(wasm)
	if err != nil {
		return fail(io, cli.ExitFailure, fmt.Errorf("%s: %w", path, err))
	}
	report, err := dispatch.Analyze(ctx, m)
	if err != nil {
		return fail(io, cli.ExitFailure, fmt.Errorf("%s: %w", path, err))
	}
	if *asJSON {
		enc := json.NewEncoder(io.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(report); err != nil {
			return fail(io, cli.ExitFailure, err)
		}
		return 0
	}
	// The report quotes the module's names: each line is made printable.
	var text strings.Builder
	if err := report.WriteText(&text); err != nil {
		return fail(io, cli.ExitFailure, err)
	}
	if _, err := io.out.Write([]byte(printable.Lines(text.String()))); err != nil {
		return fail(io, cli.ExitFailure, err)
	}
	return 0
}
