#!/usr/bin/env bash
# Model figures (not timings) for the armv8 tier's steady-state loops:
# cycles per 16-byte block from llvm-mca (LLVM 16's pipeline models) for
# ECB and OCB 1.0 encryption, AES-128. Nothing here runs ARM code.
#
# 1. Emits the crate's aarch64 assembly (release profile, one codegen
#    unit, v0 symbol names so the const generics show) in a model-only
#    build: `--cfg blockmodes_mca` puts `# LLVM-MCA-BEGIN` / `END` markers
#    (empty `asm!` comments) around the body of the kernels' eight-block
#    loop (`armv8/kernel.rs`);
# 2. cuts out one entry, `armv8::kernel::entry::<10, DEC, SRC, POST, SUM,
#    STORE>` (AES-128), whose one marked region is that loop's body;
# 3. runs llvm-mca-16 on it for each model; cycles per block = the
#    region's cycles per iteration / 8.
#
# Needs: the aarch64 target (rustup), llvm-16 (Debian: apt-get install
# llvm-16). Usage: tools/mca/armv8.sh [cpu ...] (default: neoverse-n1
# neoverse-v1 apple-m1). The models are coarse: none fuses AESE+AESMC,
# apple-m1 is LLVM's Cyclone model; a user with an ARM machine measures
# with `blockmodes bench` (ratios to ECB on the same tier).
set -euo pipefail
cd "$(dirname "$0")/../.."
cpus=("$@")
[ ${#cpus[@]} -gt 0 ] || cpus=(neoverse-n1 neoverse-v1 apple-m1)
mca=${LLVM_MCA:-llvm-mca-16}
filt=${LLVM_CXXFILT:-llvm-cxxfilt-16}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
asm=target/mca-armv8.s # a fixed path: cargo skips the build when nothing changed
[ -n "${MCA_NO_BUILD:-}" ] || cargo rustc -q -p blockmodes --lib --release --target aarch64-unknown-linux-gnu -- \
  --cfg blockmodes_mca --emit asm="$PWD/$asm" -C symbol-mangling-version=v0 -C codegen-units=1 \
  -C debuginfo=0

# The assembly of the function whose demangled name contains $1, cut
# from the mangled file (llvm-mca cannot parse demangled names) by the
# line numbers the demangled copy gives (llvm-cxxfilt maps line to line).
fn_of() {
  local range
  range=$("$filt" < "$asm" | awk -v want="$1" '
    /^[^ \t].*:$/ && !s && index($0, want) { s = NR + 1 }
    s && !e && /\.cfi_endproc/ { e = NR }
    END { print s "," e }
  ')
  # llvm-mca 16 finds its region markers in `#` comments on aarch64
  sed -n "${range}p" "$asm" | sed 's|// LLVM-MCA-|# LLVM-MCA-|'
}

printf "%-34s" "loop (AES-128, per 16-byte block)"
for c in "${cpus[@]}"; do printf "%14s" "$c"; done
printf "\n"
for spec in "ecb-encrypt:entry::<10, false, 0, false, 0, true>" \
            "ocb1-encrypt (gray, sum in):entry::<10, false, 2, true, 1, true>" \
            "ocb1-decrypt (gray, sum out):entry::<10, true, 2, true, 2, true>" \
            "pmac sigma (gray, sum out):entry::<10, false, 2, false, 2, false>" \
            "xex (slice offsets):entry::<10, false, 1, true, 0, true>"; do
  name=${spec%%:*}; sym=${spec#*:}
  fn_of "$sym" > "$tmp/fn.s"
  # the marked region's AESE/AESD count (80 for eight AES-128 blocks)
  aes=$(awk '/LLVM-MCA-BEGIN/ { on = 1 } /LLVM-MCA-END/ { on = 0 } on && /\taes[ed]\t/ { n++ } END { print n + 0 }' "$tmp/fn.s")
  printf "%-34s" "$name"
  # A loop laid out rotated (its marked body split around the latch, END
  # before BEGIN in the text) has no contiguous region: not modelled.
  if ! awk '/LLVM-MCA-END/ && !b { bad = 1 } /LLVM-MCA-BEGIN/ { b = 1 } END { exit bad }' "$tmp/fn.s"; then
    printf "   n/a: the loop is laid out rotated (no contiguous region)\n"
    continue
  fi
  for c in "${cpus[@]}"; do
    cyc=$("$mca" -mtriple=aarch64 -mcpu="$c" -iterations=200 "$tmp/fn.s" 2>/dev/null \
      | awk '!got && /^Total Cycles:/ { print $3; got = 1 }')
    # blocks per iteration: the AESE/AESD count / 10 rounds
    awk -v c="$cyc" -v a="$aes" 'BEGIN { printf "%14.2f", c / 200 / (a / 10) }'
  done
  printf "   (%s AES ops per iteration)\n" "$aes"
done
