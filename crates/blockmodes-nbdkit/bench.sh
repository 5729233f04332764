#!/usr/bin/env bash
# Sequential read of a 1 GiB export through NBD: `nbdcopy URI null:` from the
# blockmodes plugin (each cipher) and from nbdkit's own `file` plugin serving
# the plaintext image, with the same nbdkit options (-f -U SOCKET, default
# threads) and the same nbdcopy options (connections, requests, request size).
# Rounds interleave the exports; each export's GB/s (min / median / max) and
# its median ratio to the plain export within a round are printed.
#
#   bash crates/blockmodes-nbdkit/bench.sh            # 1 GiB, 7 rounds, 4 connections
#   SIZE_MIB=256 ROUNDS=3 CONNECTIONS=1 bash crates/blockmodes-nbdkit/bench.sh
#
# Needs nbdkit and libnbd-bin (nbdcopy). The images stay in the page cache:
# this measures the plugin and the cipher, not the disk.
set -euo pipefail
cd "$(dirname "$0")/../.."
size_mib=${SIZE_MIB:-1024}
rounds=${ROUNDS:-7}
conns=${CONNECTIONS:-4}
ciphers=${CIPHERS:-ete eme xex}

cargo build --release -q -p blockmodes-cli -p blockmodes-nbdkit
bin=$PWD/target/release/blockmodes
plugin=$PWD/target/release/libblockmodes_nbdkit.so

tmp=$(mktemp -d)
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

"$bin" keygen -o "$tmp/k"
head -c "${size_mib}M" /dev/urandom > "$tmp/plain"
for c in $ciphers; do
  "$bin" disk encrypt -q --cipher "$c" --key-file "$tmp/k" "$tmp/plain" -o "$tmp/$c.img"
done

# start NAME PLUGIN ARGS...: nbdkit on $tmp/NAME.sock, waits for its PID file.
start() {
  local name=$1; shift
  rm -f "$tmp/pid" "$tmp/$name.sock"   # nbdkit 1.32 leaves its socket behind
  nbdkit -f -U "$tmp/$name.sock" -P "$tmp/pid" "$@" &
  server=$!
  for _ in $(seq 500); do [ -s "$tmp/pid" ] && return 0; sleep 0.02; done
  echo "nbdkit ($name) did not start" >&2; exit 1
}
stop() { kill "$server"; wait "$server" 2>/dev/null || true; server=""; }

# copy NAME: seconds for nbdcopy of the export to null:.
copy() {
  local t0 t1
  t0=$(date +%s.%N)
  nbdcopy --connections="$conns" "nbd+unix:///?socket=$tmp/$1.sock" null:
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'
}

exports="plain $ciphers"
: > "$tmp/results"
for r in $(seq 0 "$rounds"); do
  for e in $exports; do
    if [ "$e" = plain ]; then
      start "$e" file "$tmp/plain"
    else
      start "$e" "$plugin" "$tmp/$e.img" cipher="$e" keyfile="$tmp/k"
    fi
    s=$(copy "$e")
    stop
    # round 0 warms the page cache and is not counted
    [ "$r" -gt 0 ] && echo "$r $e $s" >> "$tmp/results"
  done
done

echo "# CPU: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(nproc) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $(nbdkit --version), $(nbdcopy --version | head -1); ${size_mib} MiB export, nbdcopy --connections=$conns, $rounds rounds"
awk -v mib="$size_mib" '
  { gbps = mib * 1048576 / $3 / 1e9; v[$2] = v[$2] " " gbps; g[$1, $2] = gbps; names[$2] = 1; rounds[$1] = 1 }
  function sort(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t } }
  function median(a, n) { return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2 }
  END {
    printf "%-8s %8s %8s %8s %10s\n", "export", "min", "median", "max", "x plain"
    split("plain ete eme xex eme2", order, " ")
    for (k = 1; k <= 5; k++) {
      e = order[k]; if (!(e in names)) continue
      n = split(substr(v[e], 2), a, " "); sort(a, n)
      m = 0; for (r in rounds) { m++; q[m] = g[r, e] / g[r, "plain"] }; sort(q, m)
      printf "%-8s %8.2f %8.2f %8.2f %10.2f\n", e, a[1], median(a, n), a[n], median(q, m)
    }
  }' "$tmp/results"
echo "# GB/s = 10^9 bytes/s of plaintext; x plain = median over rounds of (export GB/s / plain GB/s in the same round)"
