// Command gen writes dispatch/opcodetables.json, the project's own copy of the
// QuickJS opcode tables, from the shared research folder
// (quickjs-opcodes/*.json and INDEX.tsv). Run it from the module root:
//
//	go run ./dispatch/internal/gen -src ../shared/quickjs-opcodes -out dispatch/opcodetables.json
//
// The output is committed; nothing reads the shared folder at run time.
//
// Tables of the QuickJS-NG history that are byte-identical copies of a
// Bellard table (same header blob: commits from before the fork) are dropped:
// they are Bellard's and shipped in no QuickJS-NG release.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type srcOpcode struct {
	Name  string `json:"name"`
	Size  int    `json:"size"`
	NPop  int    `json:"n_pop"`
	NPush int    `json:"n_push"`
	Fmt   string `json:"fmt"`
	Cond  string `json:"cond"`
}

type srcTable struct {
	Engine          string      `json:"engine"`
	FirstCommit     string      `json:"first_commit"`
	FirstDate       string      `json:"first_date"`
	HeaderBlob      string      `json:"header_blob"`
	OpCount         int         `json:"op_count"`
	Formats         []string    `json:"formats"`
	Opcodes         []srcOpcode `json:"opcodes"`
	Temporary       []srcOpcode `json:"temporary_opcodes"`
	ShippedIn       []string    `json:"shipped_in"`
	OpcodeInfoOrder []string    `json:"opcode_info_order"`
}

// outTable is one line of the generated file. Records lists every
// opcode_info record in header order as [name, size, n_pop, n_push, fmt
// index, flags]; flags: "t" temporary (compiler-only) opcode, "b" under
// #ifdef CONFIG_BIGNUM.
type outTable struct {
	ID          string   `json:"id"`
	Engine      string   `json:"engine"`
	FirstDate   string   `json:"first_date"`
	FirstCommit string   `json:"first_commit"`
	HeaderBlob  string   `json:"header_blob"`
	OpCount     int      `json:"op_count"`
	ShippedIn   []string `json:"shipped_in"`
	Formats     []string `json:"formats"`
	Records     [][]any  `json:"records"`
}

func main() {
	src := flag.String("src", "../shared/quickjs-opcodes", "folder with INDEX.tsv and the table files")
	out := flag.String("out", "dispatch/opcodetables.json", "file to write")
	flag.Parse()
	if err := run(*src, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(src, out string) error {
	files, err := indexFiles(filepath.Join(src, "INDEX.tsv"))
	if err != nil {
		return err
	}
	var tables []srcTable
	var ids []string
	bellardBlobs := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			return err
		}
		var t srcTable
		if err := json.Unmarshal(b, &t); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if t.Engine == "bellard" {
			bellardBlobs[t.HeaderBlob] = true
		}
		tables = append(tables, t)
		ids = append(ids, strings.TrimSuffix(f, ".json"))
	}
	var buf bytes.Buffer
	buf.WriteString("[\n")
	n := 0
	for i, t := range tables {
		if t.Engine == "quickjs-ng" && bellardBlobs[t.HeaderBlob] {
			if len(t.ShippedIn) != 0 {
				return fmt.Errorf("%s: pre-fork copy shipped in %v", ids[i], t.ShippedIn)
			}
			continue
		}
		o, err := convert(ids[i], t)
		if err != nil {
			return err
		}
		line, err := json.Marshal(o)
		if err != nil {
			return err
		}
		if n > 0 {
			buf.WriteString(",\n")
		}
		buf.Write(line)
		n++
	}
	buf.WriteString("\n]\n")
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

func indexFiles(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var files []string
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		cols := strings.Split(sc.Text(), "\t")
		if line == 1 {
			continue // header
		}
		if len(cols) != 8 {
			return nil, fmt.Errorf("%s:%d: want 8 columns, have %d", path, line, len(cols))
		}
		files = append(files, cols[7])
	}
	sort.Strings(files)
	return files, sc.Err()
}

func convert(id string, t srcTable) (outTable, error) {
	o := outTable{ID: id, Engine: t.Engine, FirstDate: t.FirstDate, FirstCommit: t.FirstCommit,
		HeaderBlob: t.HeaderBlob, OpCount: t.OpCount, ShippedIn: t.ShippedIn, Formats: t.Formats}
	if o.ShippedIn == nil {
		o.ShippedIn = []string{}
	}
	fmtIndex := map[string]int{}
	for i, f := range t.Formats {
		fmtIndex[f] = i
	}
	byName := map[string]srcOpcode{}
	temp := map[string]bool{}
	for _, op := range t.Opcodes {
		byName[op.Name] = op
	}
	for _, op := range t.Temporary {
		if _, dup := byName[op.Name]; dup {
			return o, fmt.Errorf("%s: %s is both regular and temporary", id, op.Name)
		}
		byName[op.Name] = op
		temp[op.Name] = true
	}
	if len(t.Opcodes) != t.OpCount {
		return o, fmt.Errorf("%s: op_count %d but %d opcodes", id, t.OpCount, len(t.Opcodes))
	}
	reg := 0
	for _, name := range t.OpcodeInfoOrder {
		op, ok := byName[name]
		if !ok {
			return o, fmt.Errorf("%s: opcode_info_order names unknown opcode %s", id, name)
		}
		fi, ok := fmtIndex[op.Fmt]
		if !ok {
			return o, fmt.Errorf("%s: %s has unknown format %s", id, name, op.Fmt)
		}
		flags := ""
		if temp[name] {
			flags += "t"
		} else {
			if reg >= len(t.Opcodes) || t.Opcodes[reg].Name != name {
				return o, fmt.Errorf("%s: opcode_info_order without temporaries differs from numbering order at %s", id, name)
			}
			reg++
		}
		switch op.Cond {
		case "", "if SHORT_OPCODES":
		case "ifdef CONFIG_BIGNUM":
			flags += "b"
		default:
			return o, fmt.Errorf("%s: %s: unknown condition %q", id, name, op.Cond)
		}
		o.Records = append(o.Records, []any{name, op.Size, op.NPop, op.NPush, fi, flags})
	}
	if reg != len(t.Opcodes) || len(o.Records) != len(t.Opcodes)+len(t.Temporary) {
		return o, fmt.Errorf("%s: opcode_info_order has %d records, want %d", id, len(o.Records), len(t.Opcodes)+len(t.Temporary))
	}
	return o, nil
}
