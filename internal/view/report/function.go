package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jsprof/jsprof/internal/printable"
	"github.com/jsprof/jsprof/internal/run/shopify"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// WriteFunctionSummary prints, on w (stderr), what function-runner's
// "Benchmark Results" say, in its wording and units, on one line: the
// export call's instructions (when counted), linear memory, input and
// output sizes, each against its limit (info.Limits, scaled by
// @scaleLimits: "of 11M × 2.5 = 27.5M"; Shopify's when nil) and flagged
// when over it (mark, when not nil, dresses the flag: a terminal's
// colour); then what ran outside the call, which neither counts.
func WriteFunctionSummary(w io.Writer, instructions uint64, costModel string, info jsprofile.RunInfo, uncounted string, mark func(string) string) {
	l := info.Limits
	if l == nil {
		l = shopify.Limits(1, info.InputBytes, info.OutputBytes)
	}
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
		counted = fmt.Sprintf("%s (%s) of %s%s", HumanInstructions(instructions), costModel, instructionLimit(l), over(instructions, l.Instructions))
	}
	provider := info.Provider
	if provider == "" {
		provider = "no provider"
	}
	fmt.Fprintf(w, "jsprof: %s (%s, %s): Instructions: %s; Linear Memory Usage: %dKB; Input Size: %s of %s%s; Output Size: %s of %s%s\n",
		printable.String(info.Export), printable.String(provider), info.Codec, counted, info.MemoryBytes/1024,
		HumanSize(info.InputBytes), scaledLimit(HumanSize, shopify.InputLimit, l.InputBytes, l), over(info.InputBytes, l.InputBytes),
		HumanSize(info.OutputBytes), scaledLimit(HumanSize, shopify.OutputLimit, l.OutputBytes, l), over(info.OutputBytes, l.OutputBytes))
	if info.StartupInstructions > 0 || info.FinishInstructions > 0 {
		fmt.Fprintf(w, "jsprof: not counted, as function-runner does not: %s instructions before the call (provider set-up, input), %s after it (output)\n",
			HumanInstructions(info.StartupInstructions), HumanInstructions(info.FinishInstructions))
	}
}

// scaledLimit words a limit of l, worded by human: Shopify's (base), or
// when l is scaled, base × the factor = the limit: "11M × 2.5 = 27.5M".
func scaledLimit(human func(uint64) string, base, limit uint64, l *jsprofile.Limits) string {
	if !l.Scaled() {
		return human(limit)
	}
	return fmt.Sprintf("%s × %s = %s", human(base), strconv.FormatFloat(l.ScaleFactor, 'g', 4, 64), human(limit))
}

// instructionLimit words l's instruction limit (scaledLimit).
func instructionLimit(l *jsprofile.Limits) string {
	return scaledLimit(HumanInstructions, shopify.InstructionLimit, l.Instructions, l)
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
		over = append(over, fmt.Sprintf("Instructions %s of %s", HumanInstructions(instructions), instructionLimit(l)))
	}
	if l.InputOver {
		over = append(over, fmt.Sprintf("Input Size %s of %s", HumanSize(info.InputBytes), scaledLimit(HumanSize, shopify.InputLimit, l.InputBytes, l)))
	}
	if l.OutputOver {
		over = append(over, fmt.Sprintf("Output Size %s of %s", HumanSize(info.OutputBytes), scaledLimit(HumanSize, shopify.OutputLimit, l.OutputBytes, l)))
	}
	if len(over) == 0 {
		return ""
	}
	return "over the limit: " + strings.Join(over, "; ")
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

// WriteInputsTable writes, on w (stderr), one row per input, the most
// instructions first: the instructions against function-runner's limit
// (a function's) and their share of it, memory, the input's and
// output's sizes, the limits it went over (dressed by mark, when not
// nil) and its exit code. When an input's limits are scaled
// (@scaleLimits), the share is of each input's own limit, worded in a
// column of its own ("11M × 2.5 = 27.5M"). An input jsprof could not run
// shows why.
func WriteInputsTable(w io.Writer, facts []InputRun, mark func(string) string) {
	rows := slices.Clone(facts)
	slices.SortStableFunc(rows, func(a, b InputRun) int { return cmp.Compare(b.TotalWasmInstructions, a.TotalWasmInstructions) })
	width := len("input")
	limits, share, limitWidth := make([]*jsprofile.Limits, len(rows)), "of 11M", 0
	for i := range rows {
		// File names found in a folder: made safe for the terminal.
		rows[i].Input, rows[i].Error = printable.Name(rows[i].Input), printable.String(rows[i].Error)
		width = max(width, len(rows[i].Input))
		if limits[i] = rows[i].Limits; limits[i] == nil {
			limits[i] = shopify.Limits(1, 0, 0)
		}
		if limits[i].Scaled() {
			share, limitWidth = "of limit", max(limitWidth, len("limit"), utf8.RuneCountInString(instructionLimit(limits[i])))
		}
	}
	limitColumn := func(s string) string {
		if limitWidth == 0 {
			return ""
		}
		return s + strings.Repeat(" ", limitWidth-utf8.RuneCountInString(s)) + "  "
	}
	// A production column when a run log said production's count.
	prodHead, prodCell := "", func(InputRun) string { return "" }
	if slices.ContainsFunc(rows, func(r InputRun) bool { return r.Production > 0 }) {
		prodHead, prodCell = fmt.Sprintf("  %12s", "production"), func(r InputRun) string {
			if r.Production == 0 {
				return fmt.Sprintf("  %12s", "-")
			}
			return fmt.Sprintf("  %12s", HumanInstructions(r.Production))
		}
	}
	costliest := slices.ContainsFunc(rows, func(r InputRun) bool { return r.CostliestPath != "" })
	head := "over the limit"
	if costliest {
		head = fmt.Sprintf("%-14s  %s", head, "costliest path the output did not need here (decoding it saves)")
	}
	fmt.Fprintf(w, "%-*s  %12s  %*s%s  %s%8s  %9s  %9s  %4s  %s\n", width, "input", "instructions", max(7, len(share)), share, prodHead, limitColumn("limit"), "memory", "input", "output", "exit", head)
	for i, r := range rows {
		if r.Error != "" {
			fmt.Fprintf(w, "%-*s  %s\n", width, r.Input, r.Error)
			continue
		}
		var over []string
		if l := r.Limits; l != nil {
			for _, o := range []struct {
				over bool
				what string
			}{{l.InstructionsOver, "instructions"}, {l.InputOver, "input"}, {l.OutputOver, "output"}} {
				if o.over {
					over = append(over, o.what)
				}
			}
		}
		flags := strings.Join(over, ", ")
		if flags != "" && mark != nil {
			flags = mark(flags)
		}
		if costliest {
			flags = fmt.Sprintf("%-14s  %s", flags, printable.String(r.CostliestPath))
			if r.CostliestPath != "" {
				flags += " (" + HumanSaving(r.CostliestSaved) + ")"
			}
		}
		pct := float64(r.TotalWasmInstructions) / float64(limits[i].Instructions) * 100
		fmt.Fprintf(w, "%-*s  %12s  %*.1f%%%s  %s%6dKB  %9s  %9s  %4d  %s\n", width, r.Input, HumanInstructions(r.TotalWasmInstructions), max(7, len(share))-1, pct,
			prodCell(r), limitColumn(instructionLimit(limits[i])), r.MemoryBytes/1024, HumanSize(r.InputBytes), HumanSize(r.OutputBytes), r.ExitCode, flags)
	}
}

// InputOverLimit is OverLimit for one input's run.
func InputOverLimit(f InputRun) string {
	return OverLimit(f.TotalWasmInstructions, jsprofile.RunInfo{Limits: f.Limits, InputBytes: f.InputBytes, OutputBytes: f.OutputBytes})
}
