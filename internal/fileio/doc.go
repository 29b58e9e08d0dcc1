// Package fileio reads files that jsprof finds rather than is given (a
// module beside a profile, named by the profile), and files whose size
// an attacker chooses, without trusting them to be what their names say:
// only regular files are opened, without blocking (a FIFO where a file
// was expected blocked jsprof for ever), and nothing is read past a
// bound the caller sets, compressed or not (a gzip bomb: 1 MB of a
// profile that inflates to 1 GiB).
//
// It owns opening and reading; what the bytes mean belongs to the
// callers.
package fileio
