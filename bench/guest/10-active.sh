# Experiment 1, active-set protection (seed: gzip 17.7 s -> 11.4 s beside
# one dd, 500 s -> 11.3 s beside four).
#
# A job (ws-reader: re-reads and checksums one file, like gzip run again and
# again) in P/ws shares the parent P's limit with N streaming readers
# (streamer: dd through a file much larger than memory) in P/st. The file
# of the job fits in its share. Scenarios:
#   alone        the job by itself
#   sN           beside N streamers, no memctl
#   sN-knob      (patched kernel) the kernel's own mechanism:
#                memory.reclaim_protect_active=1 on P
#   sN-memctl    beside N streamers with `memctl run` and protect: active on
#                the job (memctl sets memory.low from its working-set
#                estimate, on both kernels)
#   sN-memctl-aa the same, later in the same round: the A/A control
#   sN-oracle    what an expert who knows the job's file size sets by hand,
#                on either kernel: memory.low of ws = the file + 4 MiB, the
#                streamers' group capped at P's limit - that - 8 MiB
# Per scenario: the job's elapsed (its passes only) and CPU time, the
# refaults of its group (workingset_refault_file: what it had to read from
# disk again; the guest kernel has no per-task I/O accounting), how much of
# its file it found cached at the start of each pass, and the streamers'
# throughput. activations: the job's refaults that went straight back to
# its active list (workingset_activate_file), and of those the pages that
# had been active before they were evicted (restores:
# workingset_restore_file); fallbacks: the reclaims, anywhere in the
# guest, that protection (the patched kernel's knob) retried unprotected
# (protect_active_fallback in /proc/vmstat; 0 on the baseline kernel, which
# has no such counter). The full mode runs ROUNDS rounds of all scenarios,
# interleaved; the table shows medians (every round is in results.tsv).
E=active
. /tests/bench/blib.sh
need_disk

if [ $QUICK = 1 ]; then
	LIMIT=64 WS=36 STREAM=160 PASSES=3 COUNTS="1"
	rounds 1
else
	LIMIT=128 WS=72 STREAM=384 PASSES=6 COUNTS="1 4"
	rounds 10
fi
# arms= may name other streamer counts (s2, s8-knob, ...): run those counts
# instead, so that bench/guest.sh --arms s8,s8-knob measures N = 8.
if [ -n "$ARMS_ARG" ]; then
	_c=$(echo "$ARMS_ARG" | tr + '\n' | sed -n 's/^s\([0-9][0-9]*\).*/\1/p' | sort -nu | tr '\n' ' ')
	[ -n "$_c" ] && COUNTS=$_c
fi
LOW=$((WS + 4))
WORK=20
mkfile /mnt/disk/ws $WS
mkfile /mnt/disk/stream $STREAM

pair_profile /tmp/active.yaml P $LIMIT "ws: { protect: active }" "st: {}"

# counters: the job's refaults, refault activations and restores (one read
# of its memory.stat) and the guest's protection fallbacks, on one line
counters() {
	awk '$1 == "workingset_refault_file" { r = $2 } $1 == "workingset_activate_file" { a = $2 }
		$1 == "workingset_restore_file" { w = $2 } END { printf "%d %d %d ", r, a, w }' $CG/P/ws/memory.stat
	echo "$(vmstat protect_active_fallback)" | awk '{ print $1 + 0 }'
}

# scenario NAME STREAMERS MODE(none|knob|oracle|memctl)
scenario() {
	name=$1 n=$2 mode=$3
	want $name || return 0
	pair_setup ws st $mode || return
	resident --drop /mnt/disk/ws /mnt/disk/stream > /dev/null
	# warm-up: two passes make the job's pages active
	run_in P/ws ws-reader /mnt/disk/ws 2 > /dev/null
	if [ $mode = memctl ]; then
		memctl_start /tmp/active.yaml /tmp/active-$name.log || { rmgroup P; return; }
	fi
	spids=
	i=0
	while [ $i -lt $n ]; do
		spawn_in /tmp/st-$name.$i P/st streamer --verbose /mnt/disk/stream
		spids="$spids $!"
		i=$((i + 1))
	done
	# Let the streamers push one file's worth (several times P's limit)
	# through the parent before the measured passes.
	if [ $n -gt 0 ]; then
		while [ $(cat /tmp/st-$name.* | grep -c '^loop ') -lt 1 ]; do sleep 0.2; done
	fi
	c0=$(counters)
	out=$(run_in P/ws ws-reader --work $WORK /mnt/disk/ws $PASSES)
	c1=$(counters)
	for p in $spids; do kill -TERM $p; done
	for p in $spids; do wait $p; done
	low=$(cat $CG/P/ws/memory.low)
	memctl_stop
	[ $mode = memctl ] && [ $QUICK = 1 ] && sed 's/^/memctl: /' /tmp/active-$name.log | tail -n 20
	mbps=0
	[ $n -gt 0 ] && mbps=$(cat /tmp/st-$name.* | awk '/^total/ { for (i = 1; i <= NF; i++)
		if ($i ~ /^mbps=/) { split($i, a, "="); s += a[2] } } END { print s + 0 }')
	bench_round $name streamers=$n mode=$mode elapsed=$(field elapsed "$out") \
		cpu=$(field cpu "$out") $(echo $c0 $c1 | awk '{ printf "refaults=%d activations=%d restores=%d fallbacks=%d",
			$5 - $1, $6 - $2, $7 - $3, $8 - $4 }') resident_avg=$(field resident_avg "$out") \
		stream_mbps=$mbps ws_low_mib=$((low == 0 ? 0 : low / MIB)) \
		memctl_cpu=$MEMCTL_CPU
	rmgroup P
}

arms=alone
for n in $COUNTS; do
	arms="$arms s$n-memctl s$n"
	patched && arms="$arms s$n-knob"
	arms="$arms s$n-oracle s$n-memctl-aa"
done
r=0
while [ $r -lt $ROUNDS ]; do
	for a in $arms; do
		n=${a%%-*}
		n=${n#s}
		case $a in
		alone) scenario alone 0 none ;;
		*-memctl*) scenario $a $n memctl ;;
		*-knob) scenario $a $n knob ;;
		*-oracle) scenario $a $n oracle ;;
		*) scenario $a $n none ;;
		esac
	done
	r=$((r + 1))
done
for a in $arms; do bench_medians $a; done
exit 0
