# Experiment 4, THP-aware high (seed: THP coverage 37% -> 100%).
#
# A job of two processes (bjob thp, one per CPU) faults in MADV_HUGEPAGE
# mappings larger together than its group's limit, by 4 KiB strides (every
# page) and by 2 MiB strides (one byte per huge page), under a high limit
# just below max. Two at once matter: the room one's reclaim makes below
# max can be taken by the other before its huge-page charge retries. Scenarios, per
# stride:
#   4k-naive, 2m-naive     high 1 MiB below max: no room for a 2 MiB charge
#                          between them, so huge-page charges meet max
#   4k-memctl, 2m-memctl   the same naive high, then `memctl apply` of a
#                          profile with max and thp: true, which lowers it
#                          as memctl computes for a THP group: on a 2 MiB
#                          boundary, 2 MiB per CPU of room below max
#   4k-oracle, 2m-oracle   no memctl: the high an expert sets by hand who
#                          knows that the job is two huge-page faulters at
#                          once, one per CPU: each needs 2 MiB free below
#                          max when its charge may not reclaim, so high =
#                          max - 2 MiB x CPUs, rounded down to 2 MiB (the
#                          group hovers at high, see docs). It is computed
#                          here from max and the guest's CPU count, not
#                          taken from memctl; that it comes out equal to
#                          memctl's is the point of the comparison
#   ...-defer              the same six with THP defrag "defer" instead of
#                          "madvise". With "madvise" a fault in a
#                          MADV_HUGEPAGE mapping charges with GFP_TRANSHUGE,
#                          which may reclaim: a huge-page charge at max
#                          reclaims and retries, up to 16 times, until
#                          2 MiB fit below max, which with swap they did
#                          every time so far (no fallback). With
#                          "defer" (as with "never", or the default
#                          "madvise" in a mapping not madvised under
#                          enabled=always) it charges with
#                          GFP_TRANSHUGE_LIGHT, which may not reclaim:
#                          try_charge_memcg() fails a charge that does not
#                          fit below max at once, and the fault falls back
#                          to small pages. That is where the room below max
#                          decides the coverage.
#   ...-memctl-defer-aa    the memctl arm of defer again in the same rounds:
#                          the A/A control
# Per scenario: huge-page faults that got a huge page (thp_alloc) and that
# fell back (thp_fallback, /proc/vmstat thp_fault_alloc and
# thp_fault_fallback), coverage (thp_alloc / both), the kernel patch's
# per-cgroup count of failed huge-page charges (fallback_charge, memory.stat
# thp_fault_fallback_charge, "-" on the stock kernel), the job's per-2 MiB
# fault latency (average of the two, maximum), their system time together,
# the wall time until both finished, and the high limit used. The full
# mode runs ROUNDS rounds of the fourteen scenarios, interleaved, and the
# table shows each number's median over them (every round is in
# results.tsv).
E=thp
. /tests/bench/blib.sh
[ -e /sys/kernel/mm/transparent_hugepage/enabled ] || { berr "no THP in this kernel"; exit 0; }
echo madvise > /sys/kernel/mm/transparent_hugepage/enabled

if [ $QUICK = 1 ]; then
	LIMIT=32 SIZE=64
	rounds 1
else
	LIMIT=64 SIZE=160
	rounds 10
fi

# The oracle's high, in MiB: 2 MiB of room below max per concurrent
# faulter (one job per CPU), on a 2 MiB boundary.
NCPU=$(grep -c '^processor' /proc/cpuinfo)
ORACLE_HIGH=$(( (LIMIT - 2 * NCPU) / 2 * 2 ))

cat > /tmp/thp.yaml <<EOF
version: 1
parent: /
groups:
  T:
    max: ${LIMIT}M
    thp: true
EOF

# scenario NAME STRIDE MODE(naive|memctl|oracle) DEFRAG(madvise|defer)
scenario() {
	name=$1 stride=$2 mode=$3 defrag=$4
	want $name || return 0
	echo $defrag > /sys/kernel/mm/transparent_hugepage/defrag ||
		{ berr "$name: cannot set THP defrag to $defrag"; return; }
	rmgroup T
	mkdir $CG/T
	echo ${LIMIT}M > $CG/T/memory.max
	# The naive high, set by hand; memctl then corrects it for a THP
	# group. The expert writes the right one at once.
	if [ $mode = oracle ]; then
		echo $((ORACLE_HIGH * MIB)) > $CG/T/memory.high
	else
		echo $(( (LIMIT - 1) * MIB )) > $CG/T/memory.high
	fi
	if [ $mode = memctl ]; then
		memctl apply /tmp/thp.yaml > /tmp/thp-apply.log 2>&1 ||
			{ berr "$name: memctl apply failed: $(tail -n 2 /tmp/thp-apply.log | tr '\n' ' ')"; rmgroup T; return; }
		[ $QUICK = 1 ] && sed 's/^/memctl: /' /tmp/thp-apply.log
	fi
	high=$(cat $CG/T/memory.high)
	a0=$(vmstat thp_fault_alloc) f0=$(vmstat thp_fault_fallback)
	t0=$(ucs)
	spawn_in /tmp/thp.0 T taskset 1 bjob thp $((SIZE / 2)) $stride; p0=$!
	spawn_in /tmp/thp.1 T taskset 2 bjob thp $((SIZE / 2)) $stride; p1=$!
	wait $p0; wait $p1
	t1=$(ucs)
	a1=$(vmstat thp_fault_alloc) f1=$(vmstat thp_fault_fallback)
	o0=$(cat /tmp/thp.0) o1=$(cat /tmp/thp.1)
	case $o0$o1 in *elapsed=*elapsed=*) ;; *) berr "$name: a job failed: $o0 $o1"; rmgroup T; return ;; esac
	fc=$(stat thp_fault_fallback_charge T)
	a=$((a1 - a0)) f=$((f1 - f0))
	bench_round $name stride=$stride mode=$mode defrag=$defrag thp_alloc=$a thp_fallback=$f \
		coverage_pct=$(awk -v a=$a -v f=$f 'BEGIN { printf "%.0f", a + f ? 100 * a / (a + f) : 0 }') \
		fallback_charge=${fc:--} \
		lat_avg_ms=$(awk -v a=$(field lat_avg_ms "$o0") -v b=$(field lat_avg_ms "$o1") 'BEGIN { printf "%.3f", (a + b) / 2 }') \
		lat_max_ms=$(awk -v a=$(field lat_max_ms "$o0") -v b=$(field lat_max_ms "$o1") 'BEGIN { print (a + 0 > b + 0 ? a : b) }') \
		sys=$(awk -v a=$(field sys "$o0") -v b=$(field sys "$o1") 'BEGIN { printf "%.3f", a + b }') \
		elapsed=$(secs $t0 $t1) high_mib=$(awk -v h=$high 'BEGIN { printf "%.1f", h / 1048576 }')
	rmgroup T
}

r=0
while [ $r -lt $ROUNDS ]; do
	for defrag in madvise defer; do
		sfx=
		[ $defrag = defer ] && sfx=-defer
		for stride in 4K 2M; do
			s=$(echo $stride | tr KM km)
			scenario $s-naive$sfx $stride naive $defrag
			scenario $s-memctl$sfx $stride memctl $defrag
			scenario $s-oracle$sfx $stride oracle $defrag
			# The A/A control: the memctl arm of defer again.
			[ $defrag = defer ] && scenario $s-memctl$sfx-aa $stride memctl $defrag
		done
	done
	r=$((r + 1))
done
for sfx in '' -defer; do
	for s in 4k 2m; do
		for a in naive memctl oracle; do bench_medians $s-$a$sfx; done
		[ -n "$sfx" ] && bench_medians $s-memctl$sfx-aa
	done
done
exit 0
