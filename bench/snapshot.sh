#!/usr/bin/env bash
# Snapshot cost per group: memctl's snapshot (mc_host_snapshot, what `memctl
# top` and `memctl run` take every interval) against the floor (pread of the
# same files on descriptors opened beforehand), reading the same files by
# open/read/close, libcgroup's stats API and cgroup_get_cgroup, and
# systemd-cgtop -b -n 1, on real groups created below our own memory cgroup.
# Each way runs in a process of its own (bench/bench-snapshot.c, which warms
# memctl's handle before timing it) so that none is short of descriptors, and
# the ways alternate round by round, so the ratios are measured side by side.
# The floor runs twice per round (floor and floor-aa): the A/A control, whose
# ratio and rank test show what the noise alone does. floor-limit reads
# every group within the descriptors memctl may keep (past them, files are
# opened, read and closed): the least any reader can do under this
# process's RLIMIT_NOFILE, which at 5000 groups and a hard limit of 20000
# is well above the floor.
#
#   bench/snapshot.sh [--quick] [--sizes "100 1000 5000"] [--rounds N]
#
# Rows of snapshot.tsv: groups in the tree, way, groups it read, files read
# per snapshot, wall and CPU microseconds per snapshot (medians of the
# rounds), CPU microseconds per group read (median, and its first and third
# quartile), its ratio to the floor's in the same round (to floor-stat's for
# the ways that read memory.stat alone: median and quartiles of the
# per-round ratios), the two-sided Mann-Whitney p of the way's per-group CPU
# against the floor's, the ratio to floor-limit's (median of the rounds),
# descriptors memctl kept open, groups listed (systemd-cgtop). snapshot.raw
# has every round's row.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
[ "$T_VERSION" = 1 ] || skip "written for the v1 memory controller of this host (file set, systemd-cgtop)"
SNAP=$BUILD/bench/bench-snapshot
need_bin "$SNAP"

SIZES="100 1000 5000"
ROUNDS=11
# the floors and memctl: the median of INNER snapshots in each round's process
# (a single snapshot of 1000 groups takes 20 ms: one preemption moves it)
INNER=5
[ "$B_QUICK" = 1 ] && SIZES="20" ROUNDS=2 INNER=1
parse_opts "[--sizes \"100 1000 5000\"] [--rounds N]" sizes rounds
SIZES=${OPT_SIZES:-$SIZES} ROUNDS=${OPT_ROUNDS:-$ROUNDS}
WAYS="floor floor-aa floor-stat floor-limit memctl memctl-1st openread lcg-walk lcg-stats lcg-get systemd-cgtop"

host_line
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
echo "snapshot: $ROUNDS rounds per size, medians; each way in a process of its own, the ways" \
	"interleaved round by round (floors and memctl: the median of $INNER snapshots per round);" \
	"RLIMIT_NOFILE hard limit $(ulimit -Hn)"
tsv_header groups way groups_read files wall_us cpu_us cpu_us_per_group cpu_q1 cpu_q3 \
	x_floor x_q1 x_q3 p_vs_floor x_floor_limit memctl_fds listed
RAW=$BENCH_RESULTS/snapshot.raw
: > "$RAW"
TIMEFORMAT='%R %U %S'
# systemd-cgtop once: "groups files wall_us cpu_us fds listed" like bench-snapshot's row
cgtop() {
	local depth t listed
	depth=$(($(echo "$T_SELF/$1/g" | tr -cd / | wc -c) + 1)) # deep enough to reach our groups
	t=$({ time systemd-cgtop -b -n 1 --depth="$depth" > "$BENCH_RESULTS/cgtop.out" 2>&1; } 2>&1) ||
		die "systemd-cgtop failed: $(head -n3 "$BENCH_RESULTS/cgtop.out")"
	# it lists only what it finds worth listing: count our groups in its output
	listed=$(grep -c "/$1\(/\|\s\)" "$BENCH_RESULTS/cgtop.out")
	echo "$t" | awk -v l="$listed" -v g="$2" '{ printf "%d\t-\t1\t%.1f\t%.1f\t-\t%d\n", g, $1 * 1e6, ($2 + $3) * 1e6, l }'
}

for n in $SIZES; do
	P=$T_PREFIX-$n
	mkgroups "$T_DIR/$P" "$n"
	for _ in $(seq 1 "$ROUNDS"); do
		for way in $WAYS; do
			if [ "$way" = systemd-cgtop ]; then
				row=$(cgtop "$P" $((n + 1)))
			else
				case $way in floor* | memctl) inner=$INNER ;; *) inner=1 ;; esac
				row=$("$SNAP" --rounds "$inner" --ways "${way%-aa}" "$T_SELF/$P" | cut -f2-) ||
					die "bench-snapshot --ways $way failed at $n groups"
				row="$row"$'\t'$((n + 1))
			fi
			printf '%d\t%s\t%s\n' "$n" "$way" "$row" >> "$RAW"
		done
	done
	rmgroups "$T_DIR/$P"
	# per round: CPU per group read, and its ratio to the floor's of that round
	per_round() { # way: one number a line, the CPU per group of each round
		awk -F'\t' -v n="$n" -v w="$1" '$1 == n && $2 == w { print $7 / $3 }' "$RAW"
	}
	ratios() { # way base: the way's per-group CPU over base's, round by round
		paste <(per_round "$1") <(per_round "$2") | awk '$2 > 0 { print $1 / $2 }'
	}
	med() { awk -F'\t' -v n="$n" -v w="$1" -v f="$2" '$1 == n && $2 == w { print $f }' "$RAW" | median; }
	for way in $WAYS; do
		# what reads memory.stat alone compares with the floor of memory.stat
		case $way in floor-stat | lcg-stats) base=floor-stat ;; *) base=floor ;; esac
		groups=$(med "$way" 3)
		case $way in floor*) ;; *) [ "$groups" -eq $((n + 1)) ] || die "$way read $groups groups, want $((n + 1))" ;; esac
		per_round "$way" > "$BENCH_RESULTS/a"
		per_round "$base" > "$BENCH_RESULTS/b"
		read -r cmed cq1 cq3 _ < <(stats_summary < "$BENCH_RESULTS/a")
		read -r xmed xq1 xq3 _ < <(ratios "$way" "$base" | stats_summary)
		read -r xlim _ < <(ratios "$way" floor-limit | stats_summary)
		p=-
		if [ "$way" != "$base" ]; then
			read -r _ p < <(stats_mwu "$BENCH_RESULTS/a" "$BENCH_RESULTS/b")
			p=$(printf %.3g "$p")
		fi
		fds=$(med "$way" 8)
		case $way in memctl*) ;; *) fds=- ;; esac
		tsv_row $((n + 1)) "$way" "$groups" "$(med "$way" 4)" "$(med "$way" 6)" "$(med "$way" 7)" \
			"$(printf %.1f "$cmed")" "$(printf %.1f "$cq1")" "$(printf %.1f "$cq3")" \
			"$(printf %.2f "$xmed")" "$(printf %.2f "$xq1")" "$(printf %.2f "$xq3")" "$p" \
			"$(printf %.2f "$xlim")" "$fds" "$(med "$way" 9)"
	done
	rm -f "$BENCH_RESULTS/a" "$BENCH_RESULTS/b"
done
rm -f "$BENCH_RESULTS/cgtop.out"
table
echo "x_floor: CPU per group over the floor's in the same round, median and quartiles of the" \
	"rounds (1.00 = nothing but the kernel's cost of generating the files; floor-stat and" \
	"lcg-stats, which read memory.stat alone, over floor-stat's; the floors read the first" \
	"groups_read groups when the descriptor limit cannot hold them all); floor-aa is the floor" \
	"again, the A/A control; p_vs_floor: two-sided Mann-Whitney rank test of the per-group CPU" \
	"of the rounds against the floor's; x_floor_limit: CPU per group over floor-limit's (every" \
	"group read within the descriptors memctl may keep open: the least this RLIMIT_NOFILE" \
	"allows); load before and after: $LOAD0 / $(cut -d' ' -f1-3 /proc/loadavg); systemd-cgtop: its process's user+system time per" \
	"group in the tree, though it lists only 'listed' of them"
echo "results: $B_TSV"
