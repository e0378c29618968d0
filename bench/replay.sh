#!/usr/bin/env bash
# Stepping one sample of `memctl top --replay` through top's own path (the
# recorded source, the model's refresh, the rows of a screen filled with the
# default columns: bench/bench-replay.c) at 1000 groups, forwards (]) and
# backwards ([), against the store's reader alone decoding the next sample
# (the floor). Target: <= 5 ms a step. The store is synthetic (as a v2 host
# records 1000 groups: memory.stat, events, two NUMA nodes, pressure), so no
# cgroup is touched. Each way runs in a process of its own, the ways
# interleaved round by round; "step-aa" is a second run of "step", the A/A
# control whose ratio and rank test show the noise alone.
#
#   bench/replay.sh [--quick] [--groups N] [--rounds N]
#
# Rows of replay.tsv: groups, way, groups shown, wall and CPU microseconds a
# step (medians of the rounds' medians, quartiles of the CPU), the CPU's
# ratio to the reader's of the same round (median), the Mann-Whitney p of
# the way's CPU against step's. replay.raw has every round's row.
. "$(dirname "$0")/lib.sh"
BIN=$BUILD/bench/bench-replay
need_bin "$BIN"

GROUPS_N=1000
ROUNDS=11
STEPS=40
ROWS=50
[ "$B_QUICK" = 1 ] && GROUPS_N=50 ROUNDS=2 STEPS=5
parse_opts "[--groups N] [--rounds N]" groups rounds
GROUPS_N=${OPT_GROUPS:-$GROUPS_N} ROUNDS=${OPT_ROUNDS:-$ROUNDS}
WAYS="reader step step-aa back"

T_TMP=$(mktemp -d)
trap 'rm -rf "$T_TMP"' EXIT
"$BIN" make "$T_TMP/store" "$GROUPS_N" $((STEPS + 2)) || die "cannot make the store"
echo "replay: $ROUNDS rounds, $STEPS steps a round of $ROWS rows on screen, medians; a store of" \
	"$GROUPS_N groups, $((STEPS + 2)) samples ($(du -sk "$T_TMP/store" | cut -f1) KiB);" \
	"each way in a process of its own, the ways interleaved"
tsv_header groups way shown wall_us cpu_us cpu_q1 cpu_q3 x_reader p_vs_step
RAW=$BENCH_RESULTS/replay.raw
: > "$RAW"
for r in $(seq 1 "$ROUNDS"); do
	for way in $WAYS; do
		row=$("$BIN" time "$T_TMP/store" "${way%-aa}" "$STEPS" "$ROWS") || die "bench-replay $way failed"
		printf '%d\t%s\t%s\n' "$r" "$way" "$(echo "$row" | cut -f2-)" >> "$RAW"
	done
done
col() { awk -F'\t' -v w="$1" -v c="$2" '$2 == w { print $c }' "$RAW"; }
col step 5 > "$T_TMP/step.cpu"
for way in $WAYS; do
	col "$way" 5 > "$T_TMP/$way.cpu"
	read -r cpu q1 q3 _ < <(stats_summary < "$T_TMP/$way.cpu")
	wall=$(col "$way" 4 | stats_summary | cut -d' ' -f1)
	shown=$(col "$way" 3 | median)
	x=$(paste <(col "$way" 5) <(col reader 5) | awk '$2 > 0 { print $1 / $2 }' | stats_summary | cut -d' ' -f1)
	p=$(stats_mwu "$T_TMP/$way.cpu" "$T_TMP/step.cpu" | cut -d' ' -f2)
	tsv_row "$GROUPS_N" "$way" "$shown" "$wall" "$cpu" "$q1" "$q3" "$x" "$p"
done
table
