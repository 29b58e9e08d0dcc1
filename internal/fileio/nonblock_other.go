//go:build !unix

package fileio

const openNonblock = 0
