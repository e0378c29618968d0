# memory.soft_limit: under a parent's limit, a child below its soft limit
# loses (almost) nothing while its sibling above its soft limit absorbs
# the reclaim.  On the baseline kernel the same workload runs without the
# knob, for comparison.  Also, on the patched kernel:
#  - cost: before any soft limit is set, reclaim under a parent limit
#    never falls back (soft_limit_fallback stays 0): reclaim does not look
#    at soft limits at all until one is set;
#  - OOM safety: the group above its soft limit holds only unswappable
#    anon and asks for more while its sibling below its soft limit holds
#    100M of clean cache: reclaim falls back to the sibling, no OOM kill.
T=soft-limit
. /tests/lib.sh
need_disk
# Cost case, first in the boot: no group has set a soft limit yet.
mkfile /mnt/disk/stream 384
f0=$(vmstat soft_limit_fallback)
mkdir -p $CG/cost
echo +memory > $CG/cost/cgroup.subtree_control
echo 64M > $CG/cost/memory.max
mkdir -p $CG/cost/a
run_in cost/a cat /mnt/disk/stream > /dev/null
cost_scan=$(stat pgscan cost/a)
f1=$(vmstat soft_limit_fallback)
say "cost: no soft limit set, reclaim scanned $cost_scan pages, soft_limit_fallback +$((f1 - f0))"
rmdir $CG/cost/a $CG/cost
if patched; then
	check "cost: reclaim ran (scanned > 0)" [ "$cost_scan" -gt 0 ]
	check "cost: with no soft limit set, reclaim never fell back" [ $((f1 - f0)) = 0 ]
fi

P=sl
mkdir -p $CG/$P
echo +memory > $CG/$P/cgroup.subtree_control
echo 160M > $CG/$P/memory.max
mkdir -p $CG/$P/keep $CG/$P/yield
if patched; then
	echo 256M > $CG/$P/keep/memory.soft_limit
	echo 0 > $CG/$P/yield/memory.soft_limit
fi
mkfile /mnt/disk/keep 64

# "keep" reads its file once: inactive page cache, as reclaimable as the
# streamer's, so only the soft limit can tell them apart.  Their pages
# sit in different NUMA nodes (a reader's page cache goes to its CPU's
# node), so the ordering must hold across nodes, not just within one.
run_in $P/keep taskset 1 cat /mnt/disk/keep > /dev/null
k0=$(cat $CG/$P/keep/memory.current)
run_in $P/yield taskset 2 cat /mnt/disk/stream > /dev/null
k1=$(cat $CG/$P/keep/memory.current)
ks=$(stat pgsteal $P/keep) ys=$(stat pgsteal $P/yield)
lost=$(( (k0 - k1) / 1024 ))
say "keep: $((k0 / 1024))K -> $((k1 / 1024))K (lost ${lost}K, pgsteal $ks);" \
	"yield: pgsteal $ys"
result keep_lost_kib $lost
result keep_pgsteal $ks
result yield_pgsteal $ys
if patched; then
	check "keep (below its soft limit) lost < 2M" [ $lost -lt 2048 ]
	check "keep had <= 512 pages stolen" [ $ks -le 512 ]
	check "yield absorbed the reclaim (>= 50000 pages)" [ $ys -ge 50000 ]
	# A pass over the cgroups above their soft limit that scans nothing
	# falls back to all of them: with only "keep" holding pages, the
	# parent's limit still reclaims from it.
	echo max > $CG/$P/yield/memory.soft_limit
	echo 16M > $CG/$P/memory.max
	k2=$(cat $CG/$P/keep/memory.current)
	check "fallback: a lowered parent limit still reclaims keep" [ $k2 -le $((16 * MIB)) ]
fi
rmdir $CG/$P/keep $CG/$P/yield $CG/$P

# OOM safety: "hot" (soft limit 0) holds 40M of anon it may not swap and
# then asks for 70M more; "cache" (soft limit max) holds 100M of clean
# page cache; their parent allows 160M.  Only cache's pages can make room.
mkfile /mnt/disk/cache 100
P=oom
mkdir -p $CG/$P
echo +memory > $CG/$P/cgroup.subtree_control
echo 160M > $CG/$P/memory.max
mkdir -p $CG/$P/hot $CG/$P/cache
echo 0 > $CG/$P/hot/memory.swap.max
patched && echo 0 > $CG/$P/hot/memory.soft_limit
run_in $P/cache cat /mnt/disk/cache > /dev/null
mkfifo /tmp/hold
run_in $P/hot memhog -w 40 < /tmp/hold &
hog=$!
exec 8> /tmp/hold
while [ "$(cat $CG/$P/hot/memory.current)" -lt $((40 * MIB)) ]; do sleep 1; done
f0=$(vmstat soft_limit_fallback)
run_in $P/hot memhog 70
rc=$?
f1=$(vmstat soft_limit_fallback)
exec 8>&-
wait $hog
oom=$(event oom_kill $P/hot)
say "oom safety: memhog rc=$rc oom_kill=$oom cache $(($(cat $CG/$P/cache/memory.current) / MIB))M left," \
	"soft_limit_fallback +$((f1 - f0))"
result oom_safety_kills $oom
check "oom safety: no OOM kill" [ "$oom" = 0 -a "$rc" = 0 ]
patched && check "oom safety: reclaim fell back to the group below its soft limit" [ $((f1 - f0)) -gt 0 ]
rmdir $CG/$P/hot $CG/$P/cache $CG/$P
finish
