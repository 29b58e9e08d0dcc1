// Package jsprofile is the control's owner of mode and bucket names:
// defining them here breaks no rule.
package jsprofile

const (
	ModeExact     = "exact"
	BucketOutside = "(outside JS)"
)
