# memory.stat thp_fault_fallback_charge: counts huge-page charges that
# failed in this cgroup, for anonymous faults; thp_file_fallback_charge the
# same for shmem huge pages, here through write(2), where shmem charges
# without an mm (the writing task's cgroup).
T=thp-fallback
. /tests/lib.sh
[ -e /sys/kernel/mm/transparent_hugepage/enabled ] || skip "no THP in this kernel"
echo madvise > /sys/kernel/mm/transparent_hugepage/enabled

mkdir -p $CG/roomy $CG/tight
# No swap for "tight": once 8M are charged, a 2M charge cannot be met by
# reclaim and fails, while the 4K fallback of a sparse touch still fits.
echo 8M > $CG/tight/memory.max
echo 0 > $CG/tight/memory.swap.max

v0=$(vmstat thp_fault_fallback_charge)
run_in roomy memhog -H -s 32
a=$(stat thp_fault_alloc roomy) r=$(stat thp_fault_fallback_charge roomy)
say "roomy (no limit): thp_fault_alloc=$a thp_fault_fallback_charge=${r:-absent}"
check "huge pages are charged where there is room" [ "$a" -ge 15 ]
v1=$(vmstat thp_fault_fallback_charge)

run_in tight memhog -H -s 64
v2=$(vmstat thp_fault_fallback_charge)
a=$(stat thp_fault_alloc tight) f=$(stat thp_fault_fallback_charge tight)
say "tight (max 8M): thp_fault_alloc=$a thp_fault_fallback_charge=${f:-absent}" \
	"vmstat delta=$((v2 - v1))"
result vmstat_fallback_charge_delta $((v2 - v1))
check "charges failed (global vmstat counter moved)" [ $((v2 - v1)) -gt 0 ]

# shmem through write(2): a tmpfs with huge=always, one byte written every
# 2M by dd in a group with room for three huge pages.  A kernel whose page
# cache cannot hold huge pages (tinyconfig's BASE_SMALL makes the xarray's
# chunks smaller than a huge page) allocates none there; the test config
# has BASE_FULL, so a roomy write that allocates no huge page fails.
mkdir -p /tmp/huge $CG/shm
mount -t tmpfs -o huge=always,size=128M tmpfs /tmp/huge
sparse_writes() {
	run_in $1 sh -c 'i=0; while [ $i -lt 32 ]; do
		printf x | dd of=/tmp/huge/$0 bs=1 seek=$((i * 2097152)) conv=notrunc 2>/dev/null || exit 1
		i=$((i + 1)); done' $1
}
a0=$(vmstat thp_file_alloc)
sparse_writes roomy
shm_huge=$(( $(vmstat thp_file_alloc) - a0 ))
rm -f /tmp/huge/roomy
sf=
if [ "$shm_huge" -gt 0 ]; then
	echo 8M > $CG/shm/memory.max
	echo 0 > $CG/shm/memory.swap.max
	s0=$(vmstat thp_file_fallback_charge)
	sparse_writes shm
	src=$?
	s1=$(vmstat thp_file_fallback_charge)
	sf=$(stat thp_file_fallback_charge shm)
	say "shm (max 8M, 32 sparse writes): rc=$src thp_file_fallback_charge=${sf:-absent}" \
		"vmstat delta=$((s1 - s0))"
	result vmstat_file_fallback_charge_delta $((s1 - s0))
	check "shmem writes succeeded" [ "$src" = 0 ]
	check "shmem huge charges failed (global vmstat counter moved)" [ $((s1 - s0)) -gt 0 ]
	rm -f /tmp/huge/shm
else
	not_ok "shmem allocated no huge page for write(2) in a roomy group (page cache without huge pages)"
fi
umount /tmp/huge

if ! patched; then
	[ -z "$f" ] && say "baseline kernel has no per-cgroup counter"
	finish
fi
if [ -n "$sf" ]; then
	result cgroup_file_fallback_charge $sf
	check "shm group counted the failed shmem charges of write(2)" [ "$sf" = $((s1 - s0)) ]
fi
result cgroup_fallback_charge $f
check "roomy group counted no fallback" [ "$r" = 0 ]
check "tight group counted the failed charges" [ "$f" -gt 0 ]
check "cgroup counter equals the global delta" [ "$f" = $((v2 - v1)) ]
check "counter is present in the root's memory.stat too" \
	grep -q '^thp_fault_fallback_charge ' $CG/memory.stat
finish
