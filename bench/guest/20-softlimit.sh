# Experiment 2, soft-limit ordering (seed: with both groups at soft limit 0,
# major faults fell to 1.5% of the old code's and elapsed to 77%).
#
# Two memory-hungry jobs (bjob anon: write every page of an anonymous
# buffer, in a new pseudo-random order each pass) start together (a
# barrier file) in Q/a and Q/b under Q's limit; together they need more than the limit, so the rest
# goes to zram swap and every page that comes back is a major fault.
# Scenarios:
#   none         no soft limits (the stock kernel's only choice)
#   both0        (patched) memory.soft_limit 0 on both: the seed's setting;
#                both are above it, so reclaim must behave as with none
#   order        (patched) a keeps a soft limit above its size, b has 0:
#                reclaim takes from b first
#   memctl       memctl run with the same soft limits as order: on the
#                patched kernel memctl writes memory.soft_limit, on the
#                stock kernel it emulates the ordering (memory.low for a;
#                b is then the kernel's reclaim's first choice)
#   memctl-aa    memctl again, later in the same round: the A/A control
#   oracle       what an expert who knows a's size sets by hand, on either
#                kernel: a's memory.low = its buffer + 4 MiB (b is left
#                uncapped: a cap below what a leaves free only makes b
#                fault more)
# Per scenario: each job's elapsed and major faults, and for the pair the
# time until both finished (elapsed) and their major faults together;
# memctl's CPU seconds (memctl_cpu, of which memctl_sys in the kernel: its
# reclaims) from its start to its stop, the jobs' fill included, and from
# its log the reclaims it asked for (memctl_reclaims), what they got
# (memctl_got_mib) and their CPU time (memctl_reclaim_cpu_s). Two
# jobs thrashing against each other are bimodal (the same scenario took 7 s
# or 45 s in different boots), so the full mode runs ROUNDS rounds of the
# scenarios, interleaved, and the table shows medians (every round is in
# results.tsv; bench/guest.sh adds quartiles and rank tests).
E=softlimit
. /tests/bench/blib.sh

if [ $QUICK = 1 ]; then
	LIMIT=64 SIZE=40 PASSES=2
	rounds 1
else
	LIMIT=128 SIZE=80 PASSES=3
	rounds 10
fi
# the oracle's protection of a: its buffer and a margin for the rest of
# its memory (page tables, stack, the program)
LOW=$((SIZE + 4))
echo never > /sys/kernel/mm/transparent_hugepage/enabled

pair_profile /tmp/softlimit.yaml Q $LIMIT "a: { soft_limit: ${LIMIT}M }" "b: { soft_limit: 0 }"

# scenario NAME MODE(none|knob0|knob|oracle|memctl)
scenario() {
	name=$1 mode=$2
	want $name || return 0
	mkgroup Q
	echo ${LIMIT}M > $CG/Q/memory.max
	mkdir $CG/Q/a $CG/Q/b
	case $mode in
	knob0)
		echo 0 > $CG/Q/a/memory.soft_limit && echo 0 > $CG/Q/b/memory.soft_limit ||
			{ berr "$name: cannot write memory.soft_limit"; rmgroup Q; return; } ;;
	knob)
		echo ${LIMIT}M > $CG/Q/a/memory.soft_limit && echo 0 > $CG/Q/b/memory.soft_limit ||
			{ berr "$name: cannot write memory.soft_limit"; rmgroup Q; return; } ;;
	oracle)
		echo ${LOW}M > $CG/Q/a/memory.low ||
			{ berr "$name: cannot write memory.low"; rmgroup Q; return; } ;;
	memctl)
		memctl_start /tmp/softlimit.yaml /tmp/softlimit-$name.log || { rmgroup Q; return; } ;;
	esac
	# Both fill their buffers, then start their passes at once: /tmp/go
	# is created once both have filled (the parent's usage plus its swap
	# hold both buffers).
	rm -f /tmp/go
	spawn_in /tmp/a.out Q/a bjob anon $SIZE $PASSES /tmp/go; pa=$!
	spawn_in /tmp/b.out Q/b bjob anon $SIZE $PASSES /tmp/go; pb=$!
	i=0
	while [ $i -lt 600 ] &&
	      [ $(( ($(cat $CG/Q/memory.current) + $(cat $CG/Q/memory.swap.current)) / MIB )) -lt $((2 * SIZE - 2)) ]; do
		sleep 0.05; i=$((i + 1))
	done
	[ $i -lt 600 ] || berr "$name: the jobs did not fill their buffers within 30 s"
	t0=$(ucs)
	touch /tmp/go
	wait $pa; wait $pb
	t1=$(ucs)
	memctl_stop
	MEMCTL_NRECL=0 MEMCTL_RGOT=0 MEMCTL_RCPU=0
	[ $mode = memctl ] && memctl_reclaims /tmp/softlimit-$name.log
	[ $mode = memctl ] && [ $QUICK = 1 ] && sed 's/^/memctl: /' /tmp/softlimit-$name.log | tail -n 20
	a=$(cat /tmp/a.out) b=$(cat /tmp/b.out)
	case $a$b in *elapsed=*elapsed=*) ;; *) berr "$name: a job failed: $a $b"; rmgroup Q; return ;; esac
	am=$(field majflt "$a") bm=$(field majflt "$b")
	bench_round $name mode=$mode a_elapsed=$(field elapsed "$a") a_majflt=$am \
		b_elapsed=$(field elapsed "$b") b_majflt=$bm elapsed=$(secs $t0 $t1) \
		majflt=$((am + bm)) b_pgsteal=$(stat pgsteal Q/b) a_pgsteal=$(stat pgsteal Q/a) \
		memctl_cpu=$MEMCTL_CPU memctl_sys=$MEMCTL_SYS memctl_reclaims=$MEMCTL_NRECL \
		memctl_got_mib=$MEMCTL_RGOT memctl_reclaim_cpu_s=$MEMCTL_RCPU
	rmgroup Q
}

r=0
while [ $r -lt $ROUNDS ]; do
	scenario memctl memctl
	scenario none none
	if patched; then
		scenario both0 knob0
		scenario order knob
	fi
	scenario oracle oracle
	scenario memctl-aa memctl
	r=$((r + 1))
done
for s in none both0 order oracle memctl memctl-aa; do bench_medians $s; done
exit 0
