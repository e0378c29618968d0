# memory.reclaim with a lower memory tier and demotion on (the NVDIMM of
# kernel/qemu-machine.sh onlined through dax/kmem, lib.sh pmem_tier).  A
# demoted page stays charged, so reclaim that demotes and counts it as
# reclaimed reports progress that memory.current does not show.  Plain
# memory.reclaim does that in 6.1 on both kernels: it is the control that
# proves the tier takes demotions here.  With nodes= (patched kernel) the
# reclaim evicts instead: what a successful write asked for is what
# memory.current lost, and the lower tier gains nothing.
T=reclaim-demotion
. /tests/lib.sh
need_disk
[ -d /sys/devices/system/node/node1 ] || skip "guest has one NUMA node"

tier=$(pmem_tier)
case $tier in
''|*[!0-9]*) not_ok "a lower memory tier: $tier"; finish ;;
esac
ok "node $tier onlined through dax/kmem, demotion on"
tiers=$(cat /sys/devices/virtual/memory_tiering/memory_tier*/nodelist 2>/dev/null | tr '\n' ' ')
say "memory tiers (nodelists): $tiers"
check "node $tier is in a tier of its own" [ "$(echo "$tiers" | wc -w)" -ge 2 ]

current() { cat $CG/dm/memory.current; }
# node_total GROUP NODE: anon + file bytes of GROUP on NODE.
node_total() { echo $(( $(numa anon $1 $2) + $(numa file $1 $2) )); }

mkdir -p $CG/dm
# No swap for the group: its anonymous memory can leave DRAM only by
# demotion.
echo 0 > $CG/dm/memory.swap.max
mkfifo /tmp/dm-hold
run_in dm taskset 1 memhog -w 64 < /tmp/dm-hold &
hog=$!
exec 3> /tmp/dm-hold
i=0
while [ $(numa anon dm 0) -lt $((63 * MIB)) ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
say "anon N0=$(($(numa anon dm 0) / MIB))M current=$(($(current) / MIB))M"
check "64M of anon charged on node 0" [ $(numa anon dm 0) -ge $((63 * MIB)) ]

# The control: plain reclaim of 16M of unswappable anon.  6.1 demotes it
# and counts it as reclaimed.
c0=$(current) t0=$(node_total dm $tier)
if write_ok $CG/dm/memory.reclaim 16M; then plain=ok; else plain="failed: $(cat /tmp/werr)"; fi
c1=$(current) t1=$(node_total dm $tier)
say "plain 16M: $plain; memory.current -$(((c0 - c1) / 1024))K, node $tier +$(((t1 - t0) / 1024))K"
result plain_current_drop_kib $(((c0 - c1) / 1024))
result plain_demoted_kib $(((t1 - t0) / 1024))
check "plain reclaim demoted (node $tier gained >= 8M)" [ $((t1 - t0)) -ge $((8 * MIB)) ]

stop_hog() { exec 3>&-; wait $hog; }

# nodes=0 over unswappable anon only: nothing on node 0 can be evicted and
# nodes= never demotes, so the write fails (EAGAIN) and nothing moves.
c0=$(current) t0=$(node_total dm $tier)
cgwrite $CG/dm/memory.reclaim "16M nodes=0" 2>/tmp/werr
rc=$?
c1=$(current) t1=$(node_total dm $tier)
if [ $rc = 22 ] && ! patched; then
	say "baseline kernel rejects nodes=: $(cat /tmp/werr)"
	result nodes_key_supported 0
	stop_hog
	finish
fi
say "nodes=0 16M over anon only: rc $rc; memory.current -$(((c0 - c1) / 1024))K, node $tier +$(((t1 - t0) / 1024))K"
check "nodes=0 over unswappable anon fails with EAGAIN (got $rc)" [ $rc = 11 ]
check "and demotes nothing (node $tier +$(((t1 - t0) / 1024))K)" [ $((t1 - t0)) -lt $MIB ]

# Page cache on node 0 beside the anon: nodes=0 evicts it.  A successful
# write reports that the amount asked for was reclaimed.
mkfile /mnt/disk/dm 64
run_in dm taskset 1 cat /mnt/disk/dm > /dev/null
c0=$(current) t0=$(node_total dm $tier) a0=$(numa anon dm 0) f0=$(numa file dm 0)
say "before: file N0=$((f0 / MIB))M anon N0=$((a0 / MIB))M current=$((c0 / MIB))M"
check "page cache charged on node 0" [ $f0 -ge $((48 * MIB)) ]
check "nodes=0 32M succeeds" write_ok $CG/dm/memory.reclaim "32M nodes=0"
c1=$(current) t1=$(node_total dm $tier) a1=$(numa anon dm 0) f1=$(numa file dm 0)
say "nodes=0 32M: memory.current -$(((c0 - c1) / 1024))K, file N0 -$(((f0 - f1) / 1024))K," \
	"anon N0 -$(((a0 - a1) / 1024))K, node $tier +$(((t1 - t0) / 1024))K"
result nodes_current_drop_kib $(((c0 - c1) / 1024))
result nodes_demoted_kib $(((t1 - t0) / 1024))
check "memory.current lost the 32M reported" [ $((c0 - c1)) -ge $((32 * MIB)) ]
check "nothing was demoted (node $tier gained < 1M)" [ $((t1 - t0)) -lt $MIB ]
check "the unswappable anon stayed on node 0 (lost < 1M)" [ $((a0 - a1)) -lt $MIB ]
stop_hog
finish
