# memory.stat thp_fault_fallback_charge: counts huge-page charges that
# failed in this cgroup.
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
if ! patched; then
	[ -z "$f" ] && say "baseline kernel has no per-cgroup counter"
	finish
fi
result cgroup_fallback_charge $f
check "roomy group counted no fallback" [ "$r" = 0 ]
check "tight group counted the failed charges" [ "$f" -gt 0 ]
check "cgroup counter equals the global delta" [ "$f" = $((v2 - v1)) ]
check "counter is present in the root's memory.stat too" \
	grep -q '^thp_fault_fallback_charge ' $CG/memory.stat
finish
