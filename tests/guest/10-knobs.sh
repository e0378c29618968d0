# Every knob of the memctl kernel series: present, accepts valid values,
# rejects bad ones with EINVAL.  On the baseline kernel: none is present.
T=knobs
. /tests/lib.sh
mkdir -p $CG/k
K=$CG/k
if ! patched; then
	for f in $K/memory.soft_limit $K/memory.reclaim_protect_active \
		 /proc/sys/vm/reclaim_protect_active /proc/sys/vm/max_reclaimers_per_node; do
		check "baseline has no $f" [ ! -e $f ]
	done
	check "baseline memory.stat has no thp_fault_fallback_charge" \
		sh -c "! grep -q thp_fault_fallback_charge $K/memory.stat"
	finish
fi

# valid FILE VALUE EXPECTED_READBACK
valid() {
	if write_ok "$1" "$2"; then
		got=$(cat "$1")
		if [ "$got" = "$3" ]; then ok "$1 accepts '$2'"
		else not_ok "$1 accepts '$2' but reads back '$got', not '$3'"; fi
	else
		not_ok "$1 rejects valid '$2': $(cat /tmp/werr)"
	fi
}
invalid() { check "$1 rejects '$2' with EINVAL" write_einval "$1" "$2"; }

# memory.soft_limit: bytes or "max", default max, not on the root.
f=$K/memory.soft_limit
check "memory.soft_limit present" [ -e $f ]
check "memory.soft_limit defaults to max" [ "$(cat $f)" = max ]
check "no memory.soft_limit on the root" [ ! -e $CG/memory.soft_limit ]
valid $f 0 0
valid $f 64M 67108864
valid $f 1048576 1048576
valid $f 4097 4096
valid $f max max
invalid $f abc
invalid $f -1
invalid $f "12 34"

# memory.reclaim_protect_active: 0 or 1, default 0.
f=$K/memory.reclaim_protect_active
check "memory.reclaim_protect_active present" [ -e $f ]
check "memory.reclaim_protect_active defaults to 0" [ "$(cat $f)" = 0 ]
valid $f 1 1
valid $f 0 0
invalid $f 2
invalid $f -1
invalid $f yes

# vm.reclaim_protect_active: 0 or 1, default 0.
f=/proc/sys/vm/reclaim_protect_active
check "vm.reclaim_protect_active present" [ -e $f ]
check "vm.reclaim_protect_active defaults to 0" [ "$(cat $f)" = 0 ]
valid $f 1 1
valid $f 0 0
invalid $f 2
invalid $f -1
invalid $f x

# vm.max_reclaimers_per_node: 0 (no cap) or a positive count, default 0.
f=/proc/sys/vm/max_reclaimers_per_node
check "vm.max_reclaimers_per_node present" [ -e $f ]
check "vm.max_reclaimers_per_node defaults to 0" [ "$(cat $f)" = 0 ]
valid $f 4 4
valid $f 1 1
valid $f 0 0
invalid $f -1
invalid $f x

# memory.stat counters.
for k in thp_fault_fallback_charge thp_file_fallback_charge; do
	check "memory.stat has $k" grep -q "^$k 0\$" $K/memory.stat
done
for k in soft_limit_fallback reclaim_cap_wait reclaim_cap_skip reclaim_cap_timeout \
	 reclaim_cap_nofs protect_active_fallback; do
	check "/proc/vmstat has $k" grep -q "^$k " /proc/vmstat
done
check "/proc/zoneinfo has direct_reclaimers_max per node" \
	[ "$(grep -c 'direct_reclaimers_max' /proc/zoneinfo)" = \
	  "$(ls -d /sys/devices/system/node/node* | wc -l)" ]

# memory.reclaim keys (behaviour in 20-reclaim-nodes.sh).  The group is
# empty, so a valid request ends in EAGAIN (nothing reclaimed), not EINVAL.
parsed() { cgwrite "$1" "$2" 2>/tmp/werr; r=$?; [ $r = 0 -o $r = 11 ]; }
check "memory.reclaim accepts nodes=0" parsed $K/memory.reclaim "4K nodes=0"
check "memory.reclaim accepts nodes=0-1" parsed $K/memory.reclaim "4K nodes=0-1"
invalid $K/memory.reclaim "4K nodes=9"
invalid $K/memory.reclaim "4K nodes="
invalid $K/memory.reclaim "4K node=0"
finish
