// Package htmlview writes jsprof's self-contained HTML pages (jsprof report
// --html, jsprof diff --html, jsprof compare --html): a report's
// (WriteReport: the tables of a report.Report, the flame graph of the
// profile's stacks, the JS source annotated line by line, from the files
// it is given, which package javy found, and with jsprof run
// --input-cost a section of what each field of each input costs to
// decode) and a diff's (WriteDiff: a
// diff.Diff's tables, and both runs' flame graphs side by side, coloured
// by change). The pages load nothing: their style, script and data are
// inline.
//
// It shows what packages report and diff computed and must not compute
// the tables' costs itself, nor be imported by them: its flame graphs
// merge the profiles' stacks (read with report.StackReader) into trees to
// draw, which no text view has. Nor does it read files or modules to find
// a source: MatchSources and UnmatchedSources only pair the files given
// with the profile's.
package htmlview
