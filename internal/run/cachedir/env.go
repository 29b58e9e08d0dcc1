package cachedir

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// DefaultDir is the cache's directory when the command line names none:
// $JSPROF_CACHE_DIR where it is set, else jsprof under the user's cache
// directory, else "" (no cache).
func DefaultDir(getenv func(string) string) string {
	if dir := getenv("JSPROF_CACHE_DIR"); dir != "" {
		return dir
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "jsprof")
	}
	return ""
}

// SizeFromEnv is the cache's bound when the command line gives none: v,
// the value of $JSPROF_CACHE_SIZE, in MB, where it is a positive whole
// number, else DefaultMB, with the error to warn of when v is set to
// anything else.
func SizeFromEnv(v string) (int64, error) {
	if v == "" {
		return DefaultMB, nil
	}
	mb, err := strconv.ParseInt(v, 10, 64)
	if err != nil || mb <= 0 || mb > 1<<40 {
		return DefaultMB, fmt.Errorf("JSPROF_CACHE_SIZE=%q is not a whole number of MB; the cache is kept within %d MB", v, DefaultMB)
	}
	return mb, nil
}
