#!/usr/bin/env bash
# Policy-effect benchmarks in the QEMU test host (a benchmark, not a test:
# it asserts nothing). Each experiment boots the baseline and then the
# patched Linux 6.1 kernel (kernel/run-guest.sh) and runs
# bench/guest/NN-NAME.sh in each, with memctl (build/release/memctl) in the
# guest; the tables put both kernels' numbers side by side, measured in the
# same invocation.
#
#   bench/guest.sh [--quick] [--rounds N] [--arms A,B] [--kernel K] [--out DIR] [NAME...]
#   bench/guest.sh --report [--out DIR] [NAME...]
#   bench/run.sh guest [--quick]      (the same, with the other benchmarks' runner)
#
# NAME: active softlimit numa thp reclaim isolation (default: all, in that
#   order).
# --quick: smaller sizes and fewer scenarios and runs, to show that the
#   benchmarks still run (CI: ctest -L bench-guest); its numbers are noise.
# --rounds N: rounds of each experiment's arms, run interleaved round by
#   round inside one boot (default 10; --quick: each script's own, 1);
#   reclaim's rounds are storms, one per configuration a round (its
#   default 20 needs --rounds 20 here).
# --arms A,B,...: run only these arms (scenarios, as the tables name them;
#   reclaim's configurations), e.g. s4,s4-knob; default all. An arm that
#   the experiment does not have gives no numbers (exit 1).
# --kernel K: boot only K (baseline or patched); default both.
# --report: boot nothing; print the tables of DIR/results.tsv again (all
#   its kernels), e.g. of a run cut short after one kernel's boot.
# --out DIR: where results go (default build/bench-guest): results.tsv
#   (experiment, kernel, scenario, key, value; one measured value a line),
#   tables.txt (what this prints) and logs/NAME-KERNEL.log (the serial
#   console of each boot).
# MEMCTL names the memctl binary for the guest (default build/release/memctl,
# else build/test/memctl); MEMCTL_GUEST_TIMEOUT the per-boot timeout
# (default 900 s); MEMCTL_GUEST_LOCK a file that each boot holds with
# flock(1), so that guests on a shared machine take turns (default none).
# Exit status: 0 when every experiment ran on both kernels,
# 1 when a guest crashed or hung, or a scenario could not be measured (an
# "error:" line under its table), or a boot gave no numbers; 2 on bad usage;
# 77 when the test host cannot be built or booted here. See docs/BENCHMARKS-guest.md.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
all="active softlimit numa thp reclaim isolation"
# Run by bench/run.sh (BENCH_RESULTS set): results in its directory, and
# results.tsv also as its guest.tsv.
quick=0 out=${BENCH_RESULTS:+$BENCH_RESULTS/guest} names=() rounds= arms= kernels="baseline patched" report=0
out=${out:-$repo/build/bench-guest}
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1; shift ;;
	--report) report=1; shift ;;
	--out) out=$2; shift 2 ;;
	--rounds)
		case ${2:-} in
		''|*[!0-9]*|0*) echo "guest.sh: --rounds needs a positive number, not '${2:-}'" >&2; exit 2 ;;
		esac
		rounds=$2; shift 2 ;;
	--arms)
		case ${2:-} in
		''|*[!a-z0-9,-]*) echo "guest.sh: --arms needs a list like s4,s4-knob, not '${2:-}'" >&2; exit 2 ;;
		esac
		arms=$2; shift 2 ;;
	--kernel)
		case ${2:-} in
		baseline|patched) kernels=$2 ;;
		*) echo "guest.sh: --kernel is baseline or patched, not '${2:-}'" >&2; exit 2 ;;
		esac
		shift 2 ;;
	-h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "guest.sh: unknown option '$1'" >&2; exit 2 ;;
	*)
		case " $all " in
		*" $1 "*) names+=("$1") ;;
		*) echo "guest.sh: unknown experiment '$1' (one of: $all)" >&2; exit 2 ;;
		esac
		shift ;;
	esac
done
[ ${#names[@]} -gt 0 ] || read -ra names <<< "$all"
[ $quick = 1 ] || rounds=${rounds:-10}
# the guest script's arguments (memctl_args= on the kernel command line)
gargs=()
[ $quick = 1 ] && gargs+=(quick)
[ -n "$rounds" ] && gargs+=("rounds=$rounds")
# (the kernel command line separates the arguments by commas: arms by +)
[ -n "$arms" ] && gargs+=("arms=${arms//,/+}")
. "$repo/bench/stats.sh"

script_of() {
	case $1 in
	active) echo 10-active.sh ;;
	softlimit) echo 20-softlimit.sh ;;
	numa) echo 30-numa.sh ;;
	thp) echo 40-thp.sh ;;
	reclaim) echo 50-reclaim.sh ;;
	isolation) echo 60-isolation.sh ;;
	esac
}

memctl=${MEMCTL:-}
if [ -z "$memctl" ]; then
	for m in "$repo/build/release/memctl" "$repo/build/test/memctl"; do
		[ -x "$m" ] && { memctl=$m; break; }
	done
fi
[ -n "$memctl" ] && [ -x "$memctl" ] ||
	{ echo "guest.sh: no memctl binary (scripts/setup.sh release, or set MEMCTL)" >&2; exit 2; }
timeout=${MEMCTL_GUEST_TIMEOUT:-900}
# The guest's programs are built into a directory of our own: the shared
# one of the guest tests may be rebuilt from another checkout meanwhile.
export MEMCTL_GUEST_BIN=${MEMCTL_BENCH_GUEST_BIN:-$out/bin}

mkdir -p "$out/logs" || exit 2
results=$out/results.tsv
tables=$out/tables.txt
say() { echo "$*" | tee -a "$tables"; }
if [ $report = 1 ]; then
	[ -s "$results" ] || { echo "guest.sh: no $results to report" >&2; exit 2; }
	kernels=$(awk -F'\t' 'NR > 1 { print $2 }' "$results" | sort -u | tr '\n' ' ')
	kernels=${kernels% }
	: > "$tables"
	say "memctl guest benchmarks: the tables of $results (kernels: $kernels), $(date -u '+%Y-%m-%d %H:%M UTC')"
	say "(the measuring run's mode, rounds, date and load are in the output it printed)"
else
	printf 'experiment\tkernel\tscenario\tkey\tvalue\n' > "$results"
	: > "$tables"

say "memctl guest benchmarks, $([ $quick = 1 ] && echo quick || echo full) mode, $([ -n "$rounds" ] && echo "$rounds rounds" || echo "each script's quick rounds"), $(date -u '+%Y-%m-%d %H:%M UTC')"
say "host: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); guest: QEMU TCG, 2 vCPUs, 2 NUMA nodes x 512M, zram swap 256M"
say "memctl: $memctl ($(cd "$repo" && git rev-parse --short HEAD 2>/dev/null)$(cd "$repo" && git diff --quiet HEAD 2>/dev/null || echo +changes))"
fi

# bzimage KERNEL: the cached kernel image when it is built already; else
# kernel/build.sh builds it. A cached image is booted with --kernel, so a
# boot does not wait for build.sh's exclusive lock of the tree, which every
# other running guest on this machine holds shared.
bzimage() {
	local kopt=() src
	[ "$1" = baseline ] && kopt=(--baseline)
	src=$("$repo/kernel/build.sh" "${kopt[@]}" --print-dir) || return
	if [ -f "$(dirname "$src")/built" ] && [ -f "$src/arch/x86/boot/bzImage" ]; then
		echo "$src/arch/x86/boot/bzImage"
	else
		"$repo/kernel/build.sh" "${kopt[@]}" | tail -n 1
	fi
}

# boot NAME KERNEL: runs the experiment; appends its BENCH lines to results.
crashed=0
boot() {
	local name=$1 kernel=$2 log=$out/logs/$1-$2.log kopt=() rc t0 t1 image
	image=$(bzimage "$kernel") && [ -f "$image" ] ||
		{ echo "guest.sh: no $kernel kernel (kernel/build.sh failed)" >&2; exit 77; }
	kopt=(--kernel "$image")
	[ "$kernel" = baseline ] && kopt+=(--baseline)
	local lock=()
	[ -n "${MEMCTL_GUEST_LOCK:-}" ] && lock=(flock "$MEMCTL_GUEST_LOCK")
	echo "... $name: $kernel kernel, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
	# the boot's own time, without the wait for the lock
	rm -f "$out/logs/$name-$kernel.times"
	"${lock[@]}" bash -c 'f=$1; shift; t0=$(date +%s.%N); "$@"; rc=$?
		echo "$t0 $(date +%s.%N)" > "$f"; exit $rc' run-guest "$out/logs/$name-$kernel.times" \
		env MEMCTL_GUEST_LOG="$log" "$repo/kernel/run-guest.sh" "${kopt[@]}" --timeout "$timeout" \
		--memctl "$memctl" "bench/$(script_of "$name")" "${gargs[@]}" \
		> /dev/null 2> "$out/logs/$name-$kernel.err"
	rc=$?
	t0=0 t1=0
	[ -s "$out/logs/$name-$kernel.times" ] && read -r t0 t1 < "$out/logs/$name-$kernel.times"
	[ "$rc" = 77 ] && { cat "$out/logs/$name-$kernel.err" >&2; exit 77; }
	if [ "$rc" != 0 ]; then
		say "$name on $kernel: the guest failed (rc=$rc): $(tail -n 1 "$out/logs/$name-$kernel.err")"
		crashed=1
	fi
	printf '%s\t%s\t-\tguest_seconds\t%.1f\n' "$name" "$kernel" "$(echo "$t1 - $t0" | bc)" >> "$results"
	if ! grep -aq '^BENCH ' "$log" || grep -aq '^BENCH-ERROR ' "$log"; then
		say "$name on $kernel: no numbers or a scenario that could not be measured (see $log)"
		crashed=1
	fi
	tr -d '\r' < "$log" | awk -v k="$kernel" -v OFS='\t' '
		$1 == "BENCH" { for (i = 4; i <= NF; i++) { n = index($i, "=");
			if (n) print $2, k, $3, substr($i, 1, n - 1), substr($i, n + 1) } }
		$1 == "BENCH-ERROR" { m = $0; sub(/^BENCH-ERROR [^ ]* /, "", m);
			gsub(/\t/, " ", m); print $2, k, "-", "error", m }' >> "$results"
}

# table NAME TITLE REF RATIO_KEY COLUMNS...: one row per scenario and
# kernel. A column is KEY, or x:KEY for KEY's ratio to scenario REF of the
# same kernel, or b:KEY for the patched value's ratio to the baseline's in
# the same scenario. Scenarios with '#' (single runs of a repeated
# scenario) are in results.tsv only.
table() {
	local name=$1 title=$2 ref=$3
	shift 3
	{
		echo
		echo "== $name: $title"
		awk -F'\t' -v e="$name" -v ref="$ref" -v cols="$*" '
			NR > 1 && $1 == e && $3 != "-" && $3 !~ /#/ {
				if (!((k = $3 SUBSEP $2) in seen)) { seen[k] = 1; order[++n] = k }
				v[$3, $2, $4] = $5
			}
			NR > 1 && $1 == e && $4 == "error" { err[++ne] = $2 ": " $5 }
			NR > 1 && $1 == e && $4 == "guest_seconds" { gs[$2] = $5 }
			function num(x) { return x ~ /^-?[0-9.]+$/ }
			function ratio(a, b) { return (num(a) && num(b) && b + 0 != 0) ? sprintf("%.2f", a / b) : "-" }
			END {
				nc = split(cols, c, " ")
				line = sprintf("%-14s %-9s", "scenario", "kernel")
				for (i = 1; i <= nc; i++) {
					h = c[i]; sub(/^x:/, "", h); sub(/^b:/, "", h)
					if (c[i] ~ /^x:/) h = "x" ref
					if (c[i] ~ /^b:/) h = "patched/base"
					line = line sprintf(" %12s", h)
				}
				print line
				for (r = 1; r <= n; r++) {
					split(order[r], sk, SUBSEP); s = sk[1]; k = sk[2]
					line = sprintf("%-14s %-9s", s, k)
					for (i = 1; i <= nc; i++) {
						key = c[i]; sub(/^[xb]:/, "", key)
						if (c[i] ~ /^x:/) x = ratio(v[s, k, key], v[ref, k, key])
						else if (c[i] ~ /^b:/) x = (k == "patched") ? ratio(v[s, k, key], v[s, "baseline", key]) : ""
						else x = ((s, k, key) in v) ? v[s, k, key] : "-"
						line = line sprintf(" %12s", x)
					}
					print line
				}
				for (i = 1; i <= ne; i++) print "error: " err[i]
				printf "guest time:"
				if ("baseline" in gs) printf " baseline %ss", gs["baseline"]
				if ("patched" in gs) printf " patched %ss", gs["patched"]
				printf "\n"
			}' "$results"
	} | tee -a "$tables"
}

# spread NAME MEMCTL_ARM "ARM..." KEY...: per kernel and KEY, each arm's
# median and interquartile range over its rounds (scenarios ARM#N), and
# the rank test (Mann-Whitney, two-sided) of the memctl arm against each
# other arm, with the ratio of their medians. MEMCTL_ARM-aa, the memctl arm
# measured again in the same rounds, is the A/A control: its p and ratio
# are what noise alone gives.
spread() {
	local name=$1 m=$2 arms=$3 key k a med q1 q3 n u p r tmp
	shift 3
	tmp=$(mktemp -d) || return
	for key; do
		for k in $kernels; do
			for a in $m $arms; do
				awk -F'\t' -v e="$name" -v k="$k" -v a="$a" -v key="$key" '
					$1 == e && $2 == k && $4 == key && index($3, a "#") == 1 &&
					substr($3, length(a) + 2) ~ /^[0-9]+$/ && $5 ~ /^-?[0-9.]+$/ { print $5 }' \
					"$results" > "$tmp/$a"
			done
			[ -s "$tmp/$m" ] || continue
			echo
			echo "-- $name $key, $k kernel: median [q1 q3] over n rounds; $m/arm: ratio of medians; p: rank test of $m against the arm"
			printf '%-16s %10s %10s %10s %4s %10s %8s %8s\n' arm median q1 q3 n "$m/arm" U p
			for a in $m $arms; do
				[ -s "$tmp/$a" ] || continue
				read -r med q1 q3 n < <(stats_summary < "$tmp/$a")
				r=- u=- p=-
				if [ "$a" != "$m" ]; then
					read -r u p < <(stats_mwu "$tmp/$m" "$tmp/$a")
					r=$(awk -v a="$(stats_summary < "$tmp/$m" | cut -d' ' -f1)" -v b="$med" \
						'BEGIN { if (b != 0) printf "%.2f", a / b; else print "-" }')
				fi
				printf '%-16s %10s %10s %10s %4s %10s %8s %8s%s\n' "$a" "$med" "$q1" "$q3" "$n" "$r" "$u" "$p" \
					"$([ "$a" = "$m-aa" ] && echo '  (A/A)')"
			done
		done
	done | tee -a "$tables"
	rm -rf "$tmp"
}

for name in "${names[@]}"; do
	[ $report = 1 ] || for k in $kernels; do boot "$name" "$k"; done
	case $name in
	active)
		table active "a working-set job beside N streamers under one parent limit (x = ratio to alone)" \
			alone elapsed x:elapsed cpu refaults activations restores fallbacks resident_avg stream_mbps ws_low_mib
		for n in 1 4; do
			spread active s$n-memctl "s$n s$n-knob s$n-oracle s$n-memctl-aa" elapsed refaults
		done ;;
	softlimit)
		table softlimit "two memory-hungry jobs, two groups, one parent limit (x = ratio to no soft limit)" \
			none a_elapsed x:a_elapsed a_majflt x:a_majflt b_elapsed b_majflt elapsed x:elapsed majflt x:majflt \
			memctl_cpu memctl_reclaims memctl_got_mib
		spread softlimit memctl "none both0 order oracle memctl-aa" a_majflt elapsed majflt ;;
	numa)
		table numa "random reads beyond the group's limit, uneven page cache on 2 nodes (x = ratio to round-robin)" \
			rr pgscan x:pgscan pgsteal limit_reclaims reclaim_s x:reclaim_s reclaim_wall_s memctl_sys memctl_reclaims \
			reads_per_s x:reads_per_s n0_file_mib n1_file_mib
		spread numa weighted "none rr oracle weighted-aa" pgscan reclaim_s reads_per_s limit_reclaims
		spread numa map-weighted "map-none map-rr map-oracle map-weighted-aa" pgscan kept reclaim_s \
			reads_per_s ;;
	thp)
		table thp "faulting in a MADV_HUGEPAGE mapping under a high limit (x = ratio to naive high, same stride)" \
			- thp_alloc thp_fallback coverage_pct fallback_charge lat_avg_ms lat_max_ms sys elapsed high_mib
		for st in 4k 2m; do
			spread thp $st-memctl-defer "$st-naive-defer $st-oracle-defer $st-memctl-defer-aa" \
				coverage_pct thp_fallback elapsed
			spread thp $st-memctl "$st-naive $st-oracle" coverage_pct elapsed
		done ;;
	reclaim)
		table reclaim "parallel allocators under a tight limit, repeated runs (x = ratio to no cap)" \
			nocap runs oom_kills runs_with_oom failed elapsed_med x:elapsed_med elapsed_max cap_waits cap_skips
		spread reclaim nocap "cap1-memctl oracle cap2 nocap-aa" elapsed
		spread reclaim cap1-memctl oracle elapsed ;;
	isolation)
		table isolation "a fixed-rate service beside a growing hog, one parent limit (x = ratio to none)" \
			none base_rps iso_p1 iso_p50 lat_impact base_p95_us beside_p95_us refaults x:refaults oom_kills hog_mib
		spread isolation memctl "none oracle knob memctl-aa" iso_p1 lat_impact refaults ;;
	esac
done
[ -n "${BENCH_RESULTS:-}" ] && cp "$results" "$BENCH_RESULTS/guest.tsv"
echo
echo "results: $results; tables: $tables; console logs: $out/logs/"
exit $crashed
