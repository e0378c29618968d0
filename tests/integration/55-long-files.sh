# cgroup files longer than one read: the kernel returns at most a page of
# a seq_file per read(2), whatever the buffer, and cgroup.procs has a line
# a process. A group with 1200 processes has a cgroup.procs of more than
# a page; its task count must be the kernel's whole count in top's batch
# output and in every sample of memctl record (on v1 at an interval below
# 2 s, where each sample opens the file afresh, and above it, where the
# kept descriptor is read again), not the processes of the first page.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
T_TMP=$(mktemp -d)
P=$T_PREFIX
N=1200
SLEEPERS=()
stop_all() {
	[ ${#SLEEPERS[@]} -gt 0 ] && { kill "${SLEEPERS[@]}"; wait "${SLEEPERS[@]}"; } 2> /dev/null
	SLEEPERS=()
	cleanup
}
trap stop_all EXIT
mkparent "$P" || { fail "cannot make $P"; summary; exit 1; }
mkdir "$T_DIR/$P/many" || { fail "cannot make $P/many"; summary; exit 1; }
for _ in $(seq 1 $N); do
	sleep 600 &
	SLEEPERS+=($!)
	echo $! > "$T_DIR/$P/many/cgroup.procs" || { fail "cannot move a process into $P/many"; break; }
done
want=$(wc -l < "$T_DIR/$P/many/cgroup.procs")
bytes=$(wc -c < "$T_DIR/$P/many/cgroup.procs")
page=$(getconf PAGESIZE 2> /dev/null || echo 4096)   # no getconf in the guest (x86: 4096)
check_eq "$want" "$N" "the kernel lists the $N processes"
# without a file longer than a read returns, the checks below prove nothing
[ "$bytes" -gt "$page" ] && pass "cgroup.procs is $bytes bytes, more than a page ($page)" ||
	fail "cgroup.procs is $bytes bytes, not more than a page ($page): the test is void"

top_tasks() { # the task count of many in top's batch JSON (no python3 in the guest)
	mc top -b -p "self/$P" -n 1 -o json | grep -o '{"group":"many",[^}]*}' |
		grep -o '"tasks":[0-9]*' | cut -d: -f2
}
check_eq "$(top_tasks)" "$want" "top -b: the task count of a group with $N processes"

ivals=200ms
[ "$T_VERSION" = 1 ] && ivals="200ms 2100ms"
for ival in $ivals; do
	S=$T_TMP/store-$ival
	mc record -p "self/$P" --dir "$S" --interval "$ival" -n 3 2> "$T_TMP/rec.log"
	check_rc $? 0 "record, $ival apart, 3 samples"
	got=$(mc dump --dir "$S" --groups many |
		awk -F, '$2 ~ /\/many$/ && $3 == "tasks" { printf "%s%s", (n++ ? " " : ""), $4 } END { print "" }')
	check_eq "$got" "$want $want $want" "record, $ival apart: the task count in each sample"
done
summary
