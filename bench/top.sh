#!/usr/bin/env bash
# `memctl top` cost: CPU and memory of top refreshing every second over N
# groups for a minute, on a real terminal (ncurses in a tmux pane, 120x40)
# and in batch mode (text to a file) at the same time, against the CPU of
# bare snapshots of the same tree (bench-snapshot's memctl way) measured in
# the same run: how much top adds to what it must read anyway.
#
#   bench/top.sh [--quick] [--groups N] [--seconds S]
#
# CPU is utime + stime from /proc/PID/stat over the measured window (after
# a 3 s warm-up), memory VmRSS and VmHWM from /proc/PID/status at its end.
# Rows of top.tsv: way, groups, seconds, refreshes, CPU percent of one CPU,
# CPU milliseconds per refresh, ratio to one bare snapshot, VmRSS and
# VmHWM in KiB.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
command -v tmux > /dev/null || skip "tmux is not installed"
SNAP=$BUILD/bench/bench-snapshot
need_bin "$SNAP"

N=1000
SECONDS_=60
[ "$B_QUICK" = 1 ] && N=20 SECONDS_=3
parse_opts "[--groups N] [--seconds S]" groups seconds
N=${OPT_GROUPS:-$N} SECONDS_=${OPT_SECONDS:-$SECONDS_}
T_TMP=$(mktemp -d)
. "$B_ROOT/tests/integration/lib-tmux.sh"
BATCH_PID=
trap '[ -z "$BATCH_PID" ] || kill "$BATCH_PID" 2>/dev/null; tm kill-server 2>/dev/null; cleanup' EXIT

P=$T_PREFIX-top
mkgroups "$T_DIR/$P" "$N"
HZ=$(getconf CLK_TCK)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }

tmux_start top 120 40 "sh -c 'echo \$\$ > $T_TMP/pid; exec env MEMCTL_STATE_DIR=$T_STATE \
TERM=xterm-256color $MEMCTL top -d 1 -p self/$P'"
wait_screen " g[0-9]{5} " match || die "top shows no group; screen: $(screen)"
TOP_PID=$(cat "$T_TMP/pid")
"$MEMCTL" top -b -d 1 -p "self/$P" > "$T_TMP/batch.out" 2>&1 &
BATCH_PID=$!
sleep 3
kill -0 "$BATCH_PID" 2>/dev/null || die "top -b ended: $(head -n3 "$T_TMP/batch.out")"

host_line
echo "top: $N groups, refresh 1 s, measured over $SECONDS_ s after a 3 s warm-up"
b_lines0=$(grep -c '^memctl top: ' "$T_TMP/batch.out")
t0=$(wall) c_top0=$(cpu_ticks "$TOP_PID") c_b0=$(cpu_ticks "$BATCH_PID")
sleep "$SECONDS_"
t1=$(wall) c_top1=$(cpu_ticks "$TOP_PID") c_b1=$(cpu_ticks "$BATCH_PID")
b_refreshes=$(($(grep -c '^memctl top: ' "$T_TMP/batch.out") - b_lines0))
rss_top=$(status_kb "$TOP_PID" VmRSS) hwm_top=$(status_kb "$TOP_PID" VmHWM)
rss_b=$(status_kb "$BATCH_PID" VmRSS) hwm_b=$(status_kb "$BATCH_PID" VmHWM)
screen | grep -qE " g[0-9]{5} " || die "top's screen lost the groups: $(screen)"
keys q
kill "$BATCH_PID" && wait "$BATCH_PID" 2>/dev/null
BATCH_PID=

# One bare snapshot of the same tree, CPU microseconds (median of 9)
snap_us=$("$SNAP" --rounds 9 --ways memctl "$T_SELF/$P" | awk -F'\t' '{ print $6 }')
[ -n "$snap_us" ] || die "bench-snapshot failed"

el=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
t_refreshes=$(awk -v e="$el" 'BEGIN { printf "%d", e }') # one a second; ncurses shows no count
tsv_header way groups seconds refreshes cpu_pct cpu_ms_per_refresh x_snapshot vmrss_kb vmhwm_kb
row() {  # way ticks refreshes rss hwm
	local ms
	ms=$(awk -v t="$2" -v hz="$HZ" -v r="$3" 'BEGIN { printf "%.2f", t * 1000 / hz / r }')
	tsv_row "$1" $((N + 1)) "$(printf %.1f "$el")" "$3" \
		"$(awk -v t="$2" -v hz="$HZ" -v e="$el" 'BEGIN { printf "%.2f", t / hz / e * 100 }')" \
		"$ms" "$(ratio "$ms" "$(awk -v u="$snap_us" 'BEGIN { print u / 1000 }')")" "$4" "$5"
}
[ "$b_refreshes" -gt 0 ] || die "top -b printed no refresh in $SECONDS_ s"
row "top (ncurses, tmux)" $((c_top1 - c_top0)) "$t_refreshes" "$rss_top" "$hwm_top"
row "top -b" $((c_b1 - c_b0)) "$b_refreshes" "$rss_b" "$hwm_b"
tsv_row "bare snapshot" $((N + 1)) - 1 - "$(awk -v u="$snap_us" 'BEGIN { printf "%.2f", u / 1000 }')" 1.00 - -
table
echo "x_snapshot: CPU per refresh over one bare mc_host_snapshot of the same tree (same run);" \
	"CPU from /proc/PID/stat at $HZ ticks a second"
echo "results: $B_TSV"
