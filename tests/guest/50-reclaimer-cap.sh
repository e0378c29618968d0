# vm.max_reclaimers_per_node: many parallel allocators under a tight limit.
#
#   50-reclaimer-cap.sh [STORMS]     (default 2; kernel/run-guest.sh passes it)
#
# A storm: 64 allocators, each touching 1M five times, start together in a
# group limited to 6M; what does not fit goes to zram swap.  The 64 tasks'
# kernel memory (stacks, page tables) takes about half the limit, so their
# reclaimers fight over a few hundred pages and on 6.1 some of them find
# nothing to reclaim and OOM-kill an allocator although others are freeing
# pages at that moment (measured in a two-CPU guest: the baseline killed in
# 4 of 8 storms, the patched kernel without cap in 3 of 8, with cap 1 in
# none).  The patched kernel alternates storms without and with cap 1, the
# baseline runs them without; OOM kills come from each group's
# memory.events.  Only "no OOM kill with the cap" is asserted: whether a
# storm without cap kills is a race, reported but not required.
T=reclaimer-cap
. /tests/lib.sh
uptime_cs() { awk '{ split($1, a, "."); print a[1] * 100 + a[2] }' /proc/uptime; }
storms=${1:-2}
NPROC=64

# Small pages only: each touch of a swapped-out page is a charge.
echo never > /sys/kernel/mm/transparent_hugepage/enabled

# storm NAME: run a storm in a fresh group NAME; sets oom, fails, cs
# (elapsed centiseconds), scanned.  The allocators start together: each
# waits for /tmp/go-NAME, created once all of them are in the group.
storm() {
	mkdir -p $CG/$1
	echo 6M > $CG/$1/memory.max
	pids=
	i=0
	while [ $i -lt $NPROC ]; do
		run_in $1 memhog -b /tmp/go-$1 -r 5 1 &
		pids="$pids $!"
		i=$((i + 1))
	done
	while [ $(wc -l < $CG/$1/cgroup.procs) -lt $NPROC ]; do :; done
	t0=$(uptime_cs)
	touch /tmp/go-$1
	fails=0
	for p in $pids; do wait $p || fails=$((fails + 1)); done
	cs=$(( $(uptime_cs) - t0 ))
	oom=$(event oom_kill $1)
	scanned=$(stat pgscan $1)
	say "$1: oom_kill=$oom failed=$fails elapsed=$((cs / 100)).$((cs % 100 / 10))s" \
		"pgscan=$scanned pgsteal=$(stat pgsteal $1)"
	rmdir $CG/$1
}

# Totals per mode: storms that OOM-killed, kills, failed allocators,
# elapsed time, and whether every storm reached the limit.
for m in nocap cap; do
	eval "${m}_kstorms=0 ${m}_kills=0 ${m}_fails=0 ${m}_cs=0 ${m}_noscan=0"
done
tally() {	# MODE
	[ "$oom" -gt 0 ] && eval "$1_kstorms=\$(($1_kstorms + 1))"
	eval "$1_kills=\$(($1_kills + oom)) $1_fails=\$(($1_fails + fails))"
	eval "$1_cs=\$(($1_cs + cs))"
	[ "$scanned" -gt 0 ] || eval "$1_noscan=\$(($1_noscan + 1))"
}
report() {	# MODE
	eval "result $1_storms_with_oom_kill \$$1_kstorms/$storms"
	eval "result $1_oom_kills \$$1_kills"
	eval "result $1_seconds_per_storm \$(($1_cs / storms / 100)).\$(($1_cs / storms % 100 / 10))"
}

if patched; then
	w0=$(vmstat reclaim_cap_wait) s0=$(vmstat reclaim_cap_skip)
	r=0
	while [ $r -lt $storms ]; do
		echo 0 > /proc/sys/vm/max_reclaimers_per_node
		storm nocap$r
		tally nocap
		echo 1 > /proc/sys/vm/max_reclaimers_per_node
		storm cap$r
		tally cap
		r=$((r + 1))
	done
	echo 0 > /proc/sys/vm/max_reclaimers_per_node
	w1=$(vmstat reclaim_cap_wait) s1=$(vmstat reclaim_cap_skip)
	say "cap 1: reclaim_cap_wait +$((w1 - w0)) reclaim_cap_skip +$((s1 - s0))"
	report nocap
	report cap
	result cap_waits $((w1 - w0))
	result cap_skips $((s1 - s0))
	check "every storm hit the limit (pages scanned)" [ $((nocap_noscan + cap_noscan)) = 0 ]
	check "with cap 1, no allocator was OOM-killed in $storms storms" \
		[ "$cap_kills" = 0 -a "$cap_fails" = 0 ]
	check "reclaimers waited for a slot" [ $((w1 - w0)) -gt 0 ]
else
	r=0
	while [ $r -lt $storms ]; do
		storm nocap$r
		tally nocap
		r=$((r + 1))
	done
	report nocap
	check "every storm hit the limit (pages scanned)" [ "$nocap_noscan" = 0 ]
fi
finish
