# vm.max_reclaimers_per_node: many parallel allocators under a tight limit.
#
#   50-reclaimer-cap.sh [STORMS]     (default 2; kernel/run-guest.sh passes it)
#
# A storm: 64 allocators, each touching 1M five times, start together in a
# group limited to 6M; what does not fit goes to zram swap.  The 64 tasks'
# kernel memory (stacks, page tables) takes about half the limit, so their
# reclaimers fight over a few hundred pages and on 6.1 some of them find
# nothing to reclaim and OOM-kill an allocator although others are freeing
# pages at that moment.  The patched kernel alternates storms without and
# with cap 1, the baseline runs them without; OOM kills come from each
# group's memory.events.  Asserted on the patched kernel:
#  - no OOM kill with cap 1 (whether a storm without cap kills is a race,
#    reported but not required);
#  - per capped storm, the most reclaim calls seen at once in a node
#    (/proc/zoneinfo direct_reclaimers_max, which writing the sysctl
#    restarts) is at most the cap plus the waits that timed out in that
#    storm (reclaim_cap_timeout: a waiter reclaims anyway after a second),
#    so exactly the cap when none timed out; with cap 1 and with cap 4;
#  - no capped call is left counted once the storms are over
#    (direct_reclaimers 0 in every node);
#  - reclaim that may not enter the file system (ext2 reading inode table
#    blocks with GFP_NOFS, in a group at its limit) is exempt from the cap
#    (reclaim_cap_nofs counts it) while a storm holds the cap.
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

# The most direct reclaim calls seen at once since the cap was written,
# over all nodes; the calls counted in a slot now, summed over the nodes.
reclaimers_max() {
	awk '$1 == "direct_reclaimers_max" && $2 > m { m = $2 } END { print m + 0 }' /proc/zoneinfo
}
reclaimers_now() {
	awk '$1 == "direct_reclaimers" { n += $2 } END { print n + 0 }' /proc/zoneinfo
}
# capped_storm NAME CAP: a storm with the cap written just before it; sets
# rmax (direct_reclaimers_max) and rto (reclaim_cap_timeout delta) of it
# and counts a storm whose most concurrent calls exceed CAP plus its
# timeouts in over_cap.
over_cap=0
capped_storm() {
	echo $2 > /proc/sys/vm/max_reclaimers_per_node
	t_0=$(vmstat reclaim_cap_timeout)
	storm $1
	rmax=$(reclaimers_max)
	rto=$(( $(vmstat reclaim_cap_timeout) - t_0 ))
	say "$1: cap $2, direct_reclaimers_max $rmax, reclaim_cap_timeout +$rto"
	[ "$rmax" -le $(($2 + rto)) ] || over_cap=$((over_cap + 1))
}

# nofs: mkmeta in a group at its limit (a held 3M of anon under 5M, no
# swap) while a storm runs with cap 1; sets nofs (reclaim_cap_nofs delta)
# and meta_rc.
nofs() {
	mkdir -p $CG/meta /mnt/disk/meta
	echo 5M > $CG/meta/memory.max
	echo 0 > $CG/meta/memory.swap.max
	mkfifo /tmp/hold
	run_in meta memhog -w 3 < /tmp/hold &
	hog=$!
	exec 8> /tmp/hold
	n0=$(vmstat reclaim_cap_nofs)
	storm nofs-storm &
	st=$!
	run_in meta mkmeta /mnt/disk/meta 6000
	meta_rc=$?
	wait $st
	nofs=$(( $(vmstat reclaim_cap_nofs) - n0 ))
	exec 8>&-
	wait $hog
	say "nofs: mkmeta rc=$meta_rc reclaim_cap_nofs +$nofs, group pgscan $(stat pgscan meta)"
	rm -rf /mnt/disk/meta /tmp/hold
	rmdir $CG/meta
}

if patched; then
	w0=$(vmstat reclaim_cap_wait) s0=$(vmstat reclaim_cap_skip)
	max1=0
	to0=$(vmstat reclaim_cap_timeout)
	r=0
	while [ $r -lt $storms ]; do
		echo 0 > /proc/sys/vm/max_reclaimers_per_node
		storm nocap$r
		tally nocap
		capped_storm cap$r 1
		tally cap
		[ "$rmax" -gt "${max1:-0}" ] && max1=$rmax
		r=$((r + 1))
	done
	w1=$(vmstat reclaim_cap_wait) s1=$(vmstat reclaim_cap_skip)
	to1=$(vmstat reclaim_cap_timeout)
	say "cap 1: reclaim_cap_wait +$((w1 - w0)) reclaim_cap_skip +$((s1 - s0))" \
		"reclaim_cap_timeout +$((to1 - to0)) direct_reclaimers_max $max1"
	nofs
	capped_storm cap4 4
	max4=$rmax
	left=$(reclaimers_now)
	echo 0 > /proc/sys/vm/max_reclaimers_per_node
	report nocap
	report cap
	result cap_waits $((w1 - w0))
	result cap_skips $((s1 - s0))
	result cap_timeouts $((to1 - to0))
	result cap1_reclaimers_max $max1
	result cap4_reclaimers_max $max4
	result nofs_exempt $nofs
	check "every storm hit the limit (pages scanned)" [ $((nocap_noscan + cap_noscan)) = 0 ]
	check "with cap 1, no allocator was OOM-killed in $storms storms" \
		[ "$cap_kills" = 0 -a "$cap_fails" = 0 ]
	check "reclaimers waited for a slot" [ $((w1 - w0)) -gt 0 ]
	check "capped reclaim calls were seen (direct_reclaimers_max $max1)" [ "$max1" -ge 1 ]
	check "no storm ran more reclaim calls at once than its cap plus its timeouts" \
		[ "$over_cap" = 0 ]
	check "no capped reclaim call is left counted after the storms ($left)" \
		[ "$left" = 0 ]
	# Whether the metadata job's charges reclaim with GFP_NOFS at all while
	# the storm holds the cap is a race (seen +0 to +2 calls): an exempt
	# call is counted when one happens, and its absence is said, not failed.
	if [ "$nofs" -gt 0 ]; then
		say "GFP_NOFS reclaim was exempt from the cap ($nofs calls)"
	else
		say "NOT PROVOKED: no GFP_NOFS reclaim happened while the cap was held"
	fi
	check "the metadata job finished" [ "$meta_rc" = 0 ]
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
