# Experiment 3, NUMA weighting (seed: pages scanned 156k -> 116k, reclaim
# time 1.27 s -> 0.62 s).
#
# A group N/r holds a cold file's page cache on node 0 (read once from
# CPU 0) and then does random 4 KiB reads of a file larger than N's limit
# from CPU 1 (three in four to a hot quarter of it), so its own cache grows
# on node 1, much of it active: the page cache is uneven across the two
# nodes, and node 0's is the cheap one to reclaim. memctl
# run keeps N below its limit with proactive reclaims. Scenarios:
#   none         no memctl: only the kernel's limit reclaim
#   rr           memctl run, reclaim.numa: round-robin
#   weighted     memctl run, reclaim.numa: weighted (by inactive pages per
#                node)
# On the patched kernel memctl reclaims each node's share with
# memory.reclaim "nodes="; the stock kernel has no nodes=, so there memctl
# computes the split but reclaims without it, and rr and weighted must come
# out alike (a control).
# Per scenario: pages scanned and stolen in N (memory.stat pgscan,
# pgsteal), memctl's system time (the time spent in its memory.reclaim
# writes: reclaim runs in the writer's context), the reader's reads per
# second, and each node's page cache of N at the end. The full mode runs
# ROUNDS rounds of the three scenarios, interleaved; the table shows
# medians (every round is in results.tsv).
E=numa
. /tests/bench/blib.sh
need_disk

if [ $QUICK = 1 ]; then
	LIMIT=64 COLD=40 RAND=96 HOT=24 READS=20000 ROUNDS=1
else
	LIMIT=96 COLD=64 RAND=192 HOT=32 READS=60000 ROUNDS=3
fi
mkfile /mnt/disk/cold $COLD
mkfile /mnt/disk/rand $RAND

profile() {
	cat <<EOF
version: 1
parent: /
interval: 250ms
reclaim:
  numa: $1
groups:
  N:
    max: ${LIMIT}M
    groups:
      r: {}
EOF
}

# scenario NAME MODE(none|round-robin|weighted)
scenario() {
	name=$1 mode=$2
	mkgroup N
	echo ${LIMIT}M > $CG/N/memory.max
	mkdir $CG/N/r
	resident --drop /mnt/disk/cold /mnt/disk/rand > /dev/null
	run_in N/r taskset 1 cat /mnt/disk/cold > /dev/null
	if [ $mode != none ]; then
		profile $mode > /tmp/numa.yaml
		memctl_start /tmp/numa.yaml /tmp/numa-$name.log || { rmgroup N; return; }
	fi
	s0=$(stat pgscan N) t0=$(stat pgsteal N)
	out=$(run_in N/r taskset 2 bjob randread /mnt/disk/rand $READS $HOT)
	s1=$(stat pgscan N) t1=$(stat pgsteal N)
	memctl_stop
	nreclaims=0
	[ $mode != none ] && nreclaims=$(grep -c ': reclaim ' /tmp/numa-$name.log)
	[ $mode != none ] && [ $QUICK = 1 ] && sed 's/^/memctl: /' /tmp/numa-$name.log | tail -n 8
	el=$(field elapsed "$out")
	case $el in '') berr "$name: the reader failed: $out"; rmgroup N; return ;; esac
	bench_round $name mode=$mode pgscan=$((s1 - s0)) pgsteal=$((t1 - t0)) reclaim_s=$MEMCTL_SYS \
		memctl_reclaims=$nreclaims elapsed=$el \
		reads_per_s=$(awk -v n=$READS -v t=$el 'BEGIN { printf "%.0f", n / t }') \
		n0_file_mib=$(( $(numa file N 0) / MIB )) n1_file_mib=$(( $(numa file N 1) / MIB ))
	rmgroup N
}

r=0
while [ $r -lt $ROUNDS ]; do
	scenario none none
	scenario rr round-robin
	scenario weighted weighted
	r=$((r + 1))
done
for s in none rr weighted; do bench_medians $s; done
exit 0
