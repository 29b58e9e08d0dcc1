package report

import "io"

// Format is the format of a view on a stream: text for a terminal, or CSV
// or JSON with exact counts.
type Format int

// The formats of Format.
const (
	FormatText Format = iota
	FormatCSV
	FormatJSON
)

// Write writes to w with the writer of f.
func (f Format) Write(w io.Writer, text, csv, json func(io.Writer) error) error {
	switch f {
	case FormatCSV:
		return csv(w)
	case FormatJSON:
		return json(w)
	}
	return text(w)
}
