# memory.reclaim_protect_active: a working-set job's refaults stay near
# zero beside a streaming reader, under a parent's limit.  The working set
# (56M, active) is most of the parent's 96M, so the parent's inactive list
# is low and stock reclaim deactivates active pages of every child --
# including the working set's -- while the streamer's own inactive list
# is big.  The patched
# kernel runs the workload with protection off and on, the baseline with
# the stock kernel; the host side compares refaults.
T=protect-active
. /tests/lib.sh
need_disk
mkfile /mnt/disk/ws 56
mkfile /mnt/disk/stream 320

# scenario NAME PROTECT: sets refaults (pages of ws refaulted while the
# streamer ran) and ws_lost (KiB).
scenario() {
	P=$1
	mkdir -p $CG/$P
	echo +memory > $CG/$P/cgroup.subtree_control
	echo 96M > $CG/$P/memory.max
	[ "$2" = - ] || echo $2 > $CG/$P/memory.reclaim_protect_active
	mkdir -p $CG/$P/ws $CG/$P/st
	echo 3 > /proc/sys/vm/drop_caches
	# Three passes make the working set active.
	# ws and st share node 0 (CPU 0), where the contention is.
	for i in 1 2 3; do run_in $P/ws taskset 1 cat /mnt/disk/ws > /dev/null; done
	rm -f /tmp/stop
	run_in $P/ws taskset 1 sh -c 'while [ ! -e /tmp/stop ]; do cat /mnt/disk/ws > /dev/null; done' &
	loop=$!
	r0=$(stat workingset_refault_file $P/ws)
	c0=$(stat file $P/ws)
	run_in $P/st taskset 1 cat /mnt/disk/stream > /dev/null
	run_in $P/st taskset 1 cat /mnt/disk/stream > /dev/null
	r1=$(stat workingset_refault_file $P/ws)
	c1=$(stat file $P/ws)
	touch /tmp/stop
	wait $loop
	refaults=$((r1 - r0))
	ws_lost=$(( (c0 - c1) / 1024 ))
	say "$P (protect=$2): ws refaults=$refaults ws file ${c0} -> ${c1}" \
		"st pgsteal=$(stat pgsteal $P/st)"
}

if patched; then
	scenario off 0
	result off_refaults $refaults
	off=$refaults
	scenario on 1
	result on_refaults $refaults
	check "with protection, ws refaults stay near zero (<= 64 pages)" [ $refaults -le 64 ]
	check "protection does not make refaults worse" [ $refaults -le $off ]
else
	scenario base -
	result base_refaults $refaults
fi
finish
