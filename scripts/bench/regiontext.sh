#!/usr/bin/env bash
# Region text benchmark: the wall time of writing 2, 8 and 16 MiB (less one byte, under the
# 16 MiB limit) of blanks into packs/<name>.region on a fresh mount, by `cp` (its own write
# size) and by `dd bs=4k` (4 KiB writes, a shell loop's pattern); then 100 MiB, which fails at
# the limit (EFBIG). Judging must stay linear in the text's size: 4 times the text, about 4
# times the time. usage: regiontext.sh (PACKFS_BIN=path/to/packfs skips the release build)
set -euo pipefail
source "$(dirname "$0")/common.sh"
bench_start regiontext
fresh_mount_dir
trap 'fusermount3 -u "$work/mnt" 2>/dev/null || true' EXIT
for mib in 2 8 16 100; do head -c $((mib * 1048576 - 1)) /dev/zero | tr '\0' ' ' >"$work/blank$mib"; done
mount_db "$work/packs.db" "$work/mnt"
for mib in 2 8 16; do
  timed by_cp cp "$work/blank$mib" "$work/mnt/packs/cp$mib.region" || true
  timed by_dd dd if="$work/blank$mib" of="$work/mnt/packs/dd$mib.region" bs=4k status=none || true
  echo "$mib MiB of blanks: cp $by_cp s, dd bs=4k $by_dd s"
  record "region text $mib MiB cp s" "$by_cp"
  record "region text $mib MiB dd s" "$by_dd"
done
timed by_cp cp "$work/blank100" "$work/mnt/packs/big.region" 2>"$work/cp.err" || true
echo "100 MiB: cp $by_cp s: $(cat "$work/cp.err"); big.error: $(cat "$work/mnt/packs/big.error")"
unmount_db "$work/packs.db" "$work/mnt"
