package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// Suggest returns the one of candidates closest to word, when word looks
// like a slip of it: within a third of the shorter's length in edits
// (insertions, deletions, substitutions and swaps of neighbours), at least
// one; "" when none is, or when two are equally close.
func Suggest(word string, candidates []string) string {
	best, bestD, tie := "", -1, false
	for _, c := range candidates {
		d := editDistance(strings.ToLower(word), strings.ToLower(c))
		if d >= len(c) || d > max(1, min(len(word), len(c))/3) {
			continue
		}
		switch {
		case bestD < 0 || d < bestD:
			best, bestD, tie = c, d, false
		case d == bestD:
			tie = true
		}
	}
	if tie {
		return ""
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b
// (Levenshtein's, with a swap of two neighbours one edit: reprot is one
// from report).
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// undefinedFlag is how package flag begins its message for a flag the set
// does not define.
const undefinedFlag = "flag provided but not defined: -"

// didYouMean adds, to flag's message for a flag fs does not define, the
// flag it was likely meant to be: "… -plugn (did you mean --plugin?)".
func didYouMean(fs *flag.FlagSet, msg string) string {
	name, ok := strings.CutPrefix(msg, undefinedFlag)
	if !ok {
		return msg
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if s := Suggest(strings.TrimLeft(name, "-"), names); s != "" {
		return fmt.Sprintf("%s (did you mean --%s?)", msg, s)
	}
	return msg
}

// UnknownCommand says that word is neither one of commands nor a module
// file, in one line naming the command it was likely meant to be; it
// reports whether it named one (else the caller lists the commands).
func UnknownCommand(stderr io.Writer, word string, commands []string) (suggested bool) {
	if s := Suggest(word, commands); s != "" {
		fmt.Fprintf(stderr, "jsprof: unknown command %q (and no such module file): did you mean 'jsprof %s'?\n", word, s)
		return true
	}
	fmt.Fprintf(stderr, "jsprof: unknown command %q (and no such module file)\n", word)
	return false
}
