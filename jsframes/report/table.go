package report

import (
	"fmt"
	"strings"
)

// writeRows aligns columns: the first left, the others right. It is the
// table of every text report (cost.go, report.go, diff.go).
func writeRows(b *strings.Builder, rows [][]string) {
	writeAligned(b, rows, func(col int) bool { return col == 0 }, false)
}

// writeTable is writeRows without trailing spaces.
func writeTable(b *strings.Builder, rows [][]string) {
	writeAligned(b, rows, func(col int) bool { return col == 0 }, true)
}

// countNoun reads "1 call", "21.9k calls".
func countNoun(n uint64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Human(n) + " " + many
}

// writeAligned aligns columns, left where left(col), right elsewhere,
// separated by two spaces. With trim, trailing spaces are cut from every
// line (tables whose last column is left-aligned or often empty).
func writeAligned(b *strings.Builder, rows [][]string, left func(col int) bool, trim bool) {
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

// humanSigned is Human with a sign: +12.3k, -4.56M, 0.
// CSV and JSON carry the plain integers.
func humanSigned(d int64) string {
	switch {
	case d > 0:
		return "+" + Human(uint64(d))
	case d < 0:
		return "-" + Human(uint64(-d))
	}
	return "0"
}

// percent formats part/whole as 12.3%, "-" when whole is 0.
func percent(part, whole float64) string {
	if whole == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*part/whole)
}

// signedPercent formats a relative change, +12.3% / -4.5%, "new" when the
// base is 0.
func signedPercent(base, new float64) string {
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
