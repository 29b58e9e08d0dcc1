package jsprofile

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// throwProfile is an exact profile of a program that threw twice: from
// check, called by main at line 9 (caught), and from check, called by
// main at line 12 (uncaught); and a native that threw from parse.
func throwProfile(t *testing.T, stacks ...[]Frame) *Profile {
	t.Helper()
	b := NewBuilder(Meta{Mode: ModeExact, TotalInstructions: uint64(10 * len(stacks))})
	for _, s := range stacks {
		b.Add(s, 10, 1, 0)
	}
	p, err := b.Profile()
	require.NoError(t, err)
	jp, err := Read(p)
	require.NoError(t, err)
	return jp
}

func TestThrowStack(t *testing.T) {
	t.Parallel()
	main9, main12 := JSFrame("<eval>", "index.js", 1, 9, 0x100, 1), JSFrame("<eval>", "index.js", 1, 12, 0x100, 2)
	check := JSFrame("check", "index.js", 2, 3, 0x200, 1)
	parse := JSFrame("parse", "index.js", 5, 6, 0x300, 1)
	throw, call := OpcodeFrame("throw", 48), OpcodeFrame("call1", 36)
	p := throwProfile(t,
		[]Frame{main9, call, check, throw},
		[]Frame{main12, call, check, throw},
		[]Frame{main12, call, check, OpcodeFrame("get_arg0", 1)},
		[]Frame{main12, call, parse, OpcodeFrame("call_method", 37), NativeFrame("JSON.parse", 412, 0)},
		[]Frame{main12, call, parse, OpcodeFrame("call_method", 37)},
	)
	js := func(fn string, line int64) ThrowFrame { return ThrowFrame{Function: fn, File: "index.js", Line: line} }
	engine := func(frames ...ThrowFrame) []ThrowFrame { return frames }
	tests := []struct {
		name      string
		backtrace []ThrowFrame
		want      []ThrowFrame
	}{
		{"the backtrace tells the two throws apart", engine(js("check", 3), js("<anonymous>", 12)), []ThrowFrame{js("check", 3), js("<eval>", 12)}},
		{"the other", engine(js("check", 3), js("<anonymous>", 9)), []ThrowFrame{js("check", 3), js("<eval>", 9)}},
		{"a native threw", engine(ThrowFrame{File: "<input>", Line: 1}, ThrowFrame{Function: "parse", Native: true}, js("parse", 6), js("<anonymous>", 12)),
			[]ThrowFrame{{Function: "JSON.parse", Native: true}, js("parse", 6), js("<eval>", 12)}},
		{"no backtrace: two throws, none told apart", nil, nil},
		{"no stack matches", engine(js("elsewhere", 40)), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, p.ThrowStack(tt.backtrace))
		})
	}
	// One throw site: no backtrace is needed.
	one := throwProfile(t, []Frame{main12, call, check, throw}, []Frame{main12, call, parse, OpcodeFrame("call_method", 37)})
	assert.Equal(t, []ThrowFrame{js("check", 3), js("<eval>", 12)}, one.ThrowStack(nil))
}

// TestThrowComments: a Throw set on a profile reads back; a stack that is
// not JSON is an error naming the comment.
func TestThrowComments(t *testing.T) {
	t.Parallel()
	p := throwProfile(t, []Frame{JSFrame("f", "a.js", 1, 2, 0x10, 0), OpcodeFrame("throw", 48)})
	want := &Throw{Message: "TypeError: not a function\nsecond line", Stack: []ThrowFrame{{Function: "f", File: "a.js", Line: 2}}}
	SetThrow(p.Profile, want)
	SetThrow(p.Profile, want) // in place of the first
	again, err := Read(p.Profile)
	require.NoError(t, err)
	want.Message = "TypeError: not a function second line" // comments are one line
	assert.Equal(t, want, again.Meta.Throw)
	n := 0
	for _, c := range p.Comments {
		if len(c) > 13 && c[:13] == "jsprof.throw." {
			n++
		}
	}
	assert.Equal(t, 2, n)

	p.Comments = append(p.Comments[:len(p.Comments)-1], "jsprof.throw.stack=[{")
	_, err = Read(p.Profile)
	assert.ErrorContains(t, err, "jsprof.throw.stack")
}
