#!/usr/bin/env bash
# `memctl top` cost: CPU and memory of the ncurses screen refreshing every
# second over N groups (on a real terminal: tmux panes, 120x40), beside the
# CPU of one bare snapshot of the same tree (bench-snapshot's memctl way)
# measured in the same rounds: how much top costs against what reading the
# tree once costs anyway.
#
#   bench/top.sh [--quick] [--groups N] [--rounds R] [--seconds S] [--old BIN]
#
# --old BIN adds a third screen, another memctl binary (the build before a
# change) on the same groups, measured in the same interleaved rounds, and
# a rank test of A against it.
#
# Two identical screens (A and A'): their difference is the A/A control,
# which a rank test must not call significant. Each round measures one
# screen alone over S seconds (the others stopped, after 1.5 s to settle),
# then the other over the next S (the order rotating round by round), then
# one set of bare snapshots once the round's screens quit, so
# that host noise falls on every arm alike, the A/A pair included: each
# arm's windows are spread over the whole run, not laid over the same
# seconds as the other's (interleaved rounds). CPU is the
# scheduler's own count of the process' run time (/proc/PID/schedstat, in
# nanoseconds: at 0.1% of a CPU, clock ticks would count less than one per
# round); memory is VmRSS at the end of each window, VmHWM the highest of
# the rounds' screens at their end.
# top-rounds.tsv beside it has every window: round, arm, CPU %.
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
parse_opts "[--groups N] [--rounds R] [--seconds S] [--old BIN]" groups rounds seconds old
N=${OPT_GROUPS:-$N} ROUNDS=${OPT_ROUNDS:-$ROUNDS} SECS=${OPT_SECONDS:-$SECS} OLD=${OPT_OLD:-}
[ -z "$OLD" ] || [ -x "$OLD" ] || die "--old $OLD: not an executable"
ARMS="a b"
[ -z "$OLD" ] || ARMS="a b o"
T_TMP=$(mktemp -d)
. "$B_ROOT/tests/integration/lib-tmux.sh"

P=$T_PREFIX-top
mkgroups "$T_DIR/$P" "$N"
run_ns() { awk '{ print $1 }' "/proc/$1/schedstat"; }
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }

# Only the screen measured runs: the others are stopped (SIGSTOP) meanwhile.
# Screens running together over the same groups wake in step, and the
# first one each second finds the groups' kernel objects out of the caches
# and brings them back for the others: measured together, two identical
# screens differed twice over, the first started always the dearer. The
# screens of a round are new ones, started in the round's order: kept
# for the whole run, the screen started first stayed the dearer one by a
# seventh even when measured alone. And every screen and the bare
# snapshots run on CPU 0: left to the scheduler, each screen kept to the
# CPU it started on, and the CPU that takes the disk's interrupts made its
# screen a third dearer.
declare -A PID HWM
start_screens() {
	local arm bin
	for arm; do
		bin=$MEMCTL
		[ $arm = o ] && bin=$OLD
		tmux_start "top-$arm" 120 40 "sh -c 'echo \$\$ > $T_TMP/pid.$arm; exec env \
MEMCTL_STATE_DIR=$T_STATE TERM=xterm-256color taskset -c 0 $bin top -d 1 -p self/$P'"
		wait_screen " g[0-9]{5} " match || die "top shows no group; screen: $(screen)"
		PID[$arm]=$(cat "$T_TMP/pid.$arm")
	done
	sleep 3   # warm-up: the first refreshes open every file
	for arm; do kill -STOP "${PID[$arm]}"; done
}
# Ends the round's screens, each after a look that it still shows the groups.
quit_screens() {
	local arm hwm
	for arm in $ARMS; do
		T_SESSION=top-$arm
		kill -CONT "${PID[$arm]}"
		sleep 1.5
		screen | grep -qE " g[0-9]{5} " || die "top's screen lost the groups: $(screen)"
		hwm=$(status_kb "${PID[$arm]}" VmHWM)
		[ "${HWM[$arm]:-0}" -ge "$hwm" ] || HWM[$arm]=$hwm
		tm kill-session -t "top-$arm"
	done
}

host_line
echo "top: $N groups, refresh 1 s, $ROUNDS interleaved rounds of one $SECS s window per screen" \
	"(new screens each round, started and measured in the round's order, which rotates;" \
	"after a 3 s warm-up)${OLD:+, old binary $OLD}; load $(cut -d' ' -f1-3 /proc/loadavg)"
for arm in $ARMS; do : > "$T_TMP/cpu.$arm"; : > "$T_TMP/rss.$arm"; done
: > "$T_TMP/snap"
# window ARM: the CPU of that screen over SECS seconds alone, and its RSS after them
window() {
	local arm=$1 pid=${PID[$1]} t0 t1 n0 n1
	kill -CONT "$pid"
	sleep 1.5   # its first refresh after the stop catches up: not measured
	t0=$(wall) n0=$(run_ns "$pid")
	sleep "$SECS"
	t1=$(wall) n1=$(run_ns "$pid")
	kill -STOP "$pid"
	awk -v d="$((n1 - n0))" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", d / 1e9 / (b - a) * 100 }' \
		| tee -a "$T_TMP/cpu.$arm" | sed "s/^/$r\t$arm\t/" >> "$BENCH_RESULTS/top-rounds.tsv"
	status_kb "$pid" VmRSS >> "$T_TMP/rss.$arm"
}
# round r starts with arm r (mod the number of arms) and takes the others in turn
read -ra arms <<< "$ARMS"
for r in $(seq 1 "$ROUNDS"); do
	order=()
	for k in $(seq 0 $((${#arms[@]} - 1))); do order+=("${arms[$(((r - 1 + k) % ${#arms[@]}))]}"); done
	start_screens "${order[@]}"
	for arm in "${order[@]}"; do window "$arm"; done
	quit_screens
	# the bare snapshot of this round: CPU microseconds per snapshot, median of 5
	taskset -c 0 "$SNAP" --rounds 5 --ways memctl "$T_SELF/$P" | awk -F'\t' '{ print $6 }' >> "$T_TMP/snap"
done

read -r snap_us snap_q1 snap_q3 _ <<< "$(stats_summary < "$T_TMP/snap")"
[ "$snap_us" != - ] || die "bench-snapshot measured nothing"
tsv_header arm groups rounds cpu_pct cpu_pct_q1 cpu_pct_q3 cpu_ms_per_refresh x_snapshot \
	vmrss_kb vmhwm_kb
declare -A NAME=([a]="top A (ncurses)" [b]="top A' (ncurses)" [o]="old binary (ncurses)")
for arm in $ARMS; do
	read -r c q1 q3 _ <<< "$(stats_summary < "$T_TMP/cpu.$arm")"
	# one refresh a second: ms a refresh is 10 times the % of one CPU
	ms=$(awk -v c="$c" 'BEGIN { print c * 10 }')
	read -r rss _ <<< "$(stats_summary < "$T_TMP/rss.$arm")"
	tsv_row "${NAME[$arm]}" $((N + 1)) "$ROUNDS" "$c" "$q1" "$q3" "$(printf %.3f "$ms")" \
		"$(ratio "$ms" "$(awk -v u="$snap_us" 'BEGIN { print u / 1000 }')")" "$(printf %.0f "$rss")" \
		"${HWM[$arm]}"
done
tsv_row "bare snapshot" $((N + 1)) "$ROUNDS" - - - \
	"$(awk -v u="$snap_us" 'BEGIN { printf "%.3f", u / 1000 }')" 1.00 - -
table
read -r u p <<< "$(stats_mwu "$T_TMP/cpu.a" "$T_TMP/cpu.b")"
echo "A/A control: Mann-Whitney U $u, p $p (two identical screens measured in alternating" \
	"windows; p should not be small); load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "$OLD" ]; then
	read -r u p <<< "$(stats_mwu "$T_TMP/cpu.a" "$T_TMP/cpu.o")"
	read -r ca _ <<< "$(stats_summary < "$T_TMP/cpu.a")"
	read -r co _ <<< "$(stats_summary < "$T_TMP/cpu.o")"
	echo "A against the old binary: CPU $(ratio "$ca" "$co") x (medians), Mann-Whitney U $u, p $p"
fi
echo "cpu_pct: median of the rounds with quartiles (q1, q3); x_snapshot: CPU per refresh over one" \
	"bare mc_host_snapshot of the same tree, measured in the same rounds (median $snap_us us," \
	"quartiles $snap_q1-$snap_q3)"
echo "results: $B_TSV"
