// Package costfmt writes costs for people, alike in every view of
// jsprof's (packages report, diff and htmlview): counts scaled for
// reading, shares and changes in percent, the exact numbers of CSV and
// its rows (WriteCSV, CSVRow), the aligned columns of text tables, the
// engine's label (from a profile's jsprofile.EngineInfo, the one type of
// the profile format it reads). It computes nothing from profiles or
// their tables: whatever reads one computes with them.
package costfmt
