#!/usr/bin/env bash
# `memctl top` cost: CPU and memory of the ncurses screen refreshing every
# second over N groups (on a real terminal: tmux panes, 120x40), beside the
# CPU of one bare snapshot of the same tree (bench-snapshot's memctl way)
# measured in the same rounds: how much top costs against what reading the
# tree once costs anyway.
#
#   bench/top.sh [--quick] [--groups N] [--rounds R] [--seconds S]
#
# Two identical screens run side by side (A and A'): their difference is
# the A/A control, which a rank test must not call significant. Each round
# measures one screen over S seconds, then the other over the next S (the
# order alternating round by round), then one set of bare snapshots, so
# that host noise falls on every arm alike, the A/A pair included: each
# arm's windows are spread over the whole run, not laid over the same
# seconds as the other's (interleaved rounds). CPU is the
# scheduler's own count of the process' run time (/proc/PID/schedstat, in
# nanoseconds: at 0.1% of a CPU, clock ticks would count less than one per
# round); memory is VmRSS at the end of each round, VmHWM at the end.
# Rows of top.tsv: arm, groups, rounds, median CPU % of one CPU with its
# quartiles, CPU ms per refresh, ratio to one bare snapshot, RSS KiB
# (median), HWM KiB; then the A/A rank test.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
command -v tmux > /dev/null || skip "tmux is not installed"
SNAP=$BUILD/bench/bench-snapshot
need_bin "$SNAP"

N=1000 ROUNDS=10 SECS=6
[ "$B_QUICK" = 1 ] && N=20 ROUNDS=2 SECS=2
parse_opts "[--groups N] [--rounds R] [--seconds S]" groups rounds seconds
N=${OPT_GROUPS:-$N} ROUNDS=${OPT_ROUNDS:-$ROUNDS} SECS=${OPT_SECONDS:-$SECS}
T_TMP=$(mktemp -d)
. "$B_ROOT/tests/integration/lib-tmux.sh"

P=$T_PREFIX-top
mkgroups "$T_DIR/$P" "$N"
run_ns() { awk '{ print $1 }' "/proc/$1/schedstat"; }
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }

# the screens: one tmux session each, so both are real terminals
for arm in a b; do
	tmux_start "top-$arm" 120 40 "sh -c 'echo \$\$ > $T_TMP/pid.$arm; exec env \
MEMCTL_STATE_DIR=$T_STATE TERM=xterm-256color $MEMCTL top -d 1 -p self/$P'"
	wait_screen " g[0-9]{5} " match || die "top shows no group; screen: $(screen)"
done
PID_A=$(cat "$T_TMP/pid.a") PID_B=$(cat "$T_TMP/pid.b")
sleep 3   # warm-up: the first refreshes open every file

host_line
echo "top: $N groups, refresh 1 s, $ROUNDS interleaved rounds of one $SECS s window per screen" \
	"(the order alternating; after a 3 s warm-up); load $(cut -d' ' -f1-3 /proc/loadavg)"
: > "$T_TMP/cpu.a"; : > "$T_TMP/cpu.b"; : > "$T_TMP/ms.a"; : > "$T_TMP/ms.b"
: > "$T_TMP/rss.a"; : > "$T_TMP/rss.b"; : > "$T_TMP/snap"
# window ARM: the CPU of that screen over the next SECS seconds, and its RSS after them
window() {
	local arm=$1 pid t0 t1 n0 n1
	if [ "$arm" = a ]; then pid=$PID_A; else pid=$PID_B; fi
	t0=$(wall) n0=$(run_ns "$pid")
	sleep "$SECS"
	t1=$(wall) n1=$(run_ns "$pid")
	awk -v d="$((n1 - n0))" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", d / 1e9 / (b - a) * 100 }' \
		>> "$T_TMP/cpu.$arm"
	# one refresh a second: CPU per refresh is the CPU of the window over its seconds
	awk -v d="$((n1 - n0))" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", d / 1e6 / (b - a) }' \
		>> "$T_TMP/ms.$arm"
	status_kb "$pid" VmRSS >> "$T_TMP/rss.$arm"
}
for r in $(seq 1 "$ROUNDS"); do
	if [ $((r % 2)) = 1 ]; then window a; window b; else window b; window a; fi
	# the bare snapshot of this round: CPU microseconds per snapshot, median of 5
	"$SNAP" --rounds 5 --ways memctl "$T_SELF/$P" | awk -F'\t' '{ print $6 }' >> "$T_TMP/snap"
done
screen | grep -qE " g[0-9]{5} " || die "top's screen lost the groups: $(screen)"
hwm_a=$(status_kb "$PID_A" VmHWM) hwm_b=$(status_kb "$PID_B" VmHWM)
for arm in a b; do tm send-keys -t "top-$arm" q; done

read -r snap_us snap_q1 snap_q3 _ <<< "$(stats_summary < "$T_TMP/snap")"
[ "$snap_us" != - ] || die "bench-snapshot measured nothing"
tsv_header arm groups rounds cpu_pct cpu_pct_q1 cpu_pct_q3 cpu_ms_per_refresh x_snapshot \
	vmrss_kb vmhwm_kb
for arm in a b; do
	read -r c q1 q3 _ <<< "$(stats_summary < "$T_TMP/cpu.$arm")"
	read -r ms _ <<< "$(stats_summary < "$T_TMP/ms.$arm")"
	read -r rss _ <<< "$(stats_summary < "$T_TMP/rss.$arm")"
	if [ $arm = a ]; then name="top A (ncurses)" hwm=$hwm_a; else name="top A' (ncurses)" hwm=$hwm_b; fi
	tsv_row "$name" $((N + 1)) "$ROUNDS" "$c" "$q1" "$q3" "$(printf %.3f "$ms")" \
		"$(ratio "$ms" "$(awk -v u="$snap_us" 'BEGIN { print u / 1000 }')")" "$(printf %.0f "$rss")" "$hwm"
done
tsv_row "bare snapshot" $((N + 1)) "$ROUNDS" - - - \
	"$(awk -v u="$snap_us" 'BEGIN { printf "%.3f", u / 1000 }')" 1.00 - -
table
read -r u p <<< "$(stats_mwu "$T_TMP/cpu.a" "$T_TMP/cpu.b")"
echo "A/A control: Mann-Whitney U $u, p $p (two identical screens measured in alternating" \
	"windows; p should not be small); load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
echo "cpu_pct: median of the rounds with quartiles (q1, q3); x_snapshot: CPU per refresh over one" \
	"bare mc_host_snapshot of the same tree, measured in the same rounds (median $snap_us us," \
	"quartiles $snap_q1-$snap_q3)"
echo "results: $B_TSV"
