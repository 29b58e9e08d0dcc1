;; Shapes for the cost models (hoist_test.go): instructions that cost
;; nothing under the fuel model (nop, drop, unreachable, return) at the
;; places where the counter's segments start, end, are hoisted over or
;; taken back: function entry, loop tops, whole arms, escapes, the code
;; after calls. Each export takes a selector that picks its path.
;; Build: wat2wasm costs.wat -o costs.wasm
(module
  (memory 1)
  (func $leaf (param i32) (result i32)
    local.get 0
    i32.const 1
    i32.add)

  ;; straight-line: 5 instructions, 2 of them fuel (local.get, i32.const)
  (func $straight (export "straight") (param i32) (result i32)
    nop
    local.get 0
    drop
    i32.const 1
    return)

  ;; nops first at the entry, at a loop top, in whole arms, before a br_if
  (func $nops (export "nops") (param i32) (result i32)
    (local i32)
    nop
    loop $l
      nop
      local.get 1
      i32.const 1
      i32.add
      local.tee 1
      local.get 0
      i32.lt_u
      br_if $l
    end
    local.get 0
    i32.const 1
    i32.and
    if
      nop
    else
      nop
      nop
    end
    block $b
      nop
      local.get 0
      i32.const 2
      i32.and
      br_if $b
      nop
    end
    local.get 1)

  ;; returns whose segments cost nothing, escaping hoisted constructs, and
  ;; an unreachable arm never taken
  (func $early (export "early") (param i32)
    block $a
      local.get 0
      i32.eqz
      if
        return
      end
      local.get 0
      i32.const 1
      i32.eq
      br_if $a
      local.get 0
      i32.const 2
      i32.eq
      if
        nop
        return
      end
      local.get 0
      i32.const 100
      i32.gt_u
      if
        unreachable
      end
      local.get 0
      i32.const 3
      i32.eq
      br_if $a
      nop
      return
    end
    nop)

  ;; drops after calls (hoisted across them), in a loop left by a return
  (func $drops (export "drops") (param i32) (result i32)
    (local i32)
    loop $l
      local.get 1
      call $leaf
      drop
      local.get 1
      call $leaf
      local.tee 1
      local.get 0
      i32.ge_u
      if
        local.get 1
        return
      end
      i32.const 7
      drop
      br $l
    end
    unreachable)

  ;; a br_table into arms that cost nothing or return
  (func $table (export "table") (param i32) (result i32)
    block $x
      block $c1
        block $c0
          local.get 0
          i32.const 3
          i32.and
          br_table $c0 $c1 $x $c0
        end
        nop
        i32.const 1
        return
      end
      nop
    end
    i32.const 2)

  ;; code after a return, never run: the return ends its segment although
  ;; it costs nothing
  (func $dead (export "dead") (param i32) (result i32)
    block $b
      local.get 0
      i32.const 1
      i32.and
      br_if $b
      i32.const 1
      return
      i32.const 2
      drop
      nop
    end
    i32.const 3)

  ;; memory.fill and memory.copy cost one whatever their length
  (func $bulk (export "bulk") (param i32)
    i32.const 0
    i32.const 7
    local.get 0
    memory.fill
    i32.const 100
    i32.const 0
    local.get 0
    memory.copy)
)
