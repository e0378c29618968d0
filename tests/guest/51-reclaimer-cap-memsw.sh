# vm.max_reclaimers_per_node under a cgroup1 memory+swap limit: a storm
# finishes.  The memory controller is moved from cgroup2 to a cgroup1
# hierarchy, where memory.memsw.limit_in_bytes caps memory and swap
# together.  A storm of 32 allocators (1M each, touched twice) runs in
# a group with 12M of memory and 13M of memory+swap: the memsw limit is
# reached while memory still has room (each allocator holds its memory
# until the limit has been hit), so charges fail on the memsw counter,
# reclaim (which may not swap then) finds little, and allocators
# are OOM-killed -- as they must be, since the group holds more than its
# memsw limit.  A cap whose waiters judged "reclaim no longer needed" by
# the memory counter alone would send those charges back to retry forever.
# Asserted (patched, cap 1): the storm ends within 120 s, every allocator
# either finished or was OOM-killed.  The baseline runs the storm
# without a cap.
T=reclaimer-cap-memsw
. /tests/lib.sh
uptime_cs() { awk '{ split($1, a, "."); print a[1] * 100 + a[2] }' /proc/uptime; }
NPROC=32
echo never > /sys/kernel/mm/transparent_hugepage/enabled

# Move the memory controller to a cgroup1 hierarchy.
echo -memory > $CG/cgroup.subtree_control || skip "cannot disable memory on cgroup2"
V1=/tmp/memv1
mkdir -p $V1
mount -t cgroup -o memory memory $V1 || skip "cannot mount a cgroup1 memory hierarchy"
[ -e $V1/memory.memsw.limit_in_bytes ] || skip "no swap accounting (memory.memsw.*)"
G=$V1/storm
mkdir $G
echo $((12 * MIB)) > $G/memory.limit_in_bytes
echo $((13 * MIB)) > $G/memory.memsw.limit_in_bytes
patched && echo 1 > /proc/sys/vm/max_reclaimers_per_node

# Each allocator holds its memory (-w) until the test closes the FIFO's
# only writer: allocators that touch their 1M and exit one after another
# never have 13M charged at once, and on a quick guest the storm then
# never reached the memsw limit (a CI run: failcnt 0, 0.0 s, both kernels).
mkfifo /tmp/hold
exec 4<>/tmp/hold
pids=
i=0
while [ $i -lt $NPROC ]; do
	sh -c 'echo $$ > "$0/tasks" && exec memhog -b /tmp/go -r 2 -w 1 < /tmp/hold' $G 4>&- &
	pids="$pids $!"
	i=$((i + 1))
done
while [ $(wc -l < $G/tasks) -lt $NPROC ]; do :; done
t0=$(uptime_cs)
touch /tmp/go
# Release them once the limit has been hit (or after 20 s: the check below
# then fails, since no storm took place).
w=0
while [ "$(cat $G/memory.memsw.failcnt)" = 0 ] && [ $w -lt 200 ]; do
	sleep 0.1; w=$((w + 1))
done
sleep 1
exec 4>&-
# A watchdog: a livelocked storm never ends on its own.
( sleep 120; echo "$T: storm still running after 120 s"; cat $G/tasks | xargs kill -9 2>/dev/null ) &
dog=$!
done_ok=0 killed=0
for p in $pids; do
	if wait $p; then done_ok=$((done_ok + 1)); else killed=$((killed + 1)); fi
done
cs=$(( $(uptime_cs) - t0 ))
kill $dog 2>/dev/null
wait $dog 2>/dev/null
oom=$(awk '$1 == "oom_kill" { print $2 }' $G/memory.oom_control)
say "storm: finished=$done_ok failed=$killed oom_kill=${oom:-?}" \
	"elapsed=$((cs / 100)).$((cs % 100 / 10))s memsw failcnt=$(cat $G/memory.memsw.failcnt)" \
	"reclaim_cap_wait=$(vmstat reclaim_cap_wait) reclaim_cap_skip=$(vmstat reclaim_cap_skip)"
result storm_seconds $((cs / 100)).$((cs % 100 / 10))
result oom_kills ${oom:-0}
check "the storm ended within 120 s" [ $cs -lt 12000 ]
check "the memsw limit was reached" [ "$(cat $G/memory.memsw.failcnt)" -gt 0 ]
check "every allocator finished or was OOM-killed" [ $((done_ok + ${oom:-0})) -ge $NPROC ]
patched && echo 0 > /proc/sys/vm/max_reclaimers_per_node
rmdir $G
finish
