#!/usr/bin/env bash
# Model figures (not timings) for the armv8 tier's steady-state loops:
# cycles per 16-byte block from llvm-mca (LLVM 16's pipeline models), AES-128,
# for each fused loop next to the engine's own ECB loop and to the generic
# path (the modes over the `aes` crate's `Aes128`), with the issue's
# targets checked. Nothing here runs ARM code natively (the generic path's
# instructions are traced under qemu-aarch64, not timed).
#
# 1. Emits the crate's aarch64 assembly (release profile, one codegen
#    unit, v0 symbol names so the const generics show) in a model-only
#    build: `--cfg blockmodes_mca` puts `# LLVM-MCA-BEGIN` / `END` markers
#    (empty `asm!` comments) around the body of the kernels' eight-block
#    loop (`armv8/kernel.rs`) and builds `src/mca.rs`, the generic path's
#    whitening passes over one 8-block batch, each marked;
# 2. cuts each marked region out of the function whose demangled name is
#    given, in execution order (`region.awk`: from BEGIN along the
#    fall-through path, following unconditional branches, so a loop LLVM
#    laid out rotated is one region too);
# 3. runs llvm-mca-16 on it for each model; cycles per block = the
#    region's cycles per iteration / its blocks (its AESE/AESD count / 10
#    for the kernels, 8 for the passes).
#
# The generic path, two figures:
# * `passes`, the old lower bound: the `aes` crate's batch call
#   (`batch_encrypt`/`batch_decrypt::<11, U8>`, straight-line, the whole
#   body as the region) plus each of the mode's whitening passes
#   (`src/mca.rs`, the modes' own helpers), summed per block; its control
#   (batch bookkeeping, Gray-code runs, ntz, the call, the copies) left out;
# * `full`, the gated one: the generic path as it runs. Its loop
#   (`oracle::calls::run_batches` around the modes' `ParWork`) has inner
#   loops and data-dependent branches (the Gray-code group test, the runs
#   of offsets), so no static walk of the assembly gives its common path.
#   The script builds `examples/mca_generic.rs` (the mode over the `aes`
#   crate's `Aes128` with `from_cipher`: the generic tier), runs it under
#   `qemu-aarch64 -cpu max -singlestep -d exec,nochain` (each executed
#   instruction's address, in order), and cuts `trips` whole trips of the
#   steady-state loop out of the trace (`trace.awk`: from one call of the
#   batch function to a later one, callee included), mapped back to the
#   binary's instructions (objdump). 8 trips = 64 blocks, one Gray-code
#   group (its group change included); XEX's sector path: 264 trips, 64
#   units of 512 bytes (their E_K(N) batch calls and group deltas
#   included). llvm-mca models a call (`bl`) with a 100-cycle latency on
#   the link register, which the `ret` then waits for; a CPU predicts the
#   return (return stack), so the cut has `b` for `bl`, one branch as in
#   the pipeline. The binary is the workspace's release profile (thin LTO,
#   one codegen unit), the code a release build of a program runs.

# Gates (exit status 1 if one is missed) on neoverse-n1 and neoverse-v1:
# each fused loop at >= its target x the ECB loop's speed (ECB cycles /
# loop cycles), and >= 1.5x the generic path's (`full`) speed where the
# issue asks (OCB 1.0, PMAC, XEX). A 1.5x row whose generic path runs
# under 1.5x the ECB loop's cycles is printed "out of reach", not failed:
# it would need a fused loop faster than ECB, and a fused loop does at
# least ECB's work. apple-m1 (LLVM's Cyclone model) is printed as a
# sanity check only. The models are coarse: none fuses AESE+AESMC; a user
# with an ARM machine measures with `blockmodes bench` (ratios to ECB on
# the same tier).
#
# Needs: the aarch64 target (rustup), llvm-16 (Debian: apt-get install
# llvm-16), qemu-user and gcc-aarch64-linux-gnu (for the generic path's
# trace). Usage: tools/mca/armv8.sh [cpu ...] (default: neoverse-n1
# neoverse-v1 apple-m1); MCA_NO_BUILD=1 reuses the last assembly.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=tools/mca
cpus=("$@")
[ ${#cpus[@]} -gt 0 ] || cpus=(neoverse-n1 neoverse-v1 apple-m1)
mca=${LLVM_MCA:-llvm-mca-16}
filt=${LLVM_CXXFILT:-llvm-cxxfilt-16}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
asm=target/mca-armv8.s # a fixed path: cargo skips the build when nothing changed
# LTO off: with the release profile's thin LTO, `--emit asm` writes the
# pre-link code, before the loop vectorizer and unroller run (the passes'
# byte loops stay scalar there); without it the emitted code is final.
[ -n "${MCA_NO_BUILD:-}" ] || CARGO_PROFILE_RELEASE_LTO=false cargo rustc -q -p blockmodes --lib --release --target aarch64-unknown-linux-gnu -- \
  --cfg blockmodes_mca --emit asm="$PWD/$asm" -C symbol-mangling-version=v0 -C codegen-units=1 \
  -C debuginfo=0
"$filt" < "$asm" > "$tmp/demangled.s" # line for line: llvm-cxxfilt maps each line

# The generic path's driver (see above), its disassembly and the load
# address of a PIE under qemu-aarch64 (checked: a cut that finds too few
# batch calls there is `# bad`).
ex=target/aarch64-unknown-linux-gnu/release/examples/mca_generic
[ -n "${MCA_NO_BUILD:-}" ] || CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc \
  cargo build -q -p blockmodes --release --example mca_generic --target aarch64-unknown-linux-gnu
qbase=${MCA_QEMU_BASE:-0x5500000000}
aarch64-linux-gnu-objdump -d --no-show-raw-insn "$ex" > "$tmp/ex.dis"
# the address of the one function named $1 (`# bad` if not exactly one)
addr_of() {
  awk -v want="$1" '/^[0-9a-f]+ <.*>:$/ && index($0, want) { n++; a = $1 } END { if (n == 1) print a }' "$tmp/ex.dis"
}
# `full` region of mode $1 (the driver's argument): $2 trips from call $3
# of the batch function $4; a trip's blocks: 8 (`.blocks`: the data's
# blocks only, not the E_K(N) ones of the sector path)
trace_region() {
  local entry
  entry=$(addr_of "$4")
  [ -n "$entry" ] || { echo "# bad: $4 not found once in $ex"; return; }
  [ -f "$tmp/trace-$1.log" ] ||
    qemu-aarch64 -cpu max -L /usr/aarch64-linux-gnu -singlestep -d exec,nochain -D "$tmp/trace-$1.log" "$ex" "$1"
  awk -v base="$qbase" -v entry="$entry" -v from="$3" -v trips="$2" -f "$here/trace.awk" "$tmp/ex.dis" "$tmp/trace-$1.log" |
    sed 's/^\tbl\t/\tb\t/'
}

# The marked region of the first function whose demangled name contains
# $1 (llvm-mca cannot parse demangled names: cut from the mangled file).
# A name starting with `whole:` takes the function's whole (straight-line)
# body, one with `loop:` one trip around the marked loop (`region.awk`).
region_of() {
  local start want=${1#*:} mode=${1%%:*} whole=0 loop=0
  case $mode in whole) whole=1 ;; loop) loop=1 ;; *) want=$1 ;; esac
  start=$(awk -v want="$want" '/^[^ \t].*:$/ && index($0, want) { print NR; exit }' "$tmp/demangled.s")
  [ -n "$start" ] || { echo "# bad: $want not found"; return; }
  awk -v fs="$start" -v whole="$whole" -v loop="$loop" -f "$here/region.awk" "$asm"
}

# cycles per block of region file $1 on cpu $2 (blocks: the AES ops / 10,
# or 8 for a pass without any; a file `$1.blocks` overrides, for a loop
# with more than one cipher call a block)
per_block() {
  local aes cyc iters=200
  # long cuts (the traces): fewer iterations, the same steady state
  [ "$(wc -l < "$1")" -lt 4000 ] || iters=20
  aes=$(awk '/^\taes[ed]\t/ { n++ } END { print n + 0 }' "$1")
  [ ! -f "$1.blocks" ] || aes=$((10 * $(cat "$1.blocks")))
  # (+sha3: the `EOR3` kernels; without it llvm-mca drops the instructions
  # it cannot parse and models the rest. Any such error now fails the run.)
  cyc=$("$mca" -mtriple=aarch64 -mcpu="$2" -mattr=+sha3 -iterations="$iters" "$1" 2>"$1.err" \
    | awk '!got && /^Total Cycles:/ { print $3; got = 1 }')
  if grep -q 'error:' "$1.err"; then
    echo "llvm-mca could not parse $1 for $2: $(grep -m1 -A1 'error:' "$1.err" | tr -s ' \n' ' ')" >&2
    exit 1
  fi
  awk -v c="$cyc" -v a="$aes" -v it="$iters" 'BEGIN { b = a ? a / 10 : 8; printf "%.2f", c / it / b }'
}

# the generic path per block on cpu $1: the sum of the regions $tmp/g*.s
generic_per_block() {
  local f t=0
  for f in "$tmp"/g*.s; do
    t=$(awk -v t="$t" -v c="$(per_block "$f" "$1")" 'BEGIN { printf "%.2f", t + c }')
  done
  echo "$t"
}

# name | symbol of the fused loop | target x ECB | the generic path's
# `passes` parts, space-separated ("" if not compared) | its `full` cut:
# the driver's mode, trips, first call, batch function
be=whole:aes::backends::aarch64_aes::encdec::batch_encrypt::\<11,
bd=whole:aes::backends::aarch64_aes::encdec::batch_decrypt::\<11,
m=blockmodes::mca::
specs=(
  "ecb|loop:kernel::plain::entry::<10, false, 0, false, 0, true>|1|"
  "ocb1-encrypt|loop:kernel::{k}::entry::<10, false, 2, true, 1, true>|0.85|$be ${m}offsets: ${m}xor_sum_in: ${m}xor:|ocb1-encrypt 8 64 batch_encrypt"
  "ocb1-decrypt|loop:kernel::{k}::entry::<10, true, 2, true, 2, true>|0.85|$bd ${m}offsets: ${m}xor: ${m}xor_sum_out:|ocb1-decrypt 8 64 batch_decrypt"
  "pmac|loop:kernel::plain::entry::<10, false, 2, false, 2, false>|0.85|$be ${m}offsets: ${m}xor: ${m}sum:|pmac 8 64 batch_encrypt"
  "xex|loop:kernel::{k}::entry::<10, false, 1, true, 0, true>|0.85|$be ${m}xex_deltas: ${m}xor: ${m}xor:|xex 8 64 batch_encrypt"
  "xex-sectors|loop:kernel::{k}::entry::<10, false, 1, true, 0, true>|0.85||xex-sectors 264 264 batch_encrypt"
  "xecb-mac|loop:kernel::xecb_sum::<10>|0.8|"
  "xcbc-decrypt|loop:kernel::{k}::xcbc_decrypt::<10>|0.8|"
)
# CWC's counter mode (`armv8/ctr.rs`: counter blocks made in registers)
specs+=("cwc-ctr|loop:ctr::{k}::ctr32::<10>|0.9|")
# EME (issue 24): its two passes (`armv8/wide.rs`), each a loop; `eme` is
# their sum per block (a block goes through both), the middle (one block
# per data unit, in the driver) left out. EME2 runs the same two loops.
# The passes alone are printed, not gated (target `-`).
w="wide::pass::<10,"
specs+=(
  "eme-first|loop:$w false, false>|-|"
  "eme-last|loop:$w false, true>|-|"
  "eme|loop:$w false, false>+loop:$w false, true>|0.45|"
  "eme-decrypt|loop:$w true, false>+loop:$w true, true>|0.45|"
)
# EtE (EME over StE[XEX], `SteXex` in `armv8/wide.rs`): three AES calls a
# block and StE's swap (twice in the pass with the ECB layer: its trip is
# 8 blocks, 16 cipher calls); no target in the issue, printed only.
w="wide::ste_pass::<"
specs+=(
  "ete|loop:${w}false, false>@8+loop:${w}false, true>@8|-|"
  "ete-decrypt|loop:${w}true, false>@8+loop:${w}true, true>@8|-|"
)
# pXCBC$ encryption's lock-step chains (`armv8/chains.rs`): one round of
# eight independent XCBC chains, 80 AESE (8 blocks) a trip; a chain's z
# is carried from trip to trip, so the model sees the AES latency too.
# No target in the issue: printed only (`-`).
specs+=("pxcbc-chains|loop:chains::chains::<10, 8>|-|")
gate() { [ "$1" = neoverse-n1 ] || [ "$1" = neoverse-v1 ]; }
# `{k}` in a loop's symbol: the kernel compiled twice, plain and with
# FEAT_SHA3's `EOR3` (chosen at run time, `AesKey::has_eor3`); each CPU
# model gets the one that CPU runs: `sha3` where the core has FEAT_SHA3
# (neoverse-v1, apple-m1; LLVM's models of them have the feature), `plain`
# on neoverse-n1 (Armv8.2, no SHA-3) and any other.
variant() { case $1 in neoverse-v1 | apple-m1) echo sha3 ;; *) echo plain ;; esac; }

echo "llvm-mca: $("$mca" --version | awk '/LLVM version/ { print $NF }'); AES-128, cycles per 16-byte block (x ECB speed) [generic path: passes (summed, old); full (traced), fused/full speed]"
printf "%-14s" "loop"
for c in "${cpus[@]}"; do printf "  %-42s" "$c"; done
printf "\n"
declare -A ecb
fail=0
for spec in "${specs[@]}"; do
  IFS='|' read -r name sym target gsym full <<< "$spec"
  printf "%-14s" "$name"
  # A sum of loops (`a+b`: each block goes through both): one region file
  # each, their cycles per block added.
  rm -f "$tmp"/fused*.s "$tmp"/fused*.blocks
  vars=(plain)
  case $sym in *'{k}'*) vars=(plain sha3) ;; esac
  for var in "${vars[@]}"; do
    k=0
    IFS='+' read -r -a parts <<< "${sym//\{k\}/$var}"
    for part in "${parts[@]}"; do
      k=$((k + 1))
      # `name@N`: the loop's trip is N blocks (not its AES calls / 10)
      case $part in *@*) echo "${part##*@}" > "$tmp/fused-$var-$k.s.blocks"; part=${part%@*} ;; esac
      region_of "$part" > "$tmp/fused-$var-$k.s"
    done
  done
  cat "$tmp"/fused-*-[0-9]*.s > "$tmp/fused.s"
  have_g=
  rm -f "$tmp"/g*.s
  if [ -n "$gsym" ]; then
    have_g=1
    k=0
    for part in $gsym; do
      k=$((k + 1))
      region_of "${part//\\/}" > "$tmp/g$k.s"
      grep -q '^# bad' "$tmp/g$k.s" && have_g=
    done
  fi
  have_full=
  if [ -n "$full" ]; then
    read -r fmode ftrips ffrom ffn <<< "$full"
    trace_region "$fmode" "$ftrips" "$ffrom" "$ffn" > "$tmp/full.s"
    # the data's blocks: 8 a trip, less the sector path's E_K(N) calls
    # (one per 512-byte unit: 64 a period of 264 trips)
    if [ "$fmode" = xex-sectors ]; then echo 2048 > "$tmp/full.s.blocks"; else rm -f "$tmp/full.s.blocks"; fi
    if grep -q '^# bad' "$tmp/full.s"; then
      echo "generic path of $name: $(grep -m1 '^# bad' "$tmp/full.s")" >&2
    else
      have_full=1
    fi
  fi
  if grep -q '^# bad' "$tmp/fused.s"; then
    printf "  n/a: %s\n" "$(grep '^# bad' "$tmp/fused.s" | head -1)"
    fail=1
    continue
  fi
  for c in "${cpus[@]}"; do
    f=0
    var=plain
    [ "${#vars[@]}" = 1 ] || var=$(variant "$c")
    for part in "$tmp"/fused-$var-[0-9]*.s; do
      f=$(awk -v t="$f" -v c="$(per_block "$part" "$c")" 'BEGIN { printf "%.2f", t + c }')
    done
    [ "$name" = ecb ] && ecb[$c]=$f
    x=$(awk -v e="${ecb[$c]}" -v f="$f" 'BEGIN { printf "%.2f", e / f }')
    cell="$f ($x)"
    ok=$(awk -v x="$x" -v t="$target" 'BEGIN { print (t == "-" || x + 0.005 >= t) ? 1 : 0 }')
    if [ -n "$have_g" ]; then
      g=$(generic_per_block "$c")
      cell="$cell [$g"
    elif [ -n "$gsym" ]; then
      cell="$cell [n/a"
    elif [ -n "$full" ]; then
      cell="$cell [-"
    fi
    reach=
    if [ -n "$have_full" ]; then
      G=$(per_block "$tmp/full.s" "$c")
      s=$(awk -v g="$G" -v f="$f" 'BEGIN { printf "%.2f", g / f }')
      cell="$cell; $G, ${s}x]"
      ok=$(awk -v ok="$ok" -v s="$s" 'BEGIN { print (ok && s + 0.005 >= 1.5) ? 1 : 0 }')
      # Out of reach: 1.5x would need a loop faster than the ECB loop
      # (generic / ECB < 1.5), which no loop doing ECB's work is. Printed,
      # not failed.
      reach=$(awk -v g="$G" -v e="${ecb[$c]}" 'BEGIN { r = g / e; if (r < 1.5) printf "%.2f", r }')
    elif [ -n "$full" ]; then
      cell="$cell; full n/a]"
      ok=0
    elif [ -n "$gsym" ]; then
      cell="$cell]"
    fi
    if gate "$c" && [ "$ok" = 0 ]; then
      if [ -n "$reach" ] && awk -v x="$x" -v t="$target" 'BEGIN { exit !(x + 0.005 >= t) }'; then
        cell="$cell out of reach (generic/ECB ${reach})"
      else
        cell="$cell MISSED"
        fail=1
      fi
    fi
    printf "  %-42s" "$cell"
  done
  if [ "$name" = ecb ]; then
    printf "\n"
  elif [ "$target" = - ]; then
    printf "  (not gated)\n"
  else
    printf "  target >= %sx ECB%s\n" "$target" "${full:+, >= 1.5x generic (full)}"
  fi
done
if [ "$fail" = 0 ]; then
  echo "every target met on neoverse-n1 and neoverse-v1 (apple-m1: a sanity check, not gated)"
else
  echo "a target is MISSED (or a loop not found) on neoverse-n1/neoverse-v1" >&2
fi
exit "$fail"
