package bytecode

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"

	"github.com/jsprof/jsprof/dispatch"
	"github.com/jsprof/jsprof/wasmcore"
)

// Identities are what a profile records of what ran
// (jsprofile.EngineInfo.Code, jsprofile.Meta.Program), so that a diff can
// tell a change of engine from a change of program: code, the SHA-256 of
// the engine module's function bodies (each with its length first), which
// no JS a build carries changes; program, the SHA-256 of the serialized
// bytecode main carries (mainReport.Javy.BytecodeSegment), "" when it
// carries none. Both are lower-case hex; code is "" for a nil engine.
func Identities(engine, main *wasmcore.Module, mainReport *dispatch.Report) (code, program string) {
	if engine != nil {
		h := sha256.New()
		var n [binary.MaxVarintLen64]byte
		for _, f := range engine.Functions {
			h.Write(n[:binary.PutUvarint(n[:], uint64(len(f.Body)))])
			h.Write(f.Body)
		}
		code = hex.EncodeToString(h.Sum(nil))
	}
	if main != nil && mainReport != nil && mainReport.Javy.BytecodeSegment != nil {
		if seg := *mainReport.Javy.BytecodeSegment; seg >= 0 && seg < len(main.Data) {
			sum := sha256.Sum256(main.Data[seg].Init)
			program = hex.EncodeToString(sum[:])
		}
	}
	return code, program
}
