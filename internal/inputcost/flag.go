package inputcost

import (
	"fmt"
	"strconv"
	"strings"
)

// Flag is jsprof run's --input-cost: off (0), on with DefaultMaxPaths
// paths per input (--input-cost), or with N (--input-cost=N).
type Flag struct{ MaxPaths int }

// String is the flag's value.
func (f *Flag) String() string {
	if f == nil {
		return "0"
	}
	return strconv.Itoa(f.MaxPaths)
}

// Set reads --input-cost's value: true (as the bare flag), false, or a
// number of paths per input, at least 1.
func (f *Flag) Set(s string) error {
	switch strings.ToLower(s) {
	case "true":
		f.MaxPaths = DefaultMaxPaths
		return nil
	case "false":
		f.MaxPaths = 0
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return fmt.Errorf("%q: want a number of paths, at least 1", s)
	}
	f.MaxPaths = n
	return nil
}

// IsBoolFlag lets --input-cost be given alone.
func (*Flag) IsBoolFlag() bool { return true }
