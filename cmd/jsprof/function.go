package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/jsprof/jsprof/internal/runner"
	"github.com/jsprof/jsprof/internal/shopify"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/jsframes/report"
	"github.com/jsprof/jsprof/wasmcore"
)

// Cost models of --cost.
const (
	costFuel = jsprofile.CostFuel
	costAll  = jsprofile.CostAll
)

func parseCost(s string) (wasmcore.CostModel, error) {
	switch s {
	case costFuel:
		return wasmcore.CostFuel, nil
	case costAll:
		return wasmcore.CostAll, nil
	}
	return 0, fmt.Errorf("--cost %q: want %s or %s", s, costFuel, costAll)
}

// prepareFunction sets a Shopify Function's run up as function-runner
// does: the JSON input (--input, else stdin) encoded with the provider's
// codec, or override (--codec) and handed over the provider's way.
func prepareFunction(o *runner.Options, r shopify.Resolved, override *shopify.Codec, inputPath string, io stdio) (*shopify.Run, error) {
	codec := r.Codec
	if override != nil {
		codec = *override
	}
	what := "stdin"
	var raw []byte
	var err error
	if inputPath != "" {
		what = inputPath
		raw, err = os.ReadFile(inputPath)
	} else {
		raw, err = readAll(io.in)
	}
	if err != nil {
		return nil, fmt.Errorf("--input: %w", err)
	}
	input, err := codec.EncodeInput(raw)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", what, err)
	}
	return shopify.Configure(o, r, codec, input), nil
}

func readAll(r io.Reader) ([]byte, error) {
	if r == nil {
		return nil, nil
	}
	return io.ReadAll(r)
}

// writeFunctionOutput prints a function's output as JSON on stdout (raw
// bytes with the raw codec, or when it does not decode) and its logs on
// stderr, as function-runner shows them.
func writeFunctionOutput(out shopify.Output, outErr error, codec shopify.Codec, res runner.Result, io stdio) error {
	if len(out.Logs) > 0 {
		io.err.Write(out.Logs)
		if out.Logs[len(out.Logs)-1] != '\n' {
			fmt.Fprintln(io.err)
		}
	}
	if outErr != nil {
		if res.Trap != nil || res.ExitCode != 0 {
			return nil // the trap says why
		}
		return fmt.Errorf("the function's output: %w", outErr)
	}
	if len(out.Output) == 0 {
		if res.Trap != nil || res.ExitCode != 0 {
			return nil
		}
		return fmt.Errorf("the function's output: %w", shopify.ErrNoOutput)
	}
	decoded, err := codec.DecodeOutput(out.Output)
	if errors.Is(err, shopify.ErrRawOutput) {
		_, werr := io.out.Write(out.Output)
		return werr
	}
	if err != nil {
		io.out.Write(out.Output)
		return fmt.Errorf("the function's output does not decode as %s: %w", codec, err)
	}
	_, err = fmt.Fprintf(io.out, "%s\n", decoded)
	return err
}

// writeFunctionSummary prints what function-runner's benchmark results
// say, against Shopify's limits, on stderr: the export call's instructions
// (when counted), linear memory, input and output sizes.
func writeFunctionSummary(io stdio, instructions uint64, costModel string, info jsprofile.RunInfo, uncounted string) {
	over := func(n, limit uint64) string {
		if n > limit {
			return " — OVER THE LIMIT"
		}
		return ""
	}
	counted := "not counted (" + uncounted + ")"
	if costModel != "" {
		counted = fmt.Sprintf("%s (%s) of %s%s", report.Human(instructions), costModel, report.Human(shopify.InstructionLimit), over(instructions, shopify.InstructionLimit))
	}
	fmt.Fprintf(io.err, "jsprof: %s (%s, %s): instructions %s; linear memory %s; input %s of %s%s; output %s of %s%s\n",
		info.Export, info.Provider, info.Codec, counted, bytesHuman(info.MemoryBytes),
		bytesHuman(info.InputBytes), bytesHuman(shopify.InputLimit), over(info.InputBytes, shopify.InputLimit),
		bytesHuman(info.OutputBytes), bytesHuman(shopify.OutputLimit), over(info.OutputBytes, shopify.OutputLimit))
	if info.StartupInstructions > 0 || info.FinishInstructions > 0 {
		fmt.Fprintf(io.err, "jsprof: not counted, as function-runner does not: %s instructions before the call (engine start-up, input), %s after (output)\n",
			report.Human(info.StartupInstructions), report.Human(info.FinishInstructions))
	}
}

// bytesHuman reads 1.2 kB, 131 kB, 3.1 MB (decimal units, as
// function-runner's).
func bytesHuman(n uint64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1_000:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}
