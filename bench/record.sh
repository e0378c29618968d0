#!/usr/bin/env bash
# The history store's costs, measured side by side (bench/bench-record.c):
#   - bytes on disk per group per sample: real groups below our own memory
#     cgroup recorded by the store's writer, after the first keyframe span
#     (steady state), and a synthetic store in which a quarter of the
#     groups' counters move every sample; with the other schemes of the
#     same records beside the store's (per-record zstd at other levels,
#     chunks of 32 records, a trained dictionary);
#   - recording cost: per round, the snapshot (mc_host_snapshot), the same
#     again (the A/A control), then the store's sample of it as memctl run
#     --record takes it (the extras: task counts, /proc files) and its
#     append; round by round over the snapshot's CPU: the append, the
#     extras, and both together, the whole recording cost (target <= 0.10);
#     the release of the sample before (the last snapshot's free) is timed
#     apart and left out: a snapshot is freed whether it is recorded or not;
#     beside them the task counts as they were read before (an open of each
#     group's cgroup.procs by path).
#     Rounds are --gap apart (default 2.1 s; a recorder samples every 5 s by
#     default, and cgroup v1's task counts are read through a kept
#     descriptor only 2 s after the last read, see host/subtree.c);
#   - opening a time (mc_store_open + seek to a pseudo-random time + close)
#     in the recorded store; in a week-long store: bench/store-week.sh;
#   - stepping: mc_store_next and mc_store_prev in the recorded store.
#
#   bench/record.sh [--quick] [--groups 1000] [--rounds 96] [--gap 2.1] [--busy 0]
#
# --busy N puts a sleeping process in each of the first N groups. On cgroup
# v1 an empty group's processes are not read until its cgroup.procs or
# tasks is written, and a group's that holds some only when the kernel
# reports a fork or an exit of one of them, a write, or at every 16th
# sample (see host/subtree.c); --busy 1000 measures the latter.
#
# Medians with the first and third quartile over the rounds (bench/stats.sh);
# p: two-sided Mann-Whitney test against the snapshot's own rounds. --quick
# runs tiny sizes to prove it still runs; it asserts nothing.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
B=$BUILD/bench/bench-record
need_bin "$B"

NGROUPS=1000 ROUNDS=96 GAP=2.1 OPEN_ROUNDS=21 STEP_ROUNDS=200
[ "$B_QUICK" = 1 ] && NGROUPS=20 ROUNDS=16 GAP=0 OPEN_ROUNDS=3 STEP_ROUNDS=10
parse_opts "[--groups 1000] [--rounds 96] [--gap 2.1] [--busy 0]" groups rounds gap busy
NGROUPS=${OPT_GROUPS:-$NGROUPS} ROUNDS=${OPT_ROUNDS:-$ROUNDS} BUSY=${OPT_BUSY:-0}
case $BUSY in ''|*[!0-9]*) die "--busy takes a number of groups" ;; esac
[ "$BUSY" -le "$NGROUPS" ] || die "--busy must be at most --groups"
GAP=${OPT_GAP:-$GAP}
GAP_MS=$(awk -v g="$GAP" 'BEGIN { if (g !~ /^[0-9]+(\.[0-9]+)?$/) exit 1; printf "%d", g * 1000 }') ||
	die "--gap takes seconds (2.1)"
WARM=8   # the first keyframe span: the steady state begins after it
[ "$ROUNDS" -gt $((WARM + 4)) ] || die "--rounds must be more than $((WARM + 4))"

host_line
T_TMP=$(mktemp -d /var/tmp/memctl-bench-record.XXXXXX)
SLEEPERS=()
stop_sleepers() {
	[ ${#SLEEPERS[@]} -gt 0 ] && { kill "${SLEEPERS[@]}"; wait "${SLEEPERS[@]}"; } 2> /dev/null
	SLEEPERS=()
}
trap 'stop_sleepers; cleanup; rm -rf "$T_TMP"' EXIT
P=$T_PREFIX-$NGROUPS
mkgroups "$T_DIR/$P" "$NGROUPS"
for i in $(seq 1 "$BUSY"); do
	sleep 100000 &
	SLEEPERS+=($!)
	printf '%d\n' $! > "$T_DIR/$P/$(printf 'g%05d' "$i")/cgroup.procs" || die "cannot move a sleeper into group $i"
done
"$B" cost "$T_SELF/$P" "$T_TMP/real" "$ROUNDS" "$GAP_MS" > "$BENCH_RESULTS/cost.raw" || die "bench-record cost failed"
stop_sleepers
rmgroups "$T_DIR/$P"

tsv_header what value q1 q3 n target p note
col() { awk -F'\t' -v c="$1" -v w="$WARM" 'NR > 1 && $1 >= w { print $c }' "$BENCH_RESULTS/cost.raw"; }
# per round: column a over column b
per() { awk -F'\t' -v a="$1" -v b="$2" -v w="$WARM" 'NR > 1 && $1 >= w && $b > 0 { print $a / $b }' "$BENCH_RESULTS/cost.raw"; }
row() { # what target note [p] < numbers
	local m q1 q3 n
	read -r m q1 q3 n < <(stats_summary)
	tsv_row "$1" "$(printf %.3f "$m")" "$(printf %.3f "$q1")" "$(printf %.3f "$q3")" "$n" "$2" "${4:--}" "$3"
}
groups=$(awk -F'\t' 'NR == 2 { print $7 }' "$BENCH_RESULTS/cost.raw")
b0=$(awk -F'\t' -v w="$WARM" '$1 == w - 1 { print $6 }' "$BENCH_RESULTS/cost.raw")
b1=$(awk -F'\t' 'END { print $6 }' "$BENCH_RESULTS/cost.raw")
steady=$(awk -v a="$b0" -v b="$b1" -v n=$((ROUNDS - WARM)) -v g="$groups" 'BEGIN { printf "%.3f", (b - a) / n / g }')
tsv_row "bytes/group/sample, real groups (idle), steady" "$steady" - - $((ROUNDS - WARM)) "<= 40" - \
	"$groups groups ($BUSY with a process), after the first $WARM samples"
"$B" gen "$T_TMP/synth" 0.0417 5 "$NGROUPS" > /dev/null || die "bench-record gen failed"
"$B" schemes "$T_TMP/synth" > "$BENCH_RESULTS/schemes-synth.tsv" || die "bench-record schemes failed"
"$B" schemes "$T_TMP/real" > "$BENCH_RESULTS/schemes-real.tsv" || die "bench-record schemes failed"
awk -F'\t' -v g="$NGROUPS" 'NR > 1 { printf "bytes/group/sample, synthetic busy: %s\t%s\t-\t-\t%s\t%s\t-\t%s groups, a quarter moving\n", $1, $2, $3, ($1 == "on-disk" ? "<= 40" : "-"), g }' \
	"$BENCH_RESULTS/schemes-synth.tsv" >> "$B_TSV"
awk -F'\t' 'NR > 1 && $1 != "on-disk" { printf "bytes/group/sample, real idle: %s\t%s\t-\t-\t%s\t-\t-\tthe same records\n", $1, $2, $3 }' \
	"$BENCH_RESULTS/schemes-real.tsv" >> "$B_TSV"

col 2 > "$T_TMP/snap"
col 3 > "$T_TMP/aa"
col 5 > "$T_TMP/append"
read -r _ p < <(stats_mwu "$T_TMP/aa" "$T_TMP/snap")
per 3 2 | row "snapshot-aa / snapshot CPU (A/A control)" "~1" "the snapshot taken twice" "$(printf %.3g "$p")"
# The second snapshot of a round follows the first at once, warm; the first
# follows the gap, as a recorder's does. So the split of the first
# snapshots by round parity is an A/A control of the denominator itself.
awk 'NR % 2' "$T_TMP/snap" > "$T_TMP/snap-odd"
awk 'NR % 2 == 0' "$T_TMP/snap" > "$T_TMP/snap-even"
read -r _ p < <(stats_mwu "$T_TMP/snap-odd" "$T_TMP/snap-even")
read -r m_odd _ < <(stats_summary < "$T_TMP/snap-odd")
read -r m_even _ < <(stats_summary < "$T_TMP/snap-even")
tsv_row "snapshot CPU, odd / even rounds (A/A control)" \
	"$(awk -v a="$m_odd" -v b="$m_even" 'BEGIN { printf "%.3f", a / b }')" - - $((ROUNDS - WARM)) "~1" \
	"$(printf %.3g "$p")" "the first snapshot of the rounds, split by parity: both after the gap"
awk '{ print $1 * 10 }' "$T_TMP/append" > "$T_TMP/append10"
read -r _ p < <(stats_mwu "$T_TMP/append10" "$T_TMP/snap")
row "snapshot CPU us" - "$groups groups" < "$T_TMP/snap"
row "append CPU us" - "encode, compress, write" < "$T_TMP/append"
per 5 2 | row "append / snapshot CPU" "<= 0.10" "the recording cost on top of the snapshot; p: 10 x append against the snapshot" "$(printf %.3g "$p")"
col 4 > "$T_TMP/extras"
col 8 > "$T_TMP/bypath"
read -r _ p < <(stats_mwu "$T_TMP/extras" "$T_TMP/bypath")
per 4 2 | row "sample extras / snapshot CPU" - \
	"task counts (cgroup.procs through the reader), meminfo, vmstat, PSI; p: against the task counts by path" \
	"$(printf %.3g "$p")"
per 8 2 | row "task counts by path (the way before) / snapshot CPU" - "an open of each cgroup.procs"
awk -F'\t' -v w="$WARM" 'NR > 1 && $1 >= w && $2 > 0 { print ($4 + $5) / $2 }' "$BENCH_RESULTS/cost.raw" |
	row "recording cost / snapshot CPU, everything counted" "<= 0.10" \
		"task counts, /proc files and append over the snapshot; rounds ${GAP}s apart"
awk -F'\t' -v w="$WARM" 'NR > 1 && $1 >= w && $3 > 0 { print ($4 + $5) / $3 }' "$BENCH_RESULTS/cost.raw" |
	row "recording cost / snapshot-aa CPU, everything counted" - \
		"the same over the second snapshot, taken warm just before the sample as the extras are"
awk -F'\t' -v w="$WARM" 'NR > 1 && $1 >= w && $2 > 0 { s += ($4 + $5) / $2; n++ } END { if (n) printf "%.3f", s / n }' \
	"$BENCH_RESULTS/cost.raw" > "$T_TMP/mean"
tsv_row "recording cost / snapshot CPU, mean of the rounds" "$(cat "$T_TMP/mean")" - - $((ROUNDS - WARM)) - - \
	"the median hides the rounds that read more cgroup.procs (v1: every 8th read of one opens it afresh)"
per 9 2 | row "release of the sample before / snapshot CPU" - \
	"its snapshot's free, not counted above (a snapshot is freed whether it is recorded or not)"
awk -F'\t' -v w="$WARM" 'NR > 1 && $1 >= w && $2 > 0 { print ($4 + $5 + $9) / $2 }' "$BENCH_RESULTS/cost.raw" |
	row "recording cost / snapshot CPU, the release counted too" - \
		"as counted until the release was timed apart"

"$B" open "$T_TMP/real" "$OPEN_ROUNDS" | awk -F'\t' 'NR > 1 { print $2 / 1000 }' |
	row "open a time, ms, real store" - "$groups groups, $ROUNDS samples"
"$B" step "$T_TMP/real" "$STEP_ROUNDS" > "$BENCH_RESULTS/step.raw" || die "bench-record step failed"
awk -F'\t' '$2 == "next" { print $3 / 1000 }' "$BENCH_RESULTS/step.raw" |
	row "step next, ms" "<= 5" "$groups groups"
awk -F'\t' '$2 == "prev" { print $3 / 1000 }' "$BENCH_RESULTS/step.raw" |
	row "step prev, ms" "<= 5" "$groups groups (decodes from the keyframe before)"
table
echo "value: median of the rounds (q1, q3 quartiles; n rounds); p: Mann-Whitney against the" \
	"snapshot's own rounds (snapshot-aa: the A/A control). Bytes count data and index files."
echo "results: $B_TSV"
