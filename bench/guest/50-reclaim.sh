# Experiment 5, reclaim concurrency (seed: no false OOM kill, 150 groups
# 767 s -> 128 s).
#
# A storm: ALLOCS allocators (memhog, from tests/guest) start together in
# a fresh group under a tight limit, each writing its buffer ROUNDS times,
# so most of them reclaim at once (the rest of their memory goes to zram
# swap). Each configuration runs RUNS storms. Configurations:
#   nocap        vm.max_reclaimers_per_node 0 (no cap; the stock kernel's
#                only choice)
#   cap1-memctl  (patched) at most 1 direct reclaimer per node, set by
#                `memctl apply` of a profile with reclaim.kernel_per_node: 1
#                (vm.max_reclaimers_per_node); the others wait and re-check
#                whether reclaim is still needed
#   cap2         (patched) at most 2, set by hand
# Per configuration: OOM kills (memory.events oom_kill, summed), runs with
# at least one, allocators that did not finish, the median and the maximum
# of a storm's elapsed, and (patched) how often reclaimers waited for a
# slot and how many reclaims were skipped as no longer needed.
# memctl's own reclaim.concurrency caps only memctl's proactive reclaims,
# not the jobs' direct reclaim; on the stock kernel memctl has nothing to
# set here (its apply prints a skip line), so memctl has no baseline row.
E=reclaim
. /tests/bench/blib.sh

if [ $QUICK = 1 ]; then
	RUNS=2 ALLOCS=8 MIB=6 LIMIT=16 ROUNDS=2
else
	RUNS=20 ALLOCS=16 MIB=6 LIMIT=24 ROUNDS=2
fi
echo never > /sys/kernel/mm/transparent_hugepage/enabled

# storm NAME: one storm in a fresh group; sets oom, secs, fails
storm() {
	rmgroup $1
	mkdir $CG/$1
	echo ${LIMIT}M > $CG/$1/memory.max
	rm -f /tmp/go-$1
	pids=
	i=0
	while [ $i -lt $ALLOCS ]; do
		spawn_in /dev/null $1 memhog -b /tmp/go-$1 -r $ROUNDS $MIB
		pids="$pids $!"
		i=$((i + 1))
	done
	while [ $(wc -l < $CG/$1/cgroup.procs) -lt $ALLOCS ]; do sleep 0.05; done
	t0=$(ucs)
	touch /tmp/go-$1
	fails=0
	for p in $pids; do wait $p || fails=$((fails + 1)); done
	t1=$(ucs)
	secs=$(secs $t0 $t1)
	oom=$(event oom_kill $1)
	rmgroup $1
}

# config NAME CAP [memctl]: RUNS storms; per-run lines NAME#N and a summary
# line. With memctl, memctl apply sets the cap.
config() {
	name=$1
	want $name || return 0
	if [ "${3:-}" = memctl ]; then
		printf 'version: 1\nparent: /\nreclaim:\n  kernel_per_node: %s\n' $2 > /tmp/reclaim.yaml
		memctl apply /tmp/reclaim.yaml > /tmp/reclaim-apply.log 2>&1 ||
			{ berr "$name: memctl apply failed: $(tail -n 2 /tmp/reclaim-apply.log | tr '\n' ' ')"; return; }
		[ "$(cat /proc/sys/vm/max_reclaimers_per_node)" = $2 ] ||
			{ berr "$name: memctl apply did not set vm.max_reclaimers_per_node"; return; }
	else
		echo $2 2>/dev/null > /proc/sys/vm/max_reclaimers_per_node ||
			{ [ $2 = 0 ] || { berr "$name: no vm.max_reclaimers_per_node"; return; }; }
	fi
	w0=$(vmstat reclaim_cap_wait) s0=$(vmstat reclaim_cap_skip)
	n=1 ooms=0 oomruns=0 failed=0 times=
	while [ $n -le $RUNS ]; do
		storm st
		bench "$name#$n" oom_kills=$oom failed=$fails elapsed=$secs
		ooms=$((ooms + oom)) failed=$((failed + fails))
		[ $oom -gt 0 ] && oomruns=$((oomruns + 1))
		times="$times $secs"
		n=$((n + 1))
	done
	w1=$(vmstat reclaim_cap_wait) s1=$(vmstat reclaim_cap_skip)
	med=$(echo $times | tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END {
		printf "%.2f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	max=$(echo $times | tr ' ' '\n' | sort -n | tail -n 1)
	bench $name cap=$2 runs=$RUNS oom_kills=$ooms runs_with_oom=$oomruns failed=$failed \
		elapsed_med=$med elapsed_max=$max \
		cap_waits=$([ -n "$w0" ] && echo $((w1 - w0)) || echo -) \
		cap_skips=$([ -n "$s0" ] && echo $((s1 - s0)) || echo -)
	[ -e /proc/sys/vm/max_reclaimers_per_node ] && echo 0 > /proc/sys/vm/max_reclaimers_per_node
}

config nocap 0
if patched; then
	config cap1-memctl 1 memctl
	config cap2 2
fi
exit 0
