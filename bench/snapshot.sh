#!/usr/bin/env bash
# Snapshot cost per group: memctl's snapshot (mc_host_snapshot, what `memctl
# top` and `memctl run` take every interval) against the floor (pread of the
# same files on descriptors opened beforehand), reading the same files by
# open/read/close, libcgroup's stats API and cgroup_get_cgroup, and
# systemd-cgtop -b -n 1, on real groups created below our own memory cgroup.
# All ways run interleaved in one process (bench/bench-snapshot.c), so the
# ratios are measured side by side.
#
#   bench/snapshot.sh [--quick] [--sizes "100 1000 5000"] [--rounds N]
#
# Rows of snapshot.tsv: groups, way, files read per snapshot, wall and CPU
# microseconds per snapshot (medians of the rounds), CPU microseconds per
# group, CPU ratio to the floor, descriptors memctl kept open, groups listed.
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
HARD=$(ulimit -Hn)
CGTOP_ROUNDS=$ROUNDS

host_line
echo "snapshot: $ROUNDS rounds per size, medians; RLIMIT_NOFILE hard limit here $HARD"
tsv_header groups way files wall_us cpu_us cpu_us_per_group x_floor memctl_fds listed

for n in $SIZES; do
	P=$T_PREFIX-$n
	mkgroups "$T_DIR/$P" "$n"
	# Enough descriptors for the floor's and for memctl's cache (it keeps at
	# most half the soft limit): ~9 per group each.
	rows=$("$SNAP" --rounds "$ROUNDS" --nofile $((n * 20 + 1024 > HARD ? n * 20 + 1024 : HARD)) \
		"$T_SELF/$P") || die "bench-snapshot failed at $n groups"
	# memctl again with the descriptors this host gives it (soft = hard
	# limit, as memctl's main sets), when that is fewer than the tree needs
	if [ $(((n + 1) * 9 * 2)) -gt "$HARD" ]; then
		more=$("$SNAP" --rounds "$ROUNDS" --ways memctl "$T_SELF/$P") ||
			die "bench-snapshot (memctl at the host's limit) failed at $n groups"
		rows="$rows"$'\n'$(echo "$more" | sed "s/^memctl\t/memctl@nofile=$HARD\t/")
	fi
	floor=$(echo "$rows" | awk -F'\t' '$1 == "floor" {print $6}')
	while IFS=$'\t' read -r way groups files _ wall_us cpu_us fds; do
		[ "$groups" -eq $((n + 1)) ] || die "$way read $groups groups, want $((n + 1))"
		case $way in memctl*) ;; *) fds=- ;; esac
		tsv_row "$groups" "$way" "$files" "$wall_us" "$cpu_us" \
			"$(awk -v c="$cpu_us" -v g="$groups" 'BEGIN { printf "%.1f", c / g }')" \
			"$(ratio "$cpu_us" "$floor")" "$fds" "$groups"
	done <<<"$rows"

	# systemd-cgtop: deep enough to reach our groups; it lists only what it
	# finds worth listing, so count how many of ours appear
	depth=$(($(echo "$T_SELF/$P/g" | tr -cd / | wc -c) + 1))
	TIMEFORMAT='%R %U %S'
	for i in $(seq 1 "$CGTOP_ROUNDS"); do
		{ time systemd-cgtop -b -n 1 --depth="$depth" > "$BENCH_RESULTS/cgtop.out" 2>&1 ||
			die "systemd-cgtop failed: $(head -n3 "$BENCH_RESULTS/cgtop.out")"; } 2>&1
	done > "$BENCH_RESULTS/cgtop.times"
	listed=$(grep -c "/$P\(/\|\s\)" "$BENCH_RESULTS/cgtop.out")
	cg_wall=$(awk '{ print $1 * 1e6 }' "$BENCH_RESULTS/cgtop.times" | median)
	cg_cpu=$(awk '{ print ($2 + $3) * 1e6 }' "$BENCH_RESULTS/cgtop.times" | median)
	tsv_row $((n + 1)) systemd-cgtop - "$cg_wall" "$cg_cpu" \
		"$(awk -v c="$cg_cpu" -v g="$((n + 1))" 'BEGIN { printf "%.1f", c / g }')" \
		"$(ratio "$cg_cpu" "$floor")" - "$listed"
	rm -f "$BENCH_RESULTS/cgtop.out" "$BENCH_RESULTS/cgtop.times"
	rmgroups "$T_DIR/$P"
done
table
echo "x_floor: CPU time over the floor's at the same size (1.00 = nothing but the kernel's cost" \
	"of generating the files); systemd-cgtop: its process's user+system time, and its" \
	"per-group figure counts groups it may not list (see 'listed')"
echo "results: $B_TSV"
