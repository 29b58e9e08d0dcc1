;; A command that traps.
(module (func (export "_start") unreachable))
