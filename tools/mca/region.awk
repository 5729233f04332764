# Cut a region for llvm-mca out of the function starting at line `fs` of
# an aarch64 assembly file (`tools/mca/armv8.sh`), in execution order along
# the fall-through path: conditional branches are printed, not taken;
# unconditional `b`s are followed. Prints `# bad: why` when it cannot.
#
# * default: from `LLVM-MCA-BEGIN` up to `LLVM-MCA-END` (the passes of
#   `src/mca.rs`: straight-line code between the markers);
# * `-v loop=1`: one trip around the loop that holds `LLVM-MCA-BEGIN`,
#   from the label just above the marker back to it (the loop's latch
#   branch to it, or falling into it when LLVM laid the loop out rotated).
#   The markers themselves are not trusted as bounds: they are `asm!`
#   comments without operands, which the compiler may schedule anywhere
#   among the loop's register-only instructions;
# * `-v whole=1`: the function's whole body up to its `ret`, which must be
#   straight-line (the `aes` crate's `batch_encrypt`).
#
# A conditional branch back to a label already walked (other than the
# loop's own) is an inner loop, which one pass along the path would count
# once: `# bad`.
{ L[NR] = $0 }
/^[^ \t].*:$/ { lab = $0; sub(/:$/, "", lab); at[lab] = NR }
function insn(l) { return l ~ /^\t[a-z]/ && l !~ /^\t\./ }
function label(l) { if (l !~ /^[^ \t].*:$/) return ""; sub(/:$/, "", l); return l }
function cond(op) { return op ~ /^(b\.[a-z]+|cbn?z|tbn?z)$/ }
END {
  if (whole) {
    print "# LLVM-MCA-BEGIN"
    for (j = fs + 1; j <= NR; j++) {
      c = L[j]
      if (!insn(c)) continue
      if (c ~ /^\tret/) { print "# LLVM-MCA-END"; exit }
      if (c ~ /^\t(b|b\.[a-z]+|cbn?z|tbn?z)\t/) break
      print c
    }
    print "# bad: not straight-line"
    exit
  }
  for (i = fs; i <= NR && L[i] !~ /LLVM-MCA-BEGIN/; i++)
    if (i > fs && L[i] ~ /\.cfi_endproc/) { print "# bad: no marker"; exit }
  if (i > NR) { print "# bad: no marker"; exit }
  head = ""
  if (loop) {
    for (h = i; h > fs && label(L[h]) == ""; h--);
    if (h <= fs) { print "# bad: no loop label"; exit }
    head = label(L[h])
    i = h
  }
  print "# LLVM-MCA-BEGIN"
  for (i++; steps++ < 20000; i++) {
    l = L[i]
    if (!loop && l ~ /LLVM-MCA-END/) { print "# LLVM-MCA-END"; exit }
    if (!loop && l ~ /LLVM-MCA-BEGIN/) break
    if (l ~ /\.cfi_endproc/) break
    if ((lb = label(l)) != "") {
      if (loop && lb == head) { print "# LLVM-MCA-END"; exit }
      seen[lb] = 1
    }
    if (!insn(l)) continue
    n = split(l, f, /[ \t,]+/)
    if (cond(f[2])) {
      print l
      if (loop && f[n] == head) { print "# LLVM-MCA-END"; exit }
      if (f[n] in seen) { print "# bad: inner loop"; exit }
      continue
    }
    if (f[2] == "b") {
      print l
      if (loop && f[3] == head) { print "# LLVM-MCA-END"; exit }
      if (!(f[3] in at) || (f[3] in seen)) break
      i = at[f[3]] - 1
      continue
    }
    print l
  }
  print "# bad: the walk did not close"
}
