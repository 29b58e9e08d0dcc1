package costfmt

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// UncertainMark follows an opcode name that is a guess, in text reports.
const UncertainMark = "?"

// WriteTable aligns columns, the first left, the others right, with no
// trailing spaces: the table of every text report.
func WriteTable(b *strings.Builder, rows [][]string) {
	WriteAligned(b, rows, func(col int) bool { return col == 0 }, true)
}

// CountNoun reads "1 call", "21.9k calls".
func CountNoun(n uint64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Human(n) + " " + many
}

// WriteAligned aligns columns, left where left(col), right elsewhere,
// separated by two spaces. With trim, trailing spaces are cut from every
// line (tables whose last column is left-aligned or often empty).
func WriteAligned(b *strings.Builder, rows [][]string, left func(col int) bool, trim bool) {
	if len(rows) == 0 {
		return
	}
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, cell := range row {
			widths[i] = max(widths[i], len([]rune(cell)))
		}
	}
	var line strings.Builder
	for _, row := range rows {
		line.Reset()
		for i, cell := range row {
			pad := strings.Repeat(" ", widths[i]-len([]rune(cell)))
			if i > 0 {
				line.WriteString("  ")
			}
			if left(i) {
				line.WriteString(cell + pad)
			} else {
				line.WriteString(pad + cell)
			}
		}
		s := line.String()
		if trim {
			s = strings.TrimRight(s, " ")
		}
		b.WriteString(s)
		b.WriteString("\n")
	}
}

// Human scales a count for reading: 999, 12.3k, 4.56M, 7.89G.
func Human(n uint64) string {
	switch {
	case n < 10_000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	case n < 1_000_000_000:
		return fmt.Sprintf("%.2fM", float64(n)/1e6)
	}
	return fmt.Sprintf("%.2fG", float64(n)/1e9)
}

// HumanSigned is Human with a sign: +12.3k, -4.56M, 0.
// CSV and JSON carry the plain integers.
func HumanSigned(d int64) string {
	switch {
	case d > 0:
		return "+" + Human(uint64(d))
	case d < 0:
		return "-" + Human(uint64(-d))
	}
	return "0"
}

// Percent formats part/whole as 12.3%, "-" when whole is 0.
func Percent(part, whole float64) string {
	if whole == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*part/whole)
}

// SignedPercent formats a relative change, +12.3% / -4.5%, "new" when the
// base is 0.
func SignedPercent(base, new float64) string {
	if base == 0 {
		if new == 0 {
			return "0.0%"
		}
		return "new"
	}
	d := 100 * (new - base) / base
	switch {
	case d >= 0.05:
		return fmt.Sprintf("+%.1f%%", d)
	case d <= -0.05:
		return fmt.Sprintf("-%.1f%%", -d)
	}
	return "0.0%"
}

// Share is n's fraction of total, 0 when total is.
func Share(n uint64, total float64) float64 {
	if total == 0 {
		return 0
	}
	return float64(n) / total
}

// PerExecution formats an opcode's instructions per execution, "-" when
// it never executed.
func PerExecution(executions uint64, perExecution float64) string {
	if executions == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", perExecution)
}

// ExactFloat formats a ratio with every digit it has, for CSV.
func ExactFloat(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// Uint writes n exactly, for CSV.
func Uint(n uint64) string { return strconv.FormatUint(n, 10) }

// Int writes n exactly, for CSV.
func Int(n int64) string { return strconv.FormatInt(n, 10) }

// WriteCSV writes rows to w as CSV, the form of every view's --csv.
func WriteCSV(w io.Writer, rows [][]string) error {
	return csv.NewWriter(w).WriteAll(rows)
}

// CSVRow lays out a row of a CSV with that header: kv's cell under each
// column of the header, empty where kv has none.
func CSVRow(header []string, kv map[string]string) []string {
	out := make([]string, len(header))
	for i, k := range header {
		out[i] = kv[k]
	}
	return out
}

// FirstN cuts a list to its first n rows; 0 keeps all. It returns how
// many it cut.
func FirstN[T any](rows []T, n int) ([]T, int) {
	if n <= 0 || len(rows) <= n {
		return rows, 0
	}
	return rows[:n], len(rows) - n
}

// EngineLabel reads like "quickjs-ng v0.10.0, v0.10.1".
func EngineLabel(e jsprofile.EngineInfo) string {
	family := e.Family
	if family == "" {
		family = "unknown"
	}
	if len(e.Releases) == 0 {
		return family
	}
	return family + " " + strings.Join(e.Releases, ", ")
}

// UncertainWhy says why an engine's opcode names may be guesses (what
// UncertainMark points to).
func UncertainWhy(e jsprofile.EngineInfo) string {
	if e.OpcodeNamesSource != "" {
		return "opcode names source: " + e.OpcodeNamesSource + "; the engine matches no release exactly"
	}
	return "the engine matches no release exactly"
}
