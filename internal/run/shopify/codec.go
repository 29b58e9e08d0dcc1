package shopify

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/vmihailenco/msgpack/v5"
)

// Codec is how a function's input and output are encoded.
type Codec int

// Codecs, named as function-runner names them.
const (
	// JSON: the input is minified JSON with Shopify's escapes, the output
	// JSON.
	JSON Codec = iota + 1
	// MessagePack: the JSON input converted to MessagePack, the output
	// MessagePack.
	MessagePack
	// Raw: the input passed as is, the output not decoded.
	Raw
)

// ErrRawOutput is returned by DecodeOutput for the Raw codec: raw output has
// no JSON form, show its bytes instead.
var ErrRawOutput = errors.New("raw codec: the output is not decoded")

// ErrNoOutput is returned by DecodeOutput for an empty output, which is
// what a function that failed before writing any leaves.
var ErrNoOutput = errors.New("the function wrote no output")

func (c Codec) String() string {
	switch c {
	case JSON:
		return "json"
	case MessagePack:
		return "messagepack"
	case Raw:
		return "raw"
	}
	return fmt.Sprintf("codec(%d)", int(c))
}

// ParseCodec parses a codec name: json, messagepack or raw.
func ParseCodec(s string) (Codec, error) {
	for _, c := range []Codec{JSON, MessagePack, Raw} {
		if s == c.String() {
			return c, nil
		}
	}
	return 0, fmt.Errorf("unknown codec %q: want json, messagepack or raw", s)
}

// EncodeInput turns the JSON text of an input file into the bytes the
// function reads: minified with Shopify's escapes (JSON), converted
// (MessagePack) or unchanged (Raw).
func (c Codec) EncodeInput(jsonInput []byte) ([]byte, error) {
	switch c {
	case JSON:
		return MinifyJSON(jsonInput)
	case MessagePack:
		return JSONToMessagePack(jsonInput)
	case Raw:
		return bytes.Clone(jsonInput), nil
	}
	return nil, fmt.Errorf("unknown codec %d", int(c))
}

// DecodeOutput turns a function's output into compact JSON, as
// function-runner shows it: JSON re-encoded (numbers as written, keys in
// order, duplicate keys merged), MessagePack converted. Raw output returns
// ErrRawOutput. The error of output that does not decode says why and
// where; show the raw bytes then, as function-runner does.
func (c Codec) DecodeOutput(output []byte) ([]byte, error) {
	if len(output) == 0 && (c == JSON || c == MessagePack) {
		// What a function that trapped before writing leaves: say so
		// rather than "unexpected end of input".
		return nil, ErrNoOutput
	}
	switch c {
	case JSON:
		v, err := parseJSON(output)
		if err != nil {
			return nil, fmt.Errorf("output is not JSON: %w", err)
		}
		return appendJSON(nil, v, false), nil
	case MessagePack:
		return MessagePackToJSON(output)
	case Raw:
		return nil, ErrRawOutput
	}
	return nil, fmt.Errorf("unknown codec %d", int(c))
}

// MinifyJSON returns jsonInput as function-runner hands a JSON function its
// input: compact, object keys in input order, numbers exactly as written,
// strings escaped as serde_json does plus Shopify's "\/", "\u2028" and
// "\u2029" (function-runner's ShopifyJsonFormatter).
func MinifyJSON(jsonInput []byte) ([]byte, error) {
	v, err := parseJSON(jsonInput)
	if err != nil {
		return nil, fmt.Errorf("invalid input JSON: %w", err)
	}
	return appendJSON(make([]byte, 0, len(jsonInput)), v, true), nil
}

// JSONToMessagePack converts a JSON input to the MessagePack that
// function-runner hands a MessagePack function: see appendMessagePack for
// the number types.
func JSONToMessagePack(jsonInput []byte) ([]byte, error) {
	v, err := parseJSON(jsonInput)
	if err != nil {
		return nil, fmt.Errorf("invalid input JSON: %w", err)
	}
	var buf bytes.Buffer
	buf.Grow(len(jsonInput))
	enc := msgpack.NewEncoder(&buf)
	if err := appendMessagePack(enc, v); err != nil {
		return nil, fmt.Errorf("converting the input to MessagePack: %w", err)
	}
	return buf.Bytes(), nil
}

// MessagePackToJSON converts a MessagePack output to compact JSON. Bytes
// after the value are a *TrailingBytes error holding the value's JSON.
func MessagePackToJSON(output []byte) ([]byte, error) {
	v, err := parseMessagePack(output)
	var trailing *TrailingBytes
	if errors.As(err, &trailing) {
		trailing.JSON = appendJSON(nil, v, false)
	}
	if err != nil {
		return nil, fmt.Errorf("output is not MessagePack that JSON can hold: %w", err)
	}
	return appendJSON(nil, v, false), nil
}
