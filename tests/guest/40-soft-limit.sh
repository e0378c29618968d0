# memory.soft_limit: under a parent's limit, a child below its soft limit
# loses (almost) nothing while its sibling above its soft limit absorbs
# the reclaim.  On the baseline kernel the same workload runs without the
# knob, for comparison.
T=soft-limit
. /tests/lib.sh
need_disk
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
mkfile /mnt/disk/stream 384

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
finish
