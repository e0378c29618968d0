# memory.reclaim "nodes=": reclaim takes pages only from the named node.
T=reclaim-nodes
. /tests/lib.sh
need_disk
[ -d /sys/devices/system/node/node1 ] || skip "guest has one NUMA node"

mkdir -p $CG/rn
mkfile /mnt/disk/n0 64
mkfile /mnt/disk/n1 64
# Page cache lands on the node of the CPU that reads it (node N has CPU N).
run_in rn taskset 1 cat /mnt/disk/n0 > /dev/null
run_in rn taskset 2 cat /mnt/disk/n1 > /dev/null
f0=$(numa file rn 0) f1=$(numa file rn 1)
say "before: file N0=$((f0 / MIB))M N1=$((f1 / MIB))M"
check "cache filled on both nodes" [ $f0 -gt $((48 * MIB)) -a $f1 -gt $((48 * MIB)) ]

if ! write_ok $CG/rn/memory.reclaim "32M nodes=1"; then
	if patched; then
		not_ok "nodes=1 accepted: $(cat /tmp/werr)"
		finish
	fi
	say "baseline kernel rejects nodes=: $(cat /tmp/werr)"
	result nodes_key_supported 0
	exit 0
fi
g0=$(numa file rn 0) g1=$(numa file rn 1)
say "after nodes=1: file N0=$((g0 / MIB))M N1=$((g1 / MIB))M"
result n0_dropped_kib $(((f0 - g0) / 1024))
result n1_dropped_kib $(((f1 - g1) / 1024))
check "node 1 lost >= 28M" [ $((f1 - g1)) -ge $((28 * MIB)) ]
check "node 0 lost < 2M" [ $((f0 - g0)) -lt $((2 * MIB)) ]

write_ok $CG/rn/memory.reclaim "16M nodes=0"
h0=$(numa file rn 0) h1=$(numa file rn 1)
say "after nodes=0: file N0=$((h0 / MIB))M N1=$((h1 / MIB))M"
check "node 0 lost >= 12M" [ $((g0 - h0)) -ge $((12 * MIB)) ]
check "node 1 lost < 2M" [ $((g1 - h1)) -lt $((2 * MIB)) ]

check "nodes=0-1 accepted" write_ok $CG/rn/memory.reclaim "1M nodes=0-1"
check "plain amount still accepted" write_ok $CG/rn/memory.reclaim "1M"
check "nodes=7 (no such node) rejected" write_einval $CG/rn/memory.reclaim "1M nodes=7"
check "nodes= (empty) rejected" write_einval $CG/rn/memory.reclaim "1M nodes="
check "nodes=x rejected" write_einval $CG/rn/memory.reclaim "1M nodes=x"
check "unknown key rejected" write_einval $CG/rn/memory.reclaim "1M bogus=1"
check "bad amount rejected" write_einval $CG/rn/memory.reclaim "lots nodes=0"
finish
