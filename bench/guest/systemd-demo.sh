# The demo on the systemd guest: a database beside a backup, both systemd
# units, under a slice with MemoryMax.  db.service re-reads its working set
# (ws-reader: a file that fits in the slice, read and checksummed again and
# again); backup.service streams a file much larger than the slice
# (streamer), whose page cache pushes the database's pages out.  Arms, each
# round running them one after another in turn (interleaved):
#   none     no settings: what the kernel does alone
#   expert   the settings an expert who knows the sizes sets by hand with
#            systemd: MemoryLow= of db.service a quarter above its file,
#            MemoryMax= of backup.service the rest of the slice less 16M
#   memctl   memctl.service as shipped, with a profile that only names the
#            units and says what they are (db.service protect: active,
#            backup.service soft_limit: 0); memctl measures the working set
#            and sets the units' properties through systemd, before the
#            backup starts streaming
#   none-b   "none" again, run as a separate arm: the A/A control (the
#            same arm must not differ from itself)
# Per arm and round: the database's refaults during its measured passes
# (workingset_refault_file of db.service: what it had to read from disk
# again) and the time of those passes.  The summary gives medians with
# quartiles over the rounds and the Mann-Whitney test of each arm against
# none (bench/stats.sh).  Quick mode (CI): one round of small sizes, to show
# every arm runs; it asserts nothing about the numbers.
#
#   host: tests/guest/systemd/host.sh [--baseline] bench/systemd-demo.sh quick
#         MEMCTL_GUEST_TIMEOUT=7200 tests/guest/systemd/host.sh bench/systemd-demo.sh full [ROUNDS]
# The units get the guest's PATH (the workloads are in the input's bin/);
# the backup waits for a go so that memctl.service can start once both
# units exist (a unit systemd does not know is an error in a profile).
set -u
E=demo
in=${MEMCTL_GUEST_IN:?runs in the systemd guest}
out=${MEMCTL_GUEST_OUT:?}
. "$in/bench/stats.sh"
CG=/sys/fs/cgroup
MIB=1048576
QUICK=0
[ "${1:-}" = quick ] && QUICK=1
if [ $QUICK = 1 ]; then
	LIMIT=64 WS=36 STREAM=160 PASSES=3 ROUNDS=1
else
	LIMIT=128 WS=72 STREAM=384 PASSES=6 ROUNDS=${2:-10}
fi
ARMS="none expert memctl none-b"
dir=/var/lib/memctl-demo
run=/run/memctl-demo
mkdir -p $dir $run
rm -f $out/demo-*.tsv

bench() { echo "BENCH $E $*"; }
errors=0
berr() { echo "BENCH-ERROR $E $*"; errors=$((errors + 1)); }
field() { echo " $2" | sed -n "s/.* $1=\\([^ ]*\\).*/\\1/p"; }
wait_file() {	# SECONDS FILE PATTERN: poll until FILE has a line matching PATTERN
	local n=$(($1 * 10))
	until grep -q "$3" "$2" 2>/dev/null; do
		n=$((n - 1)); [ $n -gt 0 ] || return 1; sleep 0.1
	done
}

# The files, on the guest's ext4 root (4 KiB blocks), once.
[ -s $dir/ws ] || mkfile $dir/ws ${WS}M > /dev/null
[ -s $dir/stream ] || mkfile $dir/stream ${STREAM}M > /dev/null

# The slice, as an administrator writes it.
cat > /run/systemd/system/demo.slice <<EOF
[Slice]
MemoryMax=${LIMIT}M
EOF
systemctl daemon-reload

# The database's run: two warm-up passes make its pages active, then it
# waits for the backup to have pushed its file through once, then the
# measured passes; the refault counter of its own cgroup around them.
cat > $run/db.sh <<'EOF'
#!/bin/bash
cg=/sys/fs/cgroup$(cut -d: -f3 /proc/self/cgroup)
refaults() { awk '$1 == "workingset_refault_file" { print $2 }' $cg/memory.stat; }
ws-reader "$1" 2 > /dev/null
touch /run/memctl-demo/warm
until [ -e /run/memctl-demo/go ]; do sleep 0.1; done
r0=$(refaults)
res=$(ws-reader --work 20 "$1" "$2")
r1=$(refaults)
echo "$res refaults=$((r1 - r0)) low=$(cat $cg/memory.low)"
EOF
chmod +x $run/db.sh
# The backup waits for its go (so that memctl's arm can start memctl after
# both units exist, before the backup streams), then streams.
cat > $run/backup.sh <<'EOF'
#!/bin/bash
until [ -e /run/memctl-demo/stream ]; do sleep 0.1; done
exec streamer --verbose "$1"
EOF
chmod +x $run/backup.sh

# interval 5s: an interval's time bounds each write, and under TCG the
# bus calls of one interval can take most of a second
cat > $run/memctl.yaml <<EOF
version: 1
parent: self
interval: 5s
units:
  db.service:
    protect: active
  backup.service:
    soft_limit: 0
EOF

# arm NAME ROUND: one run of the database beside the backup.
arm() {
	local name=$1 round=$2 dbp=() bkp=()
	rm -f $run/warm $run/go $run/stream $run/db.out $run/backup.out
	# Every file out of the page cache: each arm starts cold.
	sync; echo 3 > /proc/sys/vm/drop_caches
	case $name in
	expert)
		dbp=(-p MemoryLow=$((WS * 5 / 4))M)
		bkp=(-p MemoryMax=$((LIMIT - WS * 5 / 4 - 16))M) ;;
	esac
	# The units get the guest's PATH: the workloads are in the input's bin/.
	systemd-run -q --unit=db --slice=demo.slice -p Type=exec --setenv=PATH="$PATH" "${dbp[@]}" \
		-p StandardOutput=file:$run/db.out $run/db.sh $dir/ws $PASSES
	local n=3000
	until [ -e $run/warm ]; do
		n=$((n - 1)); [ $n -gt 0 ] || { berr "$name: db.service did not warm up"; break; }
		sleep 0.1
	done
	systemd-run -q --unit=backup --slice=demo.slice -p Type=exec --setenv=PATH="$PATH" "${bkp[@]}" \
		-p StandardOutput=file:$run/backup.out $run/backup.sh $dir/stream
	# memctl.service as shipped, on a profile naming both units (which must
	# exist when it starts: a unit systemd does not know is an error); the
	# backup streams once memctl has set db's protection from its working set.
	if [ $name = memctl ]; then
		cp /etc/memctl/profile.yaml $run/shipped.yaml
		cp $run/memctl.yaml /etc/memctl/profile.yaml
		memctl check /etc/memctl/profile.yaml > $run/check.out 2>&1 ||
			berr "memctl: the units profile does not check: $(tr '\n' ' ' < $run/check.out)"
		systemctl start memctl.service
		n=600
		until [ "$(systemctl show -P MemoryLow db.service)" != 0 ]; do
			n=$((n - 1)); [ $n -gt 0 ] || { berr "memctl: db.service got no MemoryLow in 60 s"; break; }
			sleep 0.1
		done
	fi
	touch $run/stream
	wait_file 600 $run/backup.out '^loop ' || berr "$name: the backup did not stream its file"
	touch $run/go
	# The database ends by itself; its line is the last thing it writes.
	wait_file 1800 $run/db.out '^total ' || berr "$name: db.service did not finish"
	systemctl stop backup.service db.service 2>/dev/null
	[ $name = memctl ] && { systemctl stop memctl.service; cp $run/shipped.yaml /etc/memctl/profile.yaml; }
	local res; res=$(grep '^total ' $run/db.out)
	bench "$name#$round" elapsed=$(field elapsed "$res") refaults=$(field refaults "$res") \
		resident_avg=$(field resident_avg "$res") db_low_mib=$(($(field low "$res") / MIB)) \
		backup_mbps=$(awk '/^total/ { print $NF }' $run/backup.out | sed 's/mbps=//')
	echo "$(field elapsed "$res")" >> $out/demo-$name-elapsed.tsv
	echo "$(field refaults "$res")" >> $out/demo-$name-refaults.tsv
}

r=1
while [ $r -le $ROUNDS ]; do
	for a in $ARMS; do arm $a $r; done
	r=$((r + 1))
done

# Side by side: median [q1, q3] of each arm, and each arm against none.
echo "demo: slice MemoryMax=${LIMIT}M, db file ${WS}M x $PASSES passes, backup file ${STREAM}M, $ROUNDS rounds, kernel $(uname -r)"
printf '%-8s %-28s %-28s %s\n' arm "refaults median [q1, q3]" "pass time s median [q1, q3]" "vs none: U p (refaults; time)"
for a in $ARMS; do
	rf=$(stats_summary < $out/demo-$a-refaults.tsv)
	el=$(stats_summary < $out/demo-$a-elapsed.tsv)
	vs=-
	[ $a != none ] && vs="$(stats_mwu $out/demo-$a-refaults.tsv $out/demo-none-refaults.tsv); $(stats_mwu $out/demo-$a-elapsed.tsv $out/demo-none-elapsed.tsv)"
	set -- $rf; rfs="$1 [$2, $3]"
	set -- $el; els="$1 [$2, $3]"
	printf '%-8s %-28s %-28s %s\n' $a "$rfs" "$els" "$vs"
	bench $a refaults=$(echo $rf | cut -d' ' -f1) elapsed=$(echo $el | cut -d' ' -f1) rounds=$ROUNDS
done
rm -f /run/systemd/system/demo.slice
systemctl daemon-reload
# Numbers are not judged here; an arm that could not run is an error.
[ $errors = 0 ] || { echo "demo: $errors arm runs failed"; exit 1; }
exit 0
