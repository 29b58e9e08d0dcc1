;; A dynamic module that imports the instrumented plugin's meter state: it
;; could set jsprof.next_sample out of reach and run past every checkpoint.
(module
  (import "javy_quickjs_provider_v3" "jsprof.next_sample" (global (mut i64)))
  (memory (export "memory") 1)
  (func (export "_start")))
