#!/usr/bin/env bash
# Engine cost: profile parse and plan for 1000 to 10 000 groups on synthetic
# snapshots (bench/bench-plan.c: the pure engine, no host). Each size's ways
# run interleaved in one process; several sizes show how the cost grows.
#
#   bench/plan.sh [--quick] [--sizes "1000 2000 5000 10000"] [--rounds N]
#
# Rows of plan.tsv: groups, way (parse; plan-new: nothing exists yet;
# plan-diff: every group exists with other values; plan-same: nothing to
# change), wall and CPU microseconds (medians), CPU microseconds per group,
# and the growth of the per-group CPU cost against the smallest size.
. "$(dirname "$0")/lib.sh"
PLAN=$BUILD/bench/bench-plan
need_bin "$PLAN"

SIZES="1000 2000 5000 10000"
ROUNDS=7
[ "$B_QUICK" = 1 ] && SIZES="50 100" ROUNDS=2
parse_opts "[--sizes \"1000 2000 5000 10000\"] [--rounds N]" sizes rounds
SIZES=${OPT_SIZES:-$SIZES} ROUNDS=${OPT_ROUNDS:-$ROUNDS}

echo "host: $(nproc) CPUs, kernel $(uname -r)"
echo "plan: one group with N children, max and soft_limit each (cgroup v1 knobs); $ROUNDS rounds, medians"
tsv_header groups way wall_us cpu_us cpu_us_per_group x_smallest
declare -A first
for n in $SIZES; do
	rows=$("$PLAN" "$n" "$ROUNDS") || die "bench-plan failed at $n groups"
	while IFS=$'\t' read -r way groups _ wall_us cpu_us; do
		per=$(awk -v c="$cpu_us" -v g="$groups" 'BEGIN { printf "%.2f", c / g }')
		first[$way]=${first[$way]:-$per}
		tsv_row "$groups" "$way" "$wall_us" "$cpu_us" "$per" "$(ratio "$per" "${first[$way]}")"
	done <<<"$rows"
done
table
echo "x_smallest: CPU per group over the same way's at the smallest size (1.00: linear growth)"
echo "results: $B_TSV"
