// Package outfile writes jsprof's output files so that no reader sees
// half a file and no guest can redirect a write: each file's directory is
// opened (and checked writable) before the guest runs, the content is
// written to a new temporary file there and renamed over the name; a
// character device is written in place. A name that is a symbolic link
// is refused, unless it leads to a character device: the file it names
// may be anyone's (a guest's link, another user's in sticky /tmp). A Set knows the temporary files
// not yet renamed, for a process that must end at once to remove them.
//
// It owns how a file is written, nothing of what: which files a command
// writes, and their content, belong to cmd/jsprof, and to
// internal/output for a run's outputs.
package outfile
