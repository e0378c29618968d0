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
#                node): the memctl arm
#   weighted-aa  the same, later in the same round: the A/A control
#   oracle       no memctl; an expert who knows that the cold file is on
#                node 0 and never read again reclaims exactly its size from
#                N by hand before the reads (memory.reclaim "COLD nodes=0"
#                on the patched kernel; without nodes= on the stock one,
#                where at that moment the cold file is all N holds)
# On the patched kernel memctl reclaims each node's share with
# memory.reclaim "nodes="; the stock kernel has no nodes=, so there memctl
# computes the split but reclaims without it, and rr and weighted must come
# out alike (a control).
# Per scenario: pages scanned and stolen in N (memory.stat pgscan,
# pgsteal: the kernel's limit reclaim and memctl's reclaims together), the
# times the kernel's limit reclaim ran (memory.events max), the CPU time of
# the reclaims memctl asked for (reclaim_s: reclaim runs in the writer's
# context, and memctl run logs each reclaim's thread CPU time; for the
# oracle, the CPU of the shell's one write, in 10 ms ticks) and their wall
# time (reclaim_wall_s), memctl's whole system time (memctl_sys: its
# snapshots included), the reader's reads per second, and each node's page
# cache of N at the end. The full mode runs
# ROUNDS rounds of the scenarios, interleaved; the table shows
# medians (every round is in results.tsv).
#
# The map- scenarios (map-none, map-rr, map-weighted, map-weighted-aa,
# map-oracle: the same five arms) add what makes a node expensive to
# reclaim: before the reads, a toucher in N/r maps a MAP MiB file from CPU
# 1 (its pages land on node 1) and keeps reading every page of it (bjob
# maptouch). Reclaim that reaches those pages on node 1's inactive list
# finds them referenced and keeps them (scanned, not stolen: pgscan less
# pgsteal, the kept column), while node 0 holds only the cold file, every
# page of it cheap. N's limit is LIMIT + MAP, so the reader has the same
# room as in the plain arms. Extra columns: map_rss_mib, how much of the
# mapped file was still resident at the end (file_mapped of N), and
# sweeps, the toucher's sweeps over it. Without arms= both sets run, round
# by round; bench/guest.sh --arms map-none,map-rr,... runs one of them.
E=numa
. /tests/bench/blib.sh
need_disk

if [ $QUICK = 1 ]; then
	LIMIT=64 COLD=40 RAND=96 HOT=24 READS=20000 MAP=16
	rounds 1
else
	LIMIT=96 COLD=64 RAND=192 HOT=32 READS=60000 MAP=32
	rounds 10
fi
mkfile /mnt/disk/cold $COLD
mkfile /mnt/disk/rand $RAND
mkfile /mnt/disk/map $MAP

# profile MODE LIMIT_MIB
profile() {
	cat <<EOF
version: 1
parent: /
interval: 250ms
reclaim:
  numa: $1
groups:
  N:
    max: ${2}M
    groups:
      r: {}
EOF
}

# this shell's system time, in clock ticks (10 ms)
self_stime() { sed 's/.*) //' /proc/$$/stat | awk '{ print $13 }'; }

# touch_start: the map- arms' toucher, in N/r on CPU 1 (TOUCH_PID); returns
# once the whole mapped file is resident (at most 60 s).
touch_start() {
	rm -f /tmp/numa-stop
	spawn_in /tmp/numa-touch.out N/r taskset 2 bjob maptouch /mnt/disk/map /tmp/numa-stop
	TOUCH_PID=$! i=0
	while [ $i -lt 600 ] && [ "$(stat file_mapped N)" -lt $((MAP * MIB)) ]; do
		sleep 0.1; i=$((i + 1))
	done
}
# touch_stop: stops the toucher; sets MAP_RSS (MiB, at the end) and SWEEPS
# (nothing for the plain arms).
touch_stop() {
	MAP_RSS= SWEEPS=
	[ -n "$TOUCH_PID" ] || return 0
	MAP_RSS=$(( $(stat file_mapped N) / MIB ))
	touch /tmp/numa-stop
	wait $TOUCH_PID
	SWEEPS=$(field sweeps "$(cat /tmp/numa-touch.out)")
	TOUCH_PID=
}

# oracle: the expert's one write of the cold file's size, timed (ORACLE_S
# its CPU in 10 ms ticks, ORACLE_WALL its wall time; SHORT=1 when it fell
# short: memory.reclaim fails with EAGAIN then)
oracle() {
	how=${COLD}M
	patched && how="${COLD}M nodes=0"
	c0=$(ucs) k0=$(self_stime)
	echo "$how" > $CG/N/memory.reclaim 2> /dev/null || SHORT=1
	ORACLE_WALL=$(secs $c0 $(ucs)) ORACLE_S=$(secs $k0 $(self_stime))
}

# scenario NAME MODE(none|oracle|round-robin|weighted); map-NAME: with the
# toucher
scenario() {
	name=$1 mode=$2 lim=$LIMIT TOUCH_PID=
	want $name || return 0
	case $name in map-*) lim=$((LIMIT + MAP)) ;; esac
	mkgroup N
	echo ${lim}M > $CG/N/memory.max
	mkdir $CG/N/r
	resident --drop /mnt/disk/cold /mnt/disk/rand /mnt/disk/map > /dev/null
	run_in N/r taskset 1 cat /mnt/disk/cold > /dev/null
	case $name in map-*) touch_start ;; esac
	if [ $mode != none ] && [ $mode != oracle ]; then
		profile $mode $lim > /tmp/numa.yaml
		memctl_start /tmp/numa.yaml /tmp/numa-$name.log || { touch_stop; rmgroup N; return; }
	fi
	s0=$(stat pgscan N) t0=$(stat pgsteal N) m0=$(event max N)
	SHORT=0 ORACLE_S= ORACLE_WALL=
	[ $mode = oracle ] && oracle
	out=$(run_in N/r taskset 2 bjob randread /mnt/disk/rand $READS $HOT)
	s1=$(stat pgscan N) t1=$(stat pgsteal N) m1=$(event max N)
	memctl_stop
	touch_stop
	nreclaims=0 rcpu=0 rwall=0
	case $mode in
	none) ;;
	oracle) nreclaims=1 ;;
	*)
		memctl_reclaims /tmp/numa-$name.log
		nreclaims=$MEMCTL_NRECL rwall=$MEMCTL_RWALL rcpu=$MEMCTL_RCPU
		[ $QUICK = 1 ] && sed 's/^/memctl: /' /tmp/numa-$name.log | tail -n 8 ;;
	esac
	el=$(field elapsed "$out")
	case $el in '') berr "$name: the reader failed: $out"; rmgroup N; return ;; esac
	bench_round $name mode=$mode pgscan=$((s1 - s0)) pgsteal=$((t1 - t0)) kept=$((s1 - s0 - t1 + t0)) \
		limit_reclaims=$((m1 - m0)) reclaim_s=${ORACLE_S:-$rcpu} reclaim_wall_s=${ORACLE_WALL:-$rwall} \
		memctl_sys=$MEMCTL_SYS reclaim_short=$SHORT memctl_reclaims=$nreclaims elapsed=$el \
		reads_per_s=$(awk -v n=$READS -v t=$el 'BEGIN { printf "%.0f", n / t }') \
		n0_file_mib=$(( $(numa file N 0) / MIB )) n1_file_mib=$(( $(numa file N 1) / MIB )) \
		${MAP_RSS:+map_rss_mib=$MAP_RSS sweeps=$SWEEPS}
	rmgroup N
}

r=0
while [ $r -lt $ROUNDS ]; do
	for set in "" map-; do
		scenario ${set}weighted weighted
		scenario ${set}none none
		scenario ${set}rr round-robin
		scenario ${set}oracle oracle
		scenario ${set}weighted-aa weighted
	done
	r=$((r + 1))
done
for s in none rr oracle weighted weighted-aa; do
	bench_medians $s
	bench_medians map-$s
done
exit 0
