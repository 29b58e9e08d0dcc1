;; A plain WASI command whose start function loops for ever: wazero runs
;; it while instantiating the module, before _start.
(module
  (memory (export "memory") 1)
  (func $loop (loop $again (br $again)))
  (start $loop)
  (func (export "_start")))
