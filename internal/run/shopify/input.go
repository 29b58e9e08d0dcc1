package shopify

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/jsprof/jsprof/internal/fileio"
)

// MaxInputBytes bounds an input file: far past function-runner's input
// limit (InputLimit), so that an input over it still runs and is
// reported over it.
const MaxInputBytes = 64 << 20

// ReadInput reads an input file (--input) as jsprof reads every file
// whose contents it does not control (internal/fileio): a regular file
// only, opened without blocking, at most MaxInputBytes. A FIFO or a
// device is refused at once: a FIFO with no writer blocked jsprof before
// the guest ran, deaf to the first signal. One input on stdin is given
// without --input.
func ReadInput(path string) ([]byte, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, NotRegular(path)
	}
	b, err := fileio.ReadRegular(path, MaxInputBytes)
	if err != nil {
		return nil, fmt.Errorf("--input: %w", err)
	}
	return b, nil
}

// NotRegular is the error of an --input that is not a regular file.
func NotRegular(path string) error {
	return fmt.Errorf("--input %s: not a regular file (a FIFO, a device): jsprof reads inputs from files, and one input from stdin without --input", path)
}

// InputFiles lists the inputs paths name, in order: a regular file is
// itself, a folder each *.json file in it (not below), by name. A folder
// with none is an error naming it, as is a path that is neither
// (ReadInput): checked before anything runs.
func InputFiles(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("--input: %w", err)
		}
		if !st.IsDir() {
			if !st.Mode().IsRegular() {
				return nil, NotRegular(p)
			}
			files = append(files, p)
			continue
		}
		in, err := filepath.Glob(filepath.Join(p, "*.json"))
		if err != nil {
			return nil, fmt.Errorf("--input %s: %w", p, err)
		}
		var found []string
		for _, f := range in {
			if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
				found = append(found, f)
			}
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("--input %s: no *.json file in the folder", p)
		}
		slices.Sort(found)
		files = append(files, found...)
	}
	return files, nil
}
