package jsprofile

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// JSName is what a JS function's system_name carries:
//
//	js:NAME@0xADDR[/col=C][/gen=LINE:COL][/lines=O>G,…][/part=N]
//
// NAME and ADDR name the function and its bytecode; col is its first
// column (where its name can be found, for a source map). When a source
// map has named the function's positions after the original files (the
// function's filename and lines are then the original ones), gen is its
// first line and column in the generated file (the bundle, named by the
// jsprof.source_map.generated_file comment), lines gives the first
// generated line of each original line of it, and part tells apart the
// pprof functions of one JS function whose lines are in several original
// files (a bundle's module code).
type JSName struct {
	Name    string
	Address uint64
	Column  int // first column, 0 when unknown
	// Generated is where the function began in the generated file; nil
	// when no source map moved it.
	Generated *GeneratedPos
	// Lines maps an original line to its first generated line.
	Lines map[int64]int64
	Part  int
}

// GeneratedPos is a position in the generated file.
type GeneratedPos struct{ Line, Column int }

// jsNameRE splits a JS system_name at its address and the optional
// fields after it.
var jsNameRE = regexp.MustCompile(`^js:(.*)@0x([0-9a-f]+)(?:/col=(\d+))?(?:/gen=(\d+):(\d+))?(?:/lines=([0-9>,]*))?(?:/part=(\d+))?$`)

// ParseJSName reads a JS function's system_name; false when it is not
// one jsprof writes.
func ParseJSName(systemName string) (JSName, bool) {
	m := jsNameRE.FindStringSubmatch(systemName)
	if m == nil {
		return JSName{}, false
	}
	n := JSName{Name: m[1]}
	var err error
	if n.Address, err = strconv.ParseUint(m[2], 16, 64); err != nil {
		return JSName{}, false
	}
	atoi := func(s string) int {
		v, err := strconv.Atoi(s)
		if err != nil {
			return 0
		}
		return v
	}
	n.Column = atoi(m[3])
	if m[4] != "" {
		n.Generated = &GeneratedPos{Line: atoi(m[4]), Column: atoi(m[5])}
	}
	if m[6] != "" {
		n.Lines = map[int64]int64{}
		for _, pair := range strings.Split(m[6], ",") {
			o, g, ok := strings.Cut(pair, ">")
			ov, err1 := strconv.ParseInt(o, 10, 64)
			gv, err2 := strconv.ParseInt(g, 10, 64)
			if ok && err1 == nil && err2 == nil {
				n.Lines[ov] = gv
			}
		}
	}
	n.Part = atoi(m[7])
	return n, true
}

// MapNamed says, without parsing it, whether a JS system_name is a
// source-mapped function's (it has /gen=).
func MapNamed(systemName string) bool { return strings.Contains(systemName, "/gen=") }

// Whole is the system_name of the JS function a part belongs to: the
// name without the fields a source map split it by (lines, part), the
// same for every part of one JS function.
func (n JSName) Whole() string {
	n.Lines, n.Part = nil, 0
	return n.String()
}

// String is the system_name.
func (n JSName) String() string {
	b := make([]byte, 0, len(n.Name)+24)
	b = append(append(append(b, KindJS.prefix()...), n.Name...), "@0x"...)
	b = strconv.AppendUint(b, n.Address, 16)
	if n.Column > 0 {
		b = strconv.AppendInt(append(b, "/col="...), int64(n.Column), 10)
	}
	if n.Generated != nil {
		b = strconv.AppendInt(append(b, "/gen="...), int64(n.Generated.Line), 10)
		b = strconv.AppendInt(append(b, ':'), int64(n.Generated.Column), 10)
	}
	if len(n.Lines) > 0 {
		keys := make([]int64, 0, len(n.Lines))
		for k := range n.Lines {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
		b = append(b, "/lines="...)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, k, 10)
			b = strconv.AppendInt(append(b, '>'), n.Lines[k], 10)
		}
	}
	if n.Part > 0 {
		b = strconv.AppendInt(append(b, "/part="...), int64(n.Part), 10)
	}
	return string(b)
}
