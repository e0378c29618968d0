#!/usr/bin/env bash
# Opening a time in a week-long history store (bench/bench-store-gen.c writes
# it through the store's own writer, on an explicit clock: a host's tree of
# about --groups groups every --interval seconds for --days days, with
# counters that move, jobs and containers that come and go, and the
# writer's daily shards and retention; --warmup-hours more before them,
# which retention deletes).
#
# Per round, each way a process of its own, the ways interleaved:
#   open-start, open-mid, open-end   mc_store_open + mc_store_seek to a time
#                 near the start (5 minutes after the first sample), the
#                 middle, the end (5 minutes before the last) + close
#                 (bench-record open DIR 1 TIME)
#   open-aa       open-mid again: the A/A control
#   open-cold     open-mid after the files of its shard were written back
#                 and dropped from the page cache (posix_fadvise on the
#                 store's own files: bench-record evict)
#   top-start, top-mid, top-end, top-aa   `memctl top -b --replay DIR -t
#                 @TIME -n 1` (the first screen, the whole tree, in batch)
#                 as a process: wall and CPU (user + system)
# Medians with quartiles (bench/stats.sh), p: Mann-Whitney against the
# mid way of the same kind (open-mid, top-mid). Besides: the store's size
# on disk per day (each full UTC day is a shard; its data and index files),
# per group and sample, and the generator's own CPU and wall time.
#
#   bench/store-week.sh [--quick] [--groups 1000] [--days 7] [--interval 5]
#                       [--version 1] [--rounds 11] [--max-size-mb 4096]
#
# --max-size-mb is the writer's --max-size: the generator's default 4096
# keeps the week (memctl record's default 1G keeps fewer days at this rate:
# the row "days 1G holds" says how many). The store is written to /var/tmp
# and removed at the end. --quick: 30 groups, 2 days at 60 s, 2 rounds; it
# checks the store's shape (retention removed the warm-up, the days are
# there, groups came and went) and asserts nothing about time.
. "$(dirname "$0")/lib.sh"
GEN=$BUILD/bench/bench-store-gen
REC=$BUILD/bench/bench-record
need_bin "$GEN"
need_bin "$REC"

NGROUPS=1000 DAYS=7 INTERVAL=5 VERSION=1 ROUNDS=11 MAXMB=4096
[ "$B_QUICK" = 1 ] && NGROUPS=30 DAYS=2 INTERVAL=60 ROUNDS=2
parse_opts "[--groups 1000] [--days 7] [--interval 5] [--version 1] [--rounds 11] [--max-size-mb 4096]" \
	groups days interval version rounds max-size-mb
NGROUPS=${OPT_GROUPS:-$NGROUPS} DAYS=${OPT_DAYS:-$DAYS} INTERVAL=${OPT_INTERVAL:-$INTERVAL}
VERSION=${OPT_VERSION:-$VERSION} ROUNDS=${OPT_ROUNDS:-$ROUNDS} MAXMB=${OPT_MAX_SIZE_MB:-$MAXMB}
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "--rounds takes a count"

# about 40 bytes a group and sample at most (the store's target), twice over
need=$(awk -v g="$NGROUPS" -v d="$DAYS" -v i="$INTERVAL" 'BEGIN { printf "%d", g * (d + 1) * 86400 / i * 80 / 1024 }')
avail=$(df -Pk /var/tmp | awk 'NR == 2 { print $4 }')
[ "$avail" -gt "$need" ] || die "/var/tmp has $avail KiB free, the store may take $need"

T_TMP=$(mktemp -d /var/tmp/memctl-bench-store-week.XXXXXX)
trap 'rm -rf "$T_TMP"' EXIT
S=$T_TMP/store
echo "store-week: $NGROUPS groups, $DAYS days at ${INTERVAL}s, cgroup v$VERSION names," \
	"$ROUNDS rounds; load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC')"
"$GEN" "$S" --groups "$NGROUPS" --days "$DAYS" --interval "$INTERVAL" --version "$VERSION" \
	--retain-days "$DAYS" --max-size-mb "$MAXMB" > "$BENCH_RESULTS/gen.txt" || die "bench-store-gen failed"
gv() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' "$BENCH_RESULTS/gen.txt"; }
echo "generated: $(gv samples) samples, $(gv born) groups born, $(gv groups_min)-$(gv groups_max) groups a sample," \
	"$(gv cpu_s) s CPU, $(gv wall_s) s wall; load average now $(cut -d' ' -f1-3 /proc/loadavg)"

# the kept range: the first and the last sample, as replay reads them
at() { "$MEMCTL" top -b --replay "$S" -t "@$1" -n 1 -o json | sed -n 's/^{[^}]*"time":\([0-9.]*\),.*/\1/p' | head -1; }
first=$(at 1) last=$(at 4102444800)
[ -n "$first" ] && [ -n "$last" ] || die "the store does not replay"
span=$(awk -v a="$first" -v b="$last" 'BEGIN { printf "%.4f", (b - a) / 86400 }')
# shape: retention kept between DAYS and DAYS + 1 days, and the warm-up shard is gone
awk -v s="$span" -v d="$DAYS" -v i="$INTERVAL" 'BEGIN { exit !(s >= d - 2 * i / 86400 && s <= d + 1) }' ||
	die "the store spans $span days, not $DAYS to $DAYS + 1"
gen_first=$(gv first)
awk -v a="$first" -v g="$gen_first" -v i="$INTERVAL" 'BEGIN { exit !(a > g + i) }' ||
	die "retention kept the warm-up (the first sample at $first, written at $gen_first)"
[ "$(gv born)" -gt "$(gv groups_max)" ] || die "no group came or went"

# size: per shard, its samples (index entries) and bytes; full days are the shards between the ends
for f in "$S"/*.mci; do
	b=${f%.mci}
	printf '%s\t%d\t%d\n' "$(basename "$b")" $(( ($(stat -c %s "$f") - 32) / 32 )) \
		$(( $(stat -c %s "$f") + $(stat -c %s "$b.mcd") ))
done > "$BENCH_RESULTS/shards.tsv"
kept=$(awk -F'\t' '{ n += $2 } END { print n }' "$BENCH_RESULTS/shards.tsv")
bytes=$(awk -F'\t' '{ n += $3 } END { print n }' "$BENCH_RESULTS/shards.tsv")
per_day=$(awk -F'\t' 'NR > 1 { print $3 }' "$BENCH_RESULTS/shards.tsv" | head -n -1 | median)
groups_mean=$(awk -v a="$(gv groups_min)" -v b="$(gv groups_max)" 'BEGIN { print (a + b) / 2 }')

mid=$(awk -v a="$first" -v b="$last" 'BEGIN { printf "%d", (a + b) / 2 }')
start=$(awk -v a="$first" 'BEGIN { printf "%d", a + 300 }')
end=$(awk -v b="$last" 'BEGIN { printf "%d", b - 300 }')
# the files of the shard that holds the middle: the last named at or before it
mid_name=$(date -u -d "@$mid" +%Y%m%d-%H%M%S)
mid_shard=$(cd "$S" && ls *.mcd | awk -v m="$mid_name" '$0 <= m "~" { s = $0 } END { print s }')
mid_shard=${mid_shard%.mcd}
[ -n "$mid_shard" ] || die "no shard holds $mid"

RAW=$BENCH_RESULTS/store-week.raw
: > "$RAW"
open_at() { "$REC" open "$S" 1 "$2" | awk -F'\t' -v w="$1" 'NR == 2 { printf "%s\t%.3f\t%.3f\t%d\n", w, $2 / 1000, $3 / 1000, $4 }'; }
top_at() {
	local t
	t=$( { TIMEFORMAT='%3R %3U %3S'; time "$MEMCTL" top -b --replay "$S" -t "@$2" -n 1 > "$T_TMP/screen"; } 2>&1) ||
		die "memctl top --replay failed at $2"
	awk -v w="$1" -v t="$t" -v n="$(grep -c . "$T_TMP/screen")" \
		'BEGIN { split(t, a, " "); printf "%s\t%.3f\t%.3f\t%d\n", w, a[1] * 1000, (a[2] + a[3]) * 1000, n }'
}
for r in $(seq 1 "$ROUNDS"); do
	"$REC" evict "$S/$mid_shard.mcd" "$S/$mid_shard.mci"
	{
		open_at open-cold "$mid"
		open_at open-start "$start"
		open_at open-mid "$mid"
		open_at open-end "$end"
		open_at open-aa "$mid"
		top_at top-start "$start"
		top_at top-mid "$mid"
		top_at top-end "$end"
		top_at top-aa "$mid"
	} | sed "s/^/$r\t/" >> "$RAW"
done

tsv_header what value q1 q3 n target p note
col() { awk -F'\t' -v w="$1" -v c="$2" '$2 == w { print $c }' "$RAW"; }
row() { # what target note [p] < numbers
	local m q1 q3 n
	read -r m q1 q3 n < <(stats_summary)
	tsv_row "$1" "$(printf %.2f "$m")" "$(printf %.2f "$q1")" "$(printf %.2f "$q3")" "$n" "$2" "${4:--}" "$3"
}
for way in open-start open-mid open-end open-aa open-cold top-start top-mid top-end top-aa; do
	kind=${way%%-*}
	col "$way" 3 > "$T_TMP/$way.wall"
	col "$way" 4 > "$T_TMP/$way.cpu"
	shown=$(col "$way" 5 | median)
	for m in wall cpu; do
		p=-
		[ "$way" != "$kind-mid" ] && p=$(stats_mwu "$T_TMP/$way.$m" "$T_TMP/$kind-mid.$m" 2>/dev/null | cut -d' ' -f2)
		[ -z "$p" ] || [ "$p" = - ] || p=$(printf %.3g "$p")
		row "$way $m ms" "$([ "$m" = wall ] && echo '<= 50' || echo -)" \
			"$(case $kind in open) echo "$shown groups decoded" ;; top) echo "$shown lines printed" ;; esac)" \
			"${p:--}" < "$T_TMP/$way.$m"
	done
done
tsv_row "samples kept" "$kept" - - - "~$(awk -v d="$DAYS" -v i="$INTERVAL" 'BEGIN { printf "%d", d * 86400 / i }')" - \
	"$span days, $(wc -l < "$BENCH_RESULTS/shards.tsv") shards (shards.tsv)"
tsv_row "store MB" "$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')" - - - - - "data and index files"
tsv_row "MB per full day" "$(awk -v b="${per_day:-0}" 'BEGIN { printf "%.1f", b / 1048576 }')" - - - - - \
	"the median shard between the first and the last"
tsv_row "bytes/group/sample" "$(awk -v b="$bytes" -v n="$kept" -v g="$groups_mean" 'BEGIN { printf "%.2f", b / n / g }')" \
	- - - "<= 40" - "$groups_mean groups a sample on average"
tsv_row "days 1G holds" "$(awk -v b="${per_day:-0}" 'BEGIN { if (b > 0) printf "%.1f", 1073741824 / b; else print "-" }')" \
	- - - - - "memctl record's default --max-size"
tsv_row "generator CPU s" "$(gv cpu_s)" - - - - - "$(gv samples) samples written (warm-up included)"
tsv_row "generator wall s" "$(gv wall_s)" - - - - - "nice'd by the caller or not"
table
echo "value: median of the rounds (q1, q3 quartiles; n rounds); p: Mann-Whitney against the" \
	"mid way of its kind (open-aa and top-aa: the A/A control). Load average at the end:" \
	"$(cut -d' ' -f1-3 /proc/loadavg)"
