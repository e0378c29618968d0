# memctl on a cgroup v2 host with the memctl kernel patch: `memctl status`
# must find the patch and name its knobs.
T=memctl-status
. /tests/lib.sh
command -v memctl >/dev/null || skip "no memctl binary in the initramfs"
# memctl detects the patch's files on a memory-enabled child group.
mkdir -p $CG/memctl-status
memctl status > /tmp/status.txt 2>&1
rc=$?
cat /tmp/status.txt
check "memctl status exits 0" [ $rc = 0 ]
check "names memory.soft_limit" grep -q 'memory\.soft_limit' /tmp/status.txt
check "names memory.reclaim_protect_active" grep -q 'memory\.reclaim_protect_active' /tmp/status.txt
check "reports cgroup v2" grep -qi 'v2\|unified\|version *2' /tmp/status.txt
finish
