;; Control-flow shapes for the hoisting tests (count_test.go): each export
;; takes a selector and takes a different path through its constructs for
;; each value, so that every charge, escape and taken-back count is run.
;; Build: wat2wasm shapes.wat -o shapes.wasm
(module
  (type $sel (func (param i32) (result i32)))
  (table 2 funcref)
  (elem (i32.const 0) $leaf $ifelse)
  (func $leaf (param i32) (result i32)
    local.get 0
    i32.const 1
    i32.add)

  ;; if/else whose then arm escapes the outer block
  (func $ifelse (export "ifelse") (param i32) (result i32)
    (local i32)
    block $out
      local.get 0
      i32.const 1
      i32.and
      if
        local.get 0
        i32.const 2
        i32.and
        br_if $out
        i32.const 10
        local.set 1
      else
        i32.const 20
        local.set 1
      end
      local.get 1
      i32.const 3
      i32.add
      local.set 1
    end
    local.get 1)

  ;; forward br_ifs, one carrying a value out of a typed block
  (func $brifs (export "brifs") (param i32) (result i32)
    (local i32)
    block $a
      block $b
        local.get 0
        i32.const 1
        i32.and
        br_if $b
        local.get 1
        i32.const 5
        i32.add
        local.set 1
        local.get 0
        i32.const 2
        i32.and
        br_if $a
        local.get 1
        i32.const 7
        i32.add
        local.set 1
      end
      local.get 1
      i32.const 1
      i32.add
      local.set 1
    end
    block $v (result i32)
      i32.const 100
      local.get 0
      i32.const 4
      i32.and
      br_if $v
      drop
      i32.const 200
    end
    local.get 1
    i32.add)

  ;; br_table to inner and outer labels, and an if without else
  (func $table (export "table") (param i32) (result i32)
    (local i32)
    block $x
      block $c2
        block $c1
          block $c0
            local.get 0
            i32.const 3
            i32.and
            br_table $c0 $c1 $c2 $x
          end
          i32.const 1
          local.set 1
          br $c2
        end
        i32.const 2
        local.set 1
        local.get 0
        i32.const 4
        i32.and
        if
          i32.const 9
          local.set 1
        end
      end
      local.get 1
      i32.const 3
      i32.mul
      local.set 1
    end
    local.get 1)

  ;; loops: a counted loop with an early exit, and a nested loop
  (func $loops (export "loops") (param i32) (result i32)
    (local i32 i32)
    block $done
      loop $outer
        local.get 1
        local.get 0
        i32.ge_u
        br_if $done
        i32.const 0
        local.set 2
        loop $inner
          local.get 2
          i32.const 1
          i32.add
          local.tee 2
          i32.const 3
          i32.lt_u
          br_if $inner
        end
        local.get 1
        i32.const 5
        i32.eq
        br_if $done
        local.get 1
        i32.const 1
        i32.add
        local.set 1
        br $outer
      end
    end
    local.get 1)

  ;; returns from inside nested constructs, calls inside them, and an
  ;; unreachable arm that is never taken
  (func $returns (export "returns") (param i32) (result i32)
    block $a
      block $b
        local.get 0
        call $leaf
        i32.const 3
        i32.and
        i32.eqz
        if
          i32.const 7
          return
        end
        local.get 0
        i32.const 2
        i32.and
        br_if $b
        local.get 0
        i32.const 1
        call_indirect (type $sel)
        drop
        local.get 0
        i32.const 100
        i32.gt_u
        if
          unreachable
        end
      end
      local.get 0
      i32.const 4
      i32.and
      br_if $a
      i32.const 11
      return
    end
    local.get 0
    call $ifelse)

  ;; a loop body of one segment that branches back to itself, and one
  ;; left by a br_if from its middle back to the top unconditionally
  (func $selfloop (export "selfloop") (param i32) (result i32)
    (local i32)
    loop $l
      local.get 1
      i32.const 1
      i32.add
      local.tee 1
      local.get 0
      i32.lt_u
      br_if $l
    end
    block $out
      loop $m
        local.get 1
        i32.const 1
        i32.sub
        local.tee 1
        i32.eqz
        br_if $out
        br $m
      end
    end
    local.get 0)

  ;; recursion, direct and through the table
  (func $fact (export "fact") (param i32) (result i32)
    local.get 0
    i32.const 2
    i32.lt_u
    if (result i32)
      i32.const 1
    else
      local.get 0
      local.get 0
      i32.const 1
      i32.sub
      call $fact
      i32.mul
    end)
)
