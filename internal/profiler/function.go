package profiler

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/jsprof/jsprof/internal/printable"
	"github.com/jsprof/jsprof/internal/run/link"
	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/internal/run/shopify"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/wasmcore"
)

// functionIO decides whether a run uses function-runner's I/O
// (docs/running.md): a module importing a Shopify Functions provider
// (shopify_functions_javy_vN, shopify_function_vN, the shopify_v1 host
// ABI) does, and so does any module given --input or --codec (explicit);
// a static build of an in-memory provider runs through its own initialize
// and finalize exports. It returns the run's provider, or nil: then the
// guest's stdin and stdout are jsprof's, as under wasmtime run, and a
// javy_quickjs_provider_vN a module imports is linked as wasmtime run
// --preload links it (changing linked.Plugin).
func functionIO(main *wasmcore.Module, linked *link.Linking, explicit bool) *shopify.Resolved {
	switch {
	case linked.Provider != nil && (linked.Provider.Family != shopify.JavyQuickJS || explicit):
		return linked.Provider
	case linked.Provider != nil:
		linked.Plugin = linked.Provider.Plugin()
		return nil
	case main != nil && shopify.SelfProvided(main):
		r := shopify.SelfProvidedRun()
		return &r
	case explicit:
		// function-runner runs a module that imports no provider over
		// WASI, its input in JSON.
		return &shopify.Resolved{Provider: shopify.Provider{Codec: shopify.JSON, IO: shopify.WASI}}
	}
	return nil
}

// prepareFunction sets a Shopify Function's run up as function-runner
// does: the JSON input (the file inputPath, else o.Stdin) encoded with the
// provider's codec, or override, and handed over the provider's way.
func prepareFunction(o *runner.Options, r shopify.Resolved, override *shopify.Codec, inputPath string) (*shopify.Run, error) {
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
		raw, err = readAll(o.Stdin)
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
func writeFunctionOutput(out shopify.Output, outErr error, codec shopify.Codec, res runner.Result, stdout, stderr io.Writer) error {
	if len(out.Logs) > 0 {
		stderr.Write(out.Logs)
		if out.Logs[len(out.Logs)-1] != '\n' {
			fmt.Fprintln(stderr)
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
		_, werr := stdout.Write(out.Output)
		return werr
	}
	if err != nil {
		stdout.Write(out.Output)
		return fmt.Errorf("the function's output does not decode as %s: %w", codec, err)
	}
	_, err = fmt.Fprintf(stdout, "%s\n", decoded)
	return err
}

// WriteFunctionSummary prints, on w (stderr), what function-runner's
// "Benchmark Results" say, in its wording and units, on one line: the
// export call's instructions (when counted), linear memory, input and
// output sizes, each against Shopify's limit (before @scaleLimits) and
// flagged when over it (mark, when not nil, dresses the flag: a
// terminal's colour); then what ran outside the call, which neither
// counts.
func WriteFunctionSummary(w io.Writer, instructions uint64, costModel string, info jsprofile.RunInfo, uncounted string, mark func(string) string) {
	over := func(n, limit uint64) string {
		if n <= limit {
			return ""
		}
		if mark != nil {
			return " — " + mark(OverTheLimit)
		}
		return " — " + OverTheLimit
	}
	counted := "not counted (" + uncounted + ")"
	if costModel != "" {
		counted = fmt.Sprintf("%s (%s) of %s%s", HumanInstructions(instructions), costModel, HumanInstructions(shopify.InstructionLimit), over(instructions, shopify.InstructionLimit))
	}
	provider := info.Provider
	if provider == "" {
		provider = "no provider"
	}
	fmt.Fprintf(w, "jsprof: %s (%s, %s): Instructions: %s; Linear Memory Usage: %dKB; Input Size: %s of %s%s; Output Size: %s of %s%s\n",
		printable.String(info.Export), printable.String(provider), info.Codec, counted, info.MemoryBytes/1024,
		HumanSize(info.InputBytes), HumanSize(shopify.InputLimit), over(info.InputBytes, shopify.InputLimit),
		HumanSize(info.OutputBytes), HumanSize(shopify.OutputLimit), over(info.OutputBytes, shopify.OutputLimit))
	if info.StartupInstructions > 0 || info.FinishInstructions > 0 {
		fmt.Fprintf(w, "jsprof: not counted, as function-runner does not: %s instructions before the call (provider set-up, input), %s after it (output)\n",
			HumanInstructions(info.StartupInstructions), HumanInstructions(info.FinishInstructions))
	}
}

// OverTheLimit flags a value over its limit, as function-runner does.
const OverTheLimit = "OVER THE LIMIT"

// OverLimit says which of function-runner's limits a run went over, in
// the summary's words and units, or "".
func OverLimit(instructions uint64, info jsprofile.RunInfo) string {
	l := info.Limits
	if l == nil {
		return ""
	}
	var over []string
	if l.InstructionsOver {
		over = append(over, fmt.Sprintf("Instructions %s of %s", HumanInstructions(instructions), HumanInstructions(l.Instructions)))
	}
	if l.InputOver {
		over = append(over, fmt.Sprintf("Input Size %s of %s", HumanSize(info.InputBytes), HumanSize(l.InputBytes)))
	}
	if l.OutputOver {
		over = append(over, fmt.Sprintf("Output Size %s of %s", HumanSize(info.OutputBytes), HumanSize(l.OutputBytes)))
	}
	if len(over) == 0 {
		return ""
	}
	return "over the limit: " + strings.Join(over, "; ")
}

// functionLimits are Shopify's limits for a run, with the input and output
// flags set; the profiler sets the instructions flag, knowing the count.
func functionLimits(inputBytes, outputBytes uint64) *jsprofile.Limits {
	return &jsprofile.Limits{
		Instructions: shopify.InstructionLimit, InputBytes: shopify.InputLimit, OutputBytes: shopify.OutputLimit,
		InputOver: inputBytes > shopify.InputLimit, OutputOver: outputBytes > shopify.OutputLimit,
	}
}

// HumanInstructions reads a count as function-runner's humanize_instructions
// does (function_run_result.rs): up to 999 as it is, then the count over
// 10^3, 10^6 or 10^9 as the shortest decimal that reads back as the same
// float (Rust's Display of an f64), with K, M or B: 999, 1K, 1.001K,
// 172.809K, 11M.
func HumanInstructions(n uint64) string {
	var unit string
	var div float64
	switch {
	case n < 1_000:
		return strconv.FormatUint(n, 10)
	case n < 1_000_000:
		unit, div = "K", 1e3
	case n < 1_000_000_000:
		unit, div = "M", 1e6
	default:
		unit, div = "B", 1e9
	}
	return strconv.FormatFloat(float64(n)/div, 'f', -1, 64) + unit
}

// HumanSize reads a size as function-runner's humanize_size does: bytes up
// to 1023, then binary kilo-, mega- and gigabytes with two decimals,
// rounded half to even as Rust's {:.2} rounds: 142B, 1.12KB, 125.00KB.
func HumanSize(n uint64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%dB", n)
	case n < 1<<20:
		return fmt.Sprintf("%.2fKB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.2fMB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.2fGB", float64(n)/(1<<30))
}
