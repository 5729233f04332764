# Cut whole trips of the generic path's steady-state loop out of a
# `qemu-aarch64 -singlestep -d exec,nochain` trace (`tools/mca/armv8.sh`),
# as the instructions it executed, in order, for llvm-mca.
#
# Inputs: the binary's disassembly (`objdump -d --no-show-raw-insn`), then
# the trace. `base`: the binary's load address under qemu (its offsets are
# the disassembly's addresses); `entry`: the address of the `aes` crate's
# batch function (`batch_encrypt`/`batch_decrypt`); the cut runs from its
# `from`-th call (0-based) up to, not including, its `from + trips`-th, so
# it holds `trips` whole trips of the caller's loop, each with the batch
# function's body, its return, the caller's whitening, bookkeeping and
# copies, whatever it calls, and the jump back. Branch targets become one
# label (llvm-mca does not follow branches: it models the instructions as
# listed). An instruction outside the binary (a C library call) is
# `# bad`: the script then fails rather than leave it out.
function hex(s,  i, c, v) {
  v = 0; s = tolower(s); sub(/^0x/, "", s)
  for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
  return v
}
FNR == NR {
  if (match($0, /^ *[0-9a-f]+:\t/)) {
    a = $0; sub(/:.*/, "", a); gsub(/ /, "", a)
    t = $0; sub(/^ *[0-9a-f]+:\t/, "", t); sub(/\t\/\/.*$/, "", t)
    sub(/[0-9a-f]+ <[^>]*>/, ".Ltarget", t)
    ins[hex(a)] = t
  }
  next
}
/^Trace / {
  split($0, f, "/"); pc = hex(f[2]) - hex(base)
  if (pc == hex(entry)) { if (n == from) print "# LLVM-MCA-BEGIN"; n++; if (n == from + trips + 1) { done = 1; exit } }
  if (n > from) {
    if (pc in ins) print "\t" ins[pc]
    else { print "# bad: pc " f[2] " outside the binary"; done = 1; exit }
  }
}
END {
  if (!done) print "# bad: the trace has fewer than " from + trips + 1 " batch calls"
  else print "# LLVM-MCA-END"
}
