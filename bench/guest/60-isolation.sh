# Isolation, judged the way resctl-bench's protection benchmark does (and
# bench/isolation.sh on the host): a latency-sensitive service (reqloop: a
# fixed rate of requests, each 16 random 4K reads of its data file, timed
# from when it was due) in P/web shares P's limit with a memory hog in P/hog
# (hog: anonymous memory growing at HOG_RATE MB/s; memory.swap.max 0 on its
# group in every arm, so, as on the host, only the service's page cache can
# give way). The loop runs on CPU 0, the hog on CPU 1 (taskset), memctl
# unpinned. Per arm and round: the service alone for SECONDS (its
# baseline), then SECONDS beside the hog.
#   isolation      per-second completed requests / the baseline's median
#                  rate, at the 1st and 50th percentile of the seconds beside
#                  the hog (iso_p1, iso_p50; resctl-bench's isolation)
#   latency impact p95 request latency beside the hog / the baseline's p95
#                  - 1 (lat_impact, %)
# Arms, interleaved round by round:
#   none        nothing set
#   oracle      an expert who knows the data file's size: memory.low of web
#               = the file + 4 MiB, the hog's group capped at P's limit -
#               that - 8 MiB
#   knob        (patched kernel) memory.reclaim_protect_active=1 on P alone
#   memctl      `memctl run` with protect: active on web, no sizes
#   memctl-aa   the same, later in the same round: the A/A control
# Also per arm: OOM kills in P's tree, the refaults of web's group over the
# hog phase (pages), and the hog's size at the end (MiB).
E=isolation
. /tests/bench/blib.sh
need_disk

if [ $QUICK = 1 ]; then
	LIMIT=96 WS=32 HOG=88 HOG_RATE=40 RATE=20 SECONDS=3
	rounds 1
else
	LIMIT=160 WS=64 HOG=148 HOG_RATE=20 RATE=50 SECONDS=8
	rounds 10
fi
LOW=$((WS + 4))
mkfile /mnt/disk/data $WS

pair_profile /tmp/isolation.yaml P $LIMIT "web: { protect: active }" "hog: {}"

# nearest-rank percentile $1 (0-100) of the numbers on stdin
pctl() { sort -n | awk -v p="$1" '{ v[NR] = $1 } END { k = int(p / 100 * NR + 0.999999); if (k < 1) k = 1; if (NR) print v[k] }'; }
# P's memory.events is hierarchical: it counts the kills in web and hog too
ooms() { awk '$1 == "oom_kill" { s += $2 } END { print s + 0 }' $CG/P/memory.events 2>/dev/null; }

# scenario NAME MODE(none|oracle|knob|memctl) ROUND
scenario() {
	name=$1 mode=$2 r=$3
	want $name || return 0
	pair_setup web hog $mode || return
	echo 0 > $CG/P/hog/memory.swap.max
	resident --drop /mnt/disk/data > /dev/null
	# warm-up: two passes make the service's pages active
	run_in P/web ws-reader /mnt/disk/data 2 > /dev/null
	if [ $mode = memctl ]; then
		memctl_start /tmp/isolation.yaml /tmp/isolation-$name.log || { rmgroup P; return; }
	fi
	run_in P/web taskset 1 reqloop --seed $r /mnt/disk/data $RATE $SECONDS > /tmp/iso-base ||
		{ berr "$name: reqloop failed"; memctl_stop; rmgroup P; return; }
	rf0=$(stat workingset_refault_file P/web)
	spawn_in /tmp/iso-hog P/hog taskset 2 hog ${HOG}M $HOG_RATE
	hpid=$!
	run_in P/web taskset 1 reqloop --seed $((r + 1000)) /mnt/disk/data $RATE $SECONDS > /tmp/iso-beside
	rf1=$(stat workingset_refault_file P/web)
	hog_mib=$(($(stat anon P/hog) / MIB))
	kill -TERM $hpid 2>/dev/null
	wait $hpid 2>/dev/null
	oom=$(ooms)
	memctl_stop
	[ $mode = memctl ] && [ $QUICK = 1 ] && sed 's/^/memctl: /' /tmp/isolation-$name.log | tail -n 10
	base=$(sed -n 's/^sec .* rps=\([0-9]*\).*/\1/p' /tmp/iso-base | pctl 50)
	b95=$(sed -n 's/^total .* p95_us=\([0-9]*\).*/\1/p' /tmp/iso-base)
	h95=$(sed -n 's/^total .* p95_us=\([0-9]*\).*/\1/p' /tmp/iso-beside)
	if [ -z "$base" ] || [ -z "$b95" ] || [ -z "$h95" ] || [ "$base" = 0 ]; then
		berr "$name: reqloop gave no rates (base '$base', p95 '$b95' '$h95')"
		rmgroup P
		return
	fi
	sed -n 's/^sec .* rps=\([0-9]*\).*/\1/p' /tmp/iso-beside |
		awk -v b=$base '{ printf "%.2f\n", 100 * $1 / b }' > /tmp/iso-pct
	bench_round $name mode=$mode base_rps=$base iso_p1=$(pctl 1 < /tmp/iso-pct) \
		iso_p50=$(pctl 50 < /tmp/iso-pct) \
		lat_impact=$(awk -v h=$h95 -v b=$b95 'BEGIN { printf "%.1f", (b > 0 ? 100 * (h / b - 1) : 0) }') \
		base_p95_us=$b95 beside_p95_us=$h95 oom_kills=$oom refaults=$((rf1 - rf0)) hog_mib=$hog_mib \
		memctl_cpu=$MEMCTL_CPU
	rmgroup P
}

arms="none oracle memctl"
patched && arms="$arms knob"
arms="$arms memctl-aa"
r=0
while [ $r -lt $ROUNDS ]; do
	r=$((r + 1))
	for a in $arms; do
		case $a in
		memctl*) scenario $a memctl $r ;;
		*) scenario $a $a $r ;;
		esac
	done
done
for a in $arms; do bench_medians $a; done
exit 0
