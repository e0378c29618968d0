# vm.max_reclaimers_per_node: many parallel allocators under a tight limit.
# Each storm runs 16 allocators of 8M in a group limited to 40M (the rest
# goes to zram swap) and counts OOM kills and elapsed time.  The patched
# kernel runs the storm without the cap and with cap 1, the baseline
# without; the host side compares the numbers.
T=reclaimer-cap
. /tests/lib.sh
uptime_cs() { awk '{ split($1, a, "."); print a[1] * 100 + a[2] }' /proc/uptime; }

# Small pages only: each touch of a swapped-out page is a charge.
echo never > /sys/kernel/mm/transparent_hugepage/enabled

# storm NAME: run the storm in a fresh group NAME; sets oom, secs, fails.
# The allocators start together: each waits for /tmp/go-NAME, created
# once all 16 are in the group.
storm() {
	mkdir -p $CG/$1
	echo 40M > $CG/$1/memory.max
	pids=
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
		run_in $1 memhog -b /tmp/go-$1 -r 3 8 &
		pids="$pids $!"
	done
	while [ $(wc -l < $CG/$1/cgroup.procs) -lt 16 ]; do :; done
	t0=$(uptime_cs)
	touch /tmp/go-$1
	fails=0
	for p in $pids; do wait $p || fails=$((fails + 1)); done
	t1=$(uptime_cs)
	secs=$(( (t1 - t0) / 100 )).$(( (t1 - t0) % 100 / 10 ))
	oom=$(event oom_kill $1)
	scanned=$(stat pgscan $1)
	say "$1: oom_kill=$oom failed=$fails elapsed=${secs}s" \
		"peak=$(($(cat $CG/$1/memory.peak) / MIB))M pgscan=$(stat pgscan $1)" \
		"pswpout=$(vmstat pswpout)"
}

if patched; then
	echo 0 > /proc/sys/vm/max_reclaimers_per_node
	storm nocap
	result nocap_oom_kill $oom
	result nocap_seconds $secs
	check "the storm without cap hit the limit (pages scanned)" [ "$scanned" -gt 0 ]
	w0=$(vmstat reclaim_cap_wait) s0=$(vmstat reclaim_cap_skip)
	echo 1 > /proc/sys/vm/max_reclaimers_per_node
	storm cap1
	echo 0 > /proc/sys/vm/max_reclaimers_per_node
	w1=$(vmstat reclaim_cap_wait) s1=$(vmstat reclaim_cap_skip)
	say "cap1: reclaim_cap_wait +$((w1 - w0)) reclaim_cap_skip +$((s1 - s0))"
	result cap_oom_kill $oom
	result cap_seconds $secs
	result cap_waits $((w1 - w0))
	result cap_skips $((s1 - s0))
	check "the storm with cap hit the limit (pages scanned)" [ "$scanned" -gt 0 ]
	check "with the cap, no allocator was OOM-killed" [ "$oom" = 0 -a "$fails" = 0 ]
	check "reclaimers waited for a slot" [ $((w1 - w0)) -gt 0 ]
else
	storm nocap
	result nocap_oom_kill $oom
	result nocap_seconds $secs
fi
finish
