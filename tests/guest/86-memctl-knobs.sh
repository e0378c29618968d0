# memctl drives the kernel patch's knobs on cgroup v2. protect: active turns
# memory.reclaim_protect_active on in the protected group and its profile
# ancestors (off beside them); reclaim.kernel_per_node sets
# vm.max_reclaimers_per_node; a failed apply and a killed one are rolled
# back, the sysctl included. On the baseline kernel the same profile
# applies with visible skips.
T=memctl-knobs
. /tests/lib.sh
command -v memctl >/dev/null || skip "no memctl binary in the initramfs"
export MEMCTL_STATE_DIR=/tmp/memctl-state
profile() {	# KERNEL_PER_NODE APP_MAX
	cat <<EOF
version: 1
parent: /
reclaim:
  kernel_per_node: $1
groups:
  k-app:
    max: $2
    groups:
      db: {protect: active}
      logs: {}
EOF
}
profile 3 256M > /tmp/k.yaml
memctl apply /tmp/k.yaml > /tmp/out.txt 2>&1
rc=$?
cat /tmp/out.txt
check "apply exits 0" [ $rc = 0 ]
check "nested new groups got memory files (memory enabled in k-app)" [ -f $CG/k-app/db/memory.max ]
check "k-app delegates memory" grep -qw memory $CG/k-app/cgroup.subtree_control
memctl plan /tmp/k.yaml > /tmp/plan.txt 2>&1
cat /tmp/plan.txt
if patched; then
	check "switch on in the protected group" [ "$(cat $CG/k-app/db/memory.reclaim_protect_active)" = 1 ]
	check "switch on in its parent" [ "$(cat $CG/k-app/memory.reclaim_protect_active)" = 1 ]
	check "switch off beside it" [ "$(cat $CG/k-app/logs/memory.reclaim_protect_active)" = 0 ]
	check "vm.max_reclaimers_per_node set" [ "$(cat /proc/sys/vm/max_reclaimers_per_node)" = 3 ]
	check "planning again: nothing to change" grep -q ': 0 changes' /tmp/plan.txt
	if memctl --version | grep -q 'fault injection'; then
		# the sysctl is the last write of this apply: fail it, then kill at it
		profile 5 200M > /tmp/k2.yaml
		k=$(memctl -o json plan /tmp/k2.yaml | grep -o '"action":"[a-z]*"' | grep -c 'write\|sysctl\|enable')
		say "the apply makes $k writes"
		MEMCTL_FAIL_WRITE=$k:EINVAL memctl apply /tmp/k2.yaml > /tmp/out.txt 2>&1
		rc=$?
		cat /tmp/out.txt
		check "failed sysctl write: exit 1 (rolled back)" [ $rc = 1 ]
		check "the error names the sysctl" grep -q 'vm.max_reclaimers_per_node' /tmp/out.txt
		check "k-app max rolled back" [ "$(cat $CG/k-app/memory.max)" = $((256 * MIB)) ]
		check "sysctl unchanged" [ "$(cat /proc/sys/vm/max_reclaimers_per_node)" = 3 ]
		MEMCTL_STOP_AFTER_WRITE=$k memctl apply /tmp/k2.yaml > /dev/null 2>&1 &
		pid=$!
		i=0
		while [ $i -lt 300 ] && [ "$(awk '{print $3}' /proc/$pid/stat 2>/dev/null)" != T ]; do
			sleep 0.1; i=$((i + 1))
		done
		check "stopped after the sysctl write" [ "$(cat /proc/sys/vm/max_reclaimers_per_node)" = 5 ]
		kill -9 $pid; wait $pid 2>/dev/null
		memctl rollback > /tmp/out.txt 2>&1
		rc=$?
		cat /tmp/out.txt
		check "rollback exits 0" [ $rc = 0 ]
		check "rollback restored the sysctl" [ "$(cat /proc/sys/vm/max_reclaimers_per_node)" = 3 ]
		check "rollback restored k-app's max" [ "$(cat $CG/k-app/memory.max)" = $((256 * MIB)) ]
	else
		say "no fault injection in this memctl: rollback cases not run"
	fi
	# auto: the fewest CPUs of a node that has any, counted here from sysfs
	fewest=$(for f in /sys/devices/system/node/node*/cpulist; do
		tr ',' '\n' < $f | awk -F- 'NF { n += ($2 == "" ? 1 : $2 - $1 + 1) } END { print n + 0 }'
	done | awk '$1 > 0' | sort -n | head -n 1)
	profile auto 256M > /tmp/k3.yaml
	memctl plan /tmp/k3.yaml > /tmp/plan.txt 2>&1
	cat /tmp/plan.txt
	check "kernel_per_node auto: the plan says it is $fewest and why" \
		grep -q "kernel_per_node auto ($fewest: the fewest CPUs of a NUMA node)" /tmp/plan.txt
	memctl apply /tmp/k3.yaml > /tmp/out.txt 2>&1
	rc=$?
	check "kernel_per_node auto: apply exits 0" [ $rc = 0 ]
	check "kernel_per_node auto: the sysctl is the fewest CPUs of a node ($fewest)" \
		[ "$(cat /proc/sys/vm/max_reclaimers_per_node)" = "$fewest" ]
	echo 0 > /proc/sys/vm/max_reclaimers_per_node
else
	check "kernel_per_node shown as a skip, not dropped" grep -q 'skip .*vm.max_reclaimers_per_node' /tmp/plan.txt
	memctl status > /tmp/status.txt 2>&1
	check "status: the active-set switch is emulated here" grep -q 'reclaim_protect_active *emulated' /tmp/status.txt
fi
rmdir $CG/k-app/db $CG/k-app/logs $CG/k-app
finish
