# Experiment 5, reclaim concurrency (seed: no false OOM kill, 150 groups
# 767 s -> 128 s).
#
# A storm: ALLOCS allocators (memhog, from tests/guest) start together in
# a fresh group under a tight limit, each writing its buffer WRITES times,
# so most of them reclaim at once (the rest of their memory goes to zram
# swap). Each round runs one storm per configuration, the configurations
# in turn (ROUNDS rounds: 20 by default, bench/guest.sh --rounds N):
#   nocap        vm.max_reclaimers_per_node 0 (no cap; the stock kernel's
#                only choice)
#   cap1-memctl  (patched) the cap memctl chooses from intent alone:
#                `memctl apply` of a profile with reclaim.kernel_per_node:
#                auto, the fewest CPUs of a node (1 on this guest), written
#                to vm.max_reclaimers_per_node; the other reclaimers wait
#                and re-check whether reclaim is still needed
#   oracle       (patched) the cap an expert sets by hand for this storm:
#                the CPUs of a node (1 on this guest: 2 vCPUs, one per
#                node; computed below from sysfs). The expert's reasoning:
#                a reclaim counts against the node its task allocates on,
#                and no more of that node's reclaimers than its CPUs run
#                at once; the others would sit preempted inside reclaim
#                with their isolated batches, what leaves the last ones
#                nothing to reclaim (the seed's false OOM kill), so a
#                larger cap buys nothing, and a smaller one would leave
#                a CPU of the node idle while reclaim is due. memctl's
#                auto follows the same reasoning (engine/plan.c), so the
#                two arms set the same value when memctl gets it right:
#                setcap checks that it did
#   cap2         (patched) at most 2, set by hand
#   nocap-aa     nocap again: the A/A control
# Per storm (round NAME#N): OOM kills (memory.events oom_kill), allocators
# that did not finish, the storm's elapsed, and (patched) how often
# reclaimers waited for a slot and how many reclaims were skipped as no
# longer needed.
# Per configuration: those summed, the storms with an OOM kill, and the
# median and the maximum storm time.
# memctl's own reclaim.concurrency caps only memctl's proactive reclaims,
# not the jobs' direct reclaim; on the stock kernel memctl has nothing to
# set here (its apply prints a skip line), so memctl has no baseline row.
E=reclaim
. /tests/bench/blib.sh

# ROUNDS is the number of storms per configuration, WRITES how often each
# allocator writes its buffer.
if [ $QUICK = 1 ]; then
	ALLOCS=8 MIB=6 LIMIT=16 WRITES=2
	rounds 2
else
	ALLOCS=16 MIB=6 LIMIT=24 WRITES=2
	rounds 20
fi
echo never > /sys/kernel/mm/transparent_hugepage/enabled
# The oracle's cap: CPUs per NUMA node, at least 1.
NNODES=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
ORACLE_CAP=$(( $(grep -c '^processor' /proc/cpuinfo) / (NNODES > 0 ? NNODES : 1) ))
[ $ORACLE_CAP -ge 1 ] || ORACLE_CAP=1

# storm NAME: one storm in a fresh group; sets oom, secs, fails
storm() {
	rmgroup $1
	mkdir $CG/$1
	echo ${LIMIT}M > $CG/$1/memory.max
	rm -f /tmp/go-$1
	pids=
	i=0
	while [ $i -lt $ALLOCS ]; do
		spawn_in /dev/null $1 memhog -b /tmp/go-$1 -r $WRITES $MIB
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

# setcap NAME CAP [memctl]: set vm.max_reclaimers_per_node (with memctl:
# through memctl apply of intent only, kernel_per_node: auto, checked to
# come out as CAP); 1 when it could not be set.
setcap() {
	if [ "${3:-}" = memctl ]; then
		printf 'version: 1\nparent: /\nreclaim:\n  kernel_per_node: auto\n' > /tmp/reclaim.yaml
		memctl apply /tmp/reclaim.yaml > /tmp/reclaim-apply.log 2>&1 ||
			{ berr "$1: memctl apply failed: $(tail -n 2 /tmp/reclaim-apply.log | tr '\n' ' ')"; return 1; }
		[ "$(cat /proc/sys/vm/max_reclaimers_per_node)" = $2 ] ||
			{ berr "$1: memctl apply did not set vm.max_reclaimers_per_node to $2"; return 1; }
	else
		echo $2 2>/dev/null > /proc/sys/vm/max_reclaimers_per_node ||
			{ [ $2 = 0 ] || { berr "$1: no vm.max_reclaimers_per_node"; return 1; }; }
	fi
}

# config NAME CAP [memctl]: one storm of this round under the cap, kept as
# round NAME#N.
config() {
	want $1 || return 0
	setcap "$@" || return
	w0=$(vmstat reclaim_cap_wait) s0=$(vmstat reclaim_cap_skip)
	storm st
	w1=$(vmstat reclaim_cap_wait) s1=$(vmstat reclaim_cap_skip)
	bench_round $1 cap=$2 oom_kills=$oom failed=$fails elapsed=$secs \
		cap_waits=$([ -n "$w0" ] && echo $((w1 - w0)) || echo -) \
		cap_skips=$([ -n "$s0" ] && echo $((s1 - s0)) || echo -)
	[ -e /proc/sys/vm/max_reclaimers_per_node ] && echo 0 > /proc/sys/vm/max_reclaimers_per_node
}

# summary NAME: the configuration's storms together: totals of OOM kills,
# failed allocators and the cap's counters, storms with an OOM kill, the
# median and the maximum storm time.
summary() {
	[ -s /tmp/rounds-$E-$1 ] || return 0
	bench $1 $(awk "$AWK_MEDIAN"' { for (i = 1; i <= NF; i++) { k = substr($i, 1, index($i, "=") - 1)
			v[k] = substr($i, index($i, "=") + 1) }
		cap = v["cap"]; ooms += v["oom_kills"]; if (v["oom_kills"] > 0) oomruns++
		failed += v["failed"]; t[NR] = v["elapsed"] + 0
		if (v["cap_waits"] == "-") nocnt = 1; else { waits += v["cap_waits"]; skips += v["cap_skips"] } }
		END { printf "cap=%s runs=%d oom_kills=%d runs_with_oom=%d failed=%d", cap, NR, ooms, oomruns + 0, failed
			med = median(t, NR)
			printf " elapsed_med=%.2f elapsed_max=%.2f", med, t[NR]
			if (nocnt) printf " cap_waits=- cap_skips=-\n"; else printf " cap_waits=%d cap_skips=%d\n", waits, skips }' \
		/tmp/rounds-$E-$1)
}

# Round by round, one storm per configuration; nocap-aa is nocap again in
# the same rounds, the A/A control.
r=0
while [ $r -lt $ROUNDS ]; do
	config nocap 0
	if patched; then
		config cap1-memctl $ORACLE_CAP memctl
		config oracle $ORACLE_CAP
		config cap2 2
	fi
	config nocap-aa 0
	r=$((r + 1))
done
for s in nocap cap1-memctl oracle cap2 nocap-aa; do summary $s; done
exit 0
