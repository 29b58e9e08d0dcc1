package wasmcore

import (
	"errors"
	"fmt"
	"io"
)

// DecodeError is the error Decode returns: where (section, item, file
// offset) and what went wrong. Its message reads like
//
//	wasmcore: code section: function 12 at offset 0x1a2b: unexpected end of body
//
// Item indices use the module's index spaces (imports first), the numbering
// wasm-objdump prints, so an error can be looked up directly.
type DecodeError struct {
	Section string // "code", "custom \"name\"", ...; "header" for the preamble
	Item    string // "function", "import", "segment", ...; "" for the section itself
	Index   int    // index of the item, when Item != ""
	Offset  int    // file offset of the offending byte
	Err     error
}

func (e *DecodeError) Error() string {
	s := "wasmcore: " + e.Section
	if e.Section != "header" {
		s += " section"
	}
	if e.Item != "" {
		s += fmt.Sprintf(": %s %d", e.Item, e.Index)
	}
	return s + fmt.Sprintf(" at offset %#x: %v", e.Offset, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// posError is an error at a known offset, before the section context is
// added by the caller.
type posError struct {
	off int
	err error
}

func (e *posError) Error() string { return fmt.Sprintf("at offset %#x: %v", e.off, e.err) }
func (e *posError) Unwrap() error { return e.err }

// eofError reports input that ended too early. It matches
// io.ErrUnexpectedEOF with errors.Is, so callers can tell truncation from
// corruption without parsing messages.
type eofError struct{ what string }

func (e *eofError) Error() string { return "unexpected end of " + e.what }
func (e *eofError) Is(target error) bool {
	return target == io.ErrUnexpectedEOF
}

// ErrMalformed is wrapped by every decode error that is not a truncation.
var ErrMalformed = errors.New("malformed")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)
}

// wrap adds section context to err (normally a *posError).
func wrap(section, item string, index int, fallbackOff int, err error) error {
	if err == nil {
		return nil
	}
	var de *DecodeError
	if errors.As(err, &de) {
		return err
	}
	off := fallbackOff
	var pe *posError
	if errors.As(err, &pe) {
		off = pe.off
		err = pe.err
	}
	return &DecodeError{Section: section, Item: item, Index: index, Offset: off, Err: err}
}
