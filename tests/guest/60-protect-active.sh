# memory.reclaim_protect_active: a re-reading job's working set stays
# resident beside N streaming readers under a parent's limit, with the
# kernel knob alone.
#
# Parent "pa" (memory.max 64M) holds "ws", a job re-reading a 32M file in
# a loop (its pages are active), and N = 1, 2, 4, 8 streamers, each in its
# own group, reading 80M files once: all the same file ("same": the
# streamers' second touches activate the pages, and the pages of one
# streamer's group are what the others read) or one file each
# ("distinct").  Measured per scenario while the streamers run: ws's
# refaults (workingset_refault_file), the streamers' throughput and the
# protection fallbacks (protect_active_fallback in /proc/vmstat).
# Asserted on the patched kernel with protection on: ws refaults <= 64
# pages for every N, distinct files and the same file (where the second
# reader's touch activates the pages the first one charged: 0005 tells
# that churn from a stable working set by the active list's new pages).
# The streamers' throughput with and without protection is reported
# (bench/guest measures it with rounds).
# Then a negative control: a protected group whose working set (32M) is
# bigger than its parent's limit (24M) still makes progress, without an
# OOM kill.  The baseline runs the same scenarios without the knob.
T=protect-active
. /tests/lib.sh
need_disk
uptime_cs() { awk '{ split($1, a, "."); print a[1] * 100 + a[2] }' /proc/uptime; }
for i in 0 1 2 3 4 5 6 7; do
	dd if=/dev/zero of=/mnt/disk/s$i bs=1M count=80 2>/dev/null
done
mkfile /mnt/disk/ws 32

P=pa
mkdir -p $CG/$P
echo +memory > $CG/$P/cgroup.subtree_control
echo 64M > $CG/$P/memory.max
mkdir -p $CG/$P/ws
# Three passes make the working set active; then the job keeps re-reading.
for i in 1 2 3; do run_in $P/ws taskset 1 cat /mnt/disk/ws > /dev/null; done
rm -f /tmp/stop
run_in $P/ws taskset 1 sh -c 'while [ ! -e /tmp/stop ]; do cat /mnt/disk/ws > /dev/null; done' &
loop=$!

# scenario KIND N PROTECT: sets refaults, kbps (the streamers' KiB/s) and
# fallbacks.
scenario() {
	[ "$3" = - ] || echo $3 > $CG/$P/memory.reclaim_protect_active
	# Start from a stable working set: the loop has read back what the
	# scenario before took (it is resident and active again) and has
	# stopped refaulting for a second.
	w=0 r=-1
	while [ $w -lt 20 ]; do
		rn=$(stat workingset_refault_file $P/ws)
		[ "$(stat active_file $P/ws)" -ge $((31 * MIB)) ] && [ "$rn" = "$r" ] && break
		r=$rn
		sleep 1; w=$((w + 1))
	done
	r0=$(stat workingset_refault_file $P/ws)
	f0=$(vmstat protect_active_fallback)
	f0=${f0:-0}
	t0=$(uptime_cs)
	pids=
	i=0
	while [ $i -lt $2 ]; do
		mkdir -p $CG/$P/st$i
		f=/mnt/disk/s0
		[ "$1" = distinct ] && f=/mnt/disk/s$i
		run_in $P/st$i taskset 1 cat $f > /dev/null &
		pids="$pids $!"
		i=$((i + 1))
	done
	for p in $pids; do wait $p; done
	cs=$(( $(uptime_cs) - t0 ))
	r1=$(stat workingset_refault_file $P/ws)
	f1=$(vmstat protect_active_fallback)
	refaults=$((r1 - r0))
	fallbacks=$(( ${f1:-0} - f0 ))
	kbps=$(( $2 * 80 * 1024 * 100 / (cs > 0 ? cs : 1) ))
	say "$1 N=$2 protect=$3: ws refaults=$refaults streamers ${kbps} KiB/s" \
		"($((cs / 100)).$((cs % 100 / 10)) s) fallbacks=$fallbacks"
	# Empty the streamers' groups before removing them.
	i=0
	while [ $i -lt $2 ]; do
		echo 200M > $CG/$P/st$i/memory.reclaim 2>/dev/null
		rmdir $CG/$P/st$i
		i=$((i + 1))
	done
}

for kind in same distinct; do
	for n in 1 2 4 8; do
		if patched; then
			scenario $kind $n 0
			result ${kind}_n${n}_off_refaults $refaults
			result ${kind}_n${n}_off_kbps $kbps
			off_kbps=$kbps
			scenario $kind $n 1
			result ${kind}_n${n}_on_refaults $refaults
			result ${kind}_n${n}_on_kbps $kbps
			result ${kind}_n${n}_on_fallbacks $fallbacks
			say "$kind N=$n: streamer throughput with protection" \
				"$((kbps * 100 / (off_kbps > 0 ? off_kbps : 1)))% of without"
			check "$kind N=$n: with protection, ws refaults <= 64 pages ($refaults)" \
				[ $refaults -le 64 ]
		else
			scenario $kind $n -
			result ${kind}_n${n}_base_refaults $refaults
			result ${kind}_n${n}_base_kbps $kbps
		fi
	done
done
touch /tmp/stop
wait $loop
rmdir $CG/$P/ws $CG/$P

# Negative control: the protected working set does not fit its parent.
P=small
mkdir -p $CG/$P
echo +memory > $CG/$P/cgroup.subtree_control
echo 24M > $CG/$P/memory.max
patched && echo 1 > $CG/$P/memory.reclaim_protect_active
mkdir -p $CG/$P/big
# Uncached, so that every pass reads and charges the file again.
echo 3 > /proc/sys/vm/drop_caches
f0=$(vmstat protect_active_fallback)
t0=$(uptime_cs)
run_in $P/big taskset 1 sh -c 'for i in 1 2 3 4; do cat /mnt/disk/ws > /dev/null || exit 1; done'
rc=$?
cs=$(( $(uptime_cs) - t0 ))
f1=$(vmstat protect_active_fallback)
oom=$(event oom_kill $P/big)
say "negative control: 4 passes over 32M in a 24M parent rc=$rc in" \
	"$((cs / 100)).$((cs % 100 / 10)) s, oom_kill=$oom, refaults=$(stat workingset_refault_file $P/big)," \
	"fallbacks=$(( ${f1:-0} - ${f0:-0} ))"
check "negative control: the oversized protected job finished, no OOM kill" \
	[ "$rc" = 0 -a "$oom" = 0 ]
check "negative control: the job was reclaimed (it refaulted)" \
	[ "$(stat workingset_refault_file $P/big)" -gt 0 ]
rmdir $CG/$P/big $CG/$P
finish
