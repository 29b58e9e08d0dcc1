// Command gen writes internal/name/natives/catalog.json, the project's own table
// of the builtins QuickJS and QuickJS-NG declare in JSCFunctionListEntry
// arrays, from the git histories of both engines:
//
//	go run ./internal/name/natives/internal/gen -bellard /path/to/bellard/quickjs.git \
//	    -ng /path/to/quickjs-ng/quickjs.git -owners internal/name/natives/internal/gen/owners.tsv \
//	    -out internal/name/natives/catalog.json
//
// (or go generate ./internal/name/natives with QUICKJS_GIT and QUICKJS_NG_GIT
// set). -list prints the arrays owners.tsv does not cover and the entries
// made by macros it does not know, and writes nothing.
//
// It reads quickjs.c and quickjs-libc.c at every commit of HEAD's history
// that changed them and at every release (Bellard's "release" commits,
// QuickJS-NG's tags), keeps each distinct version of each array (entry
// names, kinds, lengths, calling conventions, C functions, literal values)
// with the dates and releases it shipped in, and joins owners.tsv, which
// says which object each array's entries become properties of. QuickJS-NG
// versions that only Bellard's commits (the history before the fork) had
// are left to Bellard. The output is the project's own table of names,
// committed; nothing reads the engines' sources at run time. Local macros
// (#define DEF(x) inside an array) are recorded as entries of unknown kind
// and name, which match any entry.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

func main() {
	bellard := flag.String("bellard", "", "git directory of github.com/bellard/quickjs")
	ng := flag.String("ng", "", "git directory of github.com/quickjs-ng/quickjs")
	owners := flag.String("owners", "internal/name/natives/internal/gen/owners.tsv", "array → owner table")
	out := flag.String("out", "internal/name/natives/catalog.json", "output file")
	list := flag.Bool("list", false, "list array names without an owner and unknown macros, write nothing")
	flag.Parse()
	if *bellard == "" || *ng == "" {
		fmt.Fprintln(os.Stderr, "gen: -bellard and -ng are required")
		os.Exit(2)
	}
	if err := run(*bellard, *ng, *owners, *out, *list); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

const (
	famBellard = "quickjs"
	famNG      = "quickjs-ng"
)

// version is one distinct content of an array in one family's history.
type version struct {
	First, Last string   // commit dates
	Releases    []string // releases shipping it
	Entries     []entry
	key         string
}

type arrayHistory struct {
	Family   string
	Name     string
	Owner    string
	Versions []*version
}

func run(bellardDir, ngDir, ownersPath, outPath string, list bool) error {
	hist := map[string]*arrayHistory{} // family/name
	unknown := map[string]int{}
	for _, fam := range []struct{ name, dir string }{{famBellard, bellardDir}, {famNG, ngDir}} {
		if err := collect(fam.name, fam.dir, hist, unknown); err != nil {
			return fmt.Errorf("%s: %w", fam.dir, err)
		}
	}
	dropForkCopies(hist)
	own, err := readOwners(ownersPath)
	if err != nil && !list {
		return err
	}
	var keys []string
	for k := range hist {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if list {
		for _, k := range keys {
			h := hist[k]
			_, ok := own[h.Family+"\t"+h.Name]
			if !ok {
				_, ok = own["*\t"+h.Name]
			}
			if !ok {
				fmt.Printf("no owner: %s\t%d versions\t%s\n", k, len(h.Versions), names(h.Versions[len(h.Versions)-1].Entries))
			}
		}
		for m, n := range unknown {
			fmt.Printf("unknown item: %q ×%d\n", m, n)
		}
		return nil
	}
	var outArrays []*arrayHistory
	for _, k := range keys {
		h := hist[k]
		o, ok := own[h.Family+"\t"+h.Name]
		if !ok {
			o, ok = own["*\t"+h.Name]
		}
		if !ok {
			return fmt.Errorf("%s: array %s has no owner in %s", h.Family, h.Name, ownersPath)
		}
		h.Owner = o
		outArrays = append(outArrays, h)
	}
	return writeCatalog(outPath, outArrays)
}

func names(es []entry) string {
	var s []string
	for _, e := range es {
		s = append(s, e.Name)
	}
	return strings.Join(s, ",")
}

func git(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"--git-dir", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}

var releaseMsg = regexp.MustCompile(`(?i)^(\d{4}-\d\d-\d\d release|new release)`)

// releases maps commit → release name: QuickJS-NG's tags, Bellard's
// "release" commits named by their VERSION file.
func releases(fam, dir string) (map[string]string, error) {
	rel := map[string]string{}
	if fam == famNG {
		out, err := git(dir, "tag", "--format=%(objectname) %(*objectname) %(refname:short)")
		if err != nil {
			return nil, err
		}
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(l)
			if len(f) == 2 {
				rel[f[0]] = f[1]
			} else if len(f) == 3 {
				rel[f[1]] = f[2]
			}
		}
		return rel, nil
	}
	out, err := git(dir, "log", "--format=%H %s")
	if err != nil {
		return nil, err
	}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		h, subj, _ := strings.Cut(l, " ")
		if !releaseMsg.MatchString(subj) || strings.Contains(subj, "take 2") {
			continue
		}
		v, err := git(dir, "show", h+":VERSION")
		if err != nil {
			continue
		}
		rel[h] = strings.TrimSpace(string(v))
	}
	return rel, nil
}

func collect(fam, dir string, hist map[string]*arrayHistory, unknown map[string]int) error {
	rel, err := releases(fam, dir)
	if err != nil {
		return err
	}
	// Every commit of HEAD's history that changed one of the files, with
	// the blobs it left (git log --raw), oldest first.
	out, err := git(dir, "log", "--reverse", "--date=short", "--format=C %H %ad", "--raw", "--no-abbrev", "HEAD", "--", "quickjs.c", "quickjs-libc.c")
	if err != nil {
		return err
	}
	type point struct {
		hash, date string
		blobs      map[string]string // file → blob
	}
	var walk []point
	cur := map[string]string{}
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) == 3 && f[0] == "C":
			walk = append(walk, point{hash: f[1], date: f[2]})
		case len(f) >= 6 && strings.HasPrefix(f[0], ":") && len(walk) > 0:
			file := f[len(f)-1]
			if f[3] == strings.Repeat("0", 40) {
				delete(cur, file)
			} else {
				cur[file] = f[3]
			}
			walk[len(walk)-1].blobs = copyMap(cur)
		}
	}
	// Releases whose commit did not change the files, or that are not on
	// HEAD's history (release branches), are read by name.
	inWalk := map[string]bool{}
	for _, p := range walk {
		inWalk[p.hash] = true
	}
	// In a fixed order, so that the output does not depend on map order.
	var tagged []string
	for h := range rel {
		tagged = append(tagged, h)
	}
	sort.Strings(tagged)
	for _, h := range tagged {
		if inWalk[h] {
			continue
		}
		d, err := git(dir, "show", "-s", "--date=short", "--format=%ad", h)
		if err != nil {
			return err
		}
		p := point{hash: h, date: strings.TrimSpace(string(d)), blobs: map[string]string{}}
		for _, file := range []string{"quickjs.c", "quickjs-libc.c"} {
			if b, err := git(dir, "rev-parse", "-q", "--verify", h+":"+file); err == nil {
				p.blobs[file] = strings.TrimSpace(string(b))
			}
		}
		walk = append(walk, p)
	}
	sort.SliceStable(walk, func(i, j int) bool { return walk[i].date < walk[j].date })
	cat, err := newCatFile(dir)
	if err != nil {
		return err
	}
	defer cat.close()
	seenBlob := map[string][]array{}
	for _, p := range walk {
		var arrays []array
		for _, file := range []string{"quickjs.c", "quickjs-libc.c"} {
			id, ok := p.blobs[file]
			if !ok {
				continue
			}
			as, ok := seenBlob[id]
			if !ok {
				src, err := cat.blob(id)
				if err != nil {
					return err
				}
				as, err = parseArrays(string(src))
				if err != nil {
					return fmt.Errorf("%s:%s: %w", p.hash[:8], file, err)
				}
				seenBlob[id] = as
			}
			arrays = append(arrays, as...)
		}
		for _, a := range arrays {
			k := fam + "/" + a.Name
			hh := hist[k]
			if hh == nil {
				hh = &arrayHistory{Family: fam, Name: a.Name}
				hist[k] = hh
			}
			key := entriesKey(a.Entries)
			var v *version
			for _, x := range hh.Versions {
				if x.key == key {
					v = x
				}
			}
			if v == nil {
				v = &version{First: p.date, Entries: a.Entries, key: key}
				hh.Versions = append(hh.Versions, v)
				for _, e := range a.Entries {
					if e.Kind == "?" {
						unknown[fam+" "+a.Name+" "+e.Macro]++
					}
				}
			}
			if p.date > v.Last {
				v.Last = p.date
			}
			if r := rel[p.hash]; r != "" && !contains(v.Releases, r) {
				v.Releases = append(v.Releases, r)
			}
		}
	}
	return nil
}

func copyMap(m map[string]string) map[string]string {
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

func entriesKey(es []entry) string {
	b, _ := json.Marshal(es)
	return string(b)
}

func readOwners(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	own := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		c := strings.Split(l, "\t")
		if len(c) != 3 {
			return nil, fmt.Errorf("%s:%d: want family, array, owner", path, n)
		}
		own[c[0]+"\t"+c[1]] = c[2]
	}
	return own, sc.Err()
}

// catFile reads blobs through one `git cat-file --batch` process.
type catFile struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func newCatFile(dir string) (*catFile, error) {
	cmd := exec.Command("git", "--git-dir", dir, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &catFile{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}, nil
}

func (c *catFile) blob(id string) ([]byte, error) {
	if _, err := fmt.Fprintln(c.in, id); err != nil {
		return nil, err
	}
	hdr, err := c.out.ReadString('\n')
	if err != nil {
		return nil, err
	}
	f := strings.Fields(hdr)
	if len(f) != 3 {
		return nil, fmt.Errorf("cat-file %s: %q", id, hdr)
	}
	n, err := strconv.Atoi(f[2])
	if err != nil {
		return nil, err
	}
	b := make([]byte, n+1) // content and a newline
	if _, err := io.ReadFull(c.out, b); err != nil {
		return nil, err
	}
	return b[:n], nil
}

func (c *catFile) close() {
	c.in.Close()
	c.cmd.Wait()
}

// dropForkCopies removes the QuickJS-NG versions that are Bellard's: NG's
// history starts with Bellard's commits, and a version no NG release
// shipped that equals a Bellard version is his, not NG's.
func dropForkCopies(hist map[string]*arrayHistory) {
	for k, h := range hist {
		if h.Family != famNG {
			continue
		}
		b := hist[famBellard+"/"+h.Name]
		var keep []*version
		for _, v := range h.Versions {
			if len(v.Releases) == 0 && b != nil && hasKey(b.Versions, v.key) {
				continue
			}
			keep = append(keep, v)
		}
		h.Versions = keep
		if len(keep) == 0 {
			delete(hist, k)
		}
	}
}

func hasKey(vs []*version, key string) bool {
	for _, v := range vs {
		if v.key == key {
			return true
		}
	}
	return false
}
