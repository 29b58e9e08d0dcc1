//go:build !unix

package runner

// openNonblock: no open blocks for a writer here.
const openNonblock = 0
