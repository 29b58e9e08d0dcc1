;; A function written against Shopify's Wasm API (no JS): it imports the
;; in-memory provider shopify_function_v2, reads its input's top-level
;; length (the number of the input object's keys) and, once per key, runs
;; a loop body with the operators wasmtime's fuel charges nothing for (nop,
;; drop, block, loop, end, return) beside ones it charges one for; its
;; output is the sum 0 + 1 + ... + (n - 1), a MessagePack integer.
(module
  (import "shopify_function_v2" "_shopify_function_input_get" (func $input_get (result i64)))
  (import "shopify_function_v2" "_shopify_function_input_get_val_len" (func $val_len (param i64) (result i32)))
  (import "shopify_function_v2" "_shopify_function_output_new_i32" (func $output_i32 (param i32) (result i32)))
  (func $add (param $a i32) (param $b i32) (result i32)
    (return (i32.add (local.get $a) (local.get $b))))
  (func (export "_start")
    (local $n i32) (local $i i32) (local $sum i32)
    (local.set $n (call $val_len (call $input_get)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        nop
        (drop (i32.const 7))
        (local.set $sum (call $add (local.get $sum) (local.get $i)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (drop (call $output_i32 (local.get $sum)))))
