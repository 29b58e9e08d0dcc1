;; A command that calls an import no runner provides.
(module
  (import "env" "missing_host_function" (func $missing (param i32) (result i32)))
  (func (export "_start") (drop (call $missing (i32.const 7)))))
