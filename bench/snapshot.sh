#!/usr/bin/env bash
# Snapshot cost per group: memctl's snapshot (mc_host_snapshot, what `memctl
# top` and `memctl run` take every interval) against the floor (pread of the
# same files on descriptors opened beforehand), reading the same files by
# open/read/close, libcgroup's stats API and cgroup_get_cgroup, and
# systemd-cgtop -b -n 1, on real groups created below our own memory cgroup.
# Each way runs in a process of its own (bench/bench-snapshot.c, which warms
# memctl's handle before timing it) so that none is short of descriptors, and
# the ways alternate round by round, so the ratios are measured side by side.
#
#   bench/snapshot.sh [--quick] [--sizes "100 1000 5000"] [--rounds N]
#
# Rows of snapshot.tsv: groups in the tree, way, groups it read, files read
# per snapshot, wall and CPU microseconds per snapshot (medians of the
# rounds), CPU microseconds per group read, its ratio to the floor's (to
# floor-stat's for the ways that read memory.stat alone),
# descriptors memctl kept open, groups listed (systemd-cgtop). snapshot.raw
# has every round's row.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
[ "$T_VERSION" = 1 ] || skip "written for the v1 memory controller of this host (file set, systemd-cgtop)"
SNAP=$BUILD/bench/bench-snapshot
need_bin "$SNAP"

SIZES="100 1000 5000"
ROUNDS=9
[ "$B_QUICK" = 1 ] && SIZES="20" ROUNDS=2
parse_opts "[--sizes \"100 1000 5000\"] [--rounds N]" sizes rounds
SIZES=${OPT_SIZES:-$SIZES} ROUNDS=${OPT_ROUNDS:-$ROUNDS}
WAYS="floor floor-stat memctl memctl-1st openread lcg-walk lcg-stats lcg-get systemd-cgtop"

host_line
echo "snapshot: $ROUNDS rounds per size, medians; each way in a process of its own, the ways" \
	"interleaved round by round; RLIMIT_NOFILE hard limit $(ulimit -Hn)"
tsv_header groups way groups_read files wall_us cpu_us cpu_us_per_group x_floor memctl_fds listed
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
				row=$("$SNAP" --rounds 1 --ways "$way" "$T_SELF/$P" | cut -f2-) ||
					die "bench-snapshot --ways $way failed at $n groups"
				row="$row"$'\t'$((n + 1))
			fi
			printf '%d\t%s\t%s\n' "$n" "$way" "$row" >> "$RAW"
		done
	done
	rmgroups "$T_DIR/$P"
	# medians per way; per-group cost over the groups each way read
	med() { awk -F'\t' -v n="$n" -v w="$1" -v f="$2" '$1 == n && $2 == w { print $f }' "$RAW" | median; }
	floor=$(awk -v c="$(med floor 7)" -v g="$(med floor 3)" 'BEGIN { print c / g }')
	floor_stat=$(awk -v c="$(med floor-stat 7)" -v g="$(med floor-stat 3)" 'BEGIN { print c / g }')
	for way in $WAYS; do
		# what reads memory.stat alone compares with the floor of memory.stat
		case $way in floor-stat | lcg-stats) base=$floor_stat ;; *) base=$floor ;; esac
		groups=$(med "$way" 3) cpu=$(med "$way" 7)
		case $way in floor*) ;; *) [ "$groups" -eq $((n + 1)) ] || die "$way read $groups groups, want $((n + 1))" ;; esac
		per=$(awk -v c="$cpu" -v g="$groups" 'BEGIN { printf "%.1f", c / g }')
		fds=$(med "$way" 8)
		case $way in memctl*) ;; *) fds=- ;; esac
		tsv_row $((n + 1)) "$way" "$groups" "$(med "$way" 4)" "$(med "$way" 6)" "$cpu" "$per" \
			"$(ratio "$per" "$base")" "$fds" "$(med "$way" 9)"
	done
done
rm -f "$BENCH_RESULTS/cgtop.out"
table
echo "x_floor: CPU per group over the floor's at the same size (1.00 = nothing but the kernel's" \
	"cost of generating the files; floor-stat and lcg-stats, which read memory.stat alone, over" \
	"floor-stat's; the floors read the first groups_read groups when the" \
	"descriptor limit cannot hold them all); systemd-cgtop: its process's user+system time per" \
	"group in the tree, though it lists only 'listed' of them"
echo "results: $B_TSV"
