# memctl top -b: the tree below our own cgroup with the limits the kernel
# has, as text and as JSON (one document per refresh) whose values match
# memctl get; rates appear from the second refresh on. Then golden text on a
# fake v2 tree, where PSI and the v2 event files exist.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg

T_TMP=$(mktemp -d)
A=$T_PREFIX-a
B=$T_PREFIX-b
cat > "$T_TMP/p.yaml" <<YAML
version: 1
parent: self
groups:
  $A:
    max: 256M
    soft_limit: 64M
    groups:
      c1:
        max: 128M
  $B:
    max: 64M
YAML
mc -q apply "$T_TMP/p.yaml"
check_rc $? 0 "apply the test groups"

out=$(mc top -b -n 2 -d 0.2 -p self --sort group --columns max,soft_limit,usage); rc=$?
check_rc $rc 0 "top -b -n 2"
check_eq "$(echo "$out" | grep -c '^memctl top: ')" 2 "two refreshes printed"
last=$(echo "$out" | awk '/^memctl top: /{n++} n == 2')
check_eq "$(echo "$last" | awk -v g="$A" '$1 == g {print $2, $3}')" "256M 64M" "$A: max and soft limit"
check_eq "$(echo "$last" | awk '$1 == "c1" {print $2}')" "128M" "c1 shown below $A with its max"
check_eq "$(echo "$last" | awk -v g="$B" '$1 == g {print $2}')" "64M" "$B: max"
# tree order: A, its child indented, then B
order=$(echo "$last" | awk -v a="$A" -v b="$B" '$1 == a || $1 == b || $1 == "c1" {print $1}' | tr '\n' ' ')
check_eq "$order" "$A c1 $B " "tree order with --sort group"
echo "$last" | grep -q "^    c1 " && pass "child indented two levels" || fail "indentation: $last"

mc -o json top -b -n 2 -d 0.2 -p self > "$T_TMP/top.json"; rc=$?
check_rc $rc 0 "top -b -o json"
check_eq "$(wc -l < "$T_TMP/top.json")" 2 "one JSON document per refresh"
for g in "$A" "$A/c1" "$B"; do
	mc -o json get "$g" > "$T_TMP/get.json"
	f=memory.max
	[ "$T_VERSION" = 1 ] && f=memory.limit_in_bytes
	jq -e -n --slurpfile docs "$T_TMP/top.json" --slurpfile get "$T_TMP/get.json" \
		--arg g "$g" --arg kern "$(cat "$T_DIR/$g/$f")" '
	def rows($d): $d.groups | map({key: .group, value: .}) | from_entries;
	rows($docs[-1])[$g] as $r | $get[0].knobs as $k |
	# the effective limit is the smallest max up the tree
	([$docs[-1].groups[] | .group as $x | select((.max | type) == "number" and
	  ($g == $x or ($g | startswith($x + "/")))) | .max] | min) as $lim |
	(["max", "soft_limit", "min", "low", "high"] | all(. as $n | $r[$n] == $k[$n])) and
	($r.max | tostring) == $kern and
	($r.usage | type) == "number" and $r.usage >= 0 and
	(($r.pct - ((10000 * $r.usage / $lim) | round) / 100) | fabs) < 0.02 and
	rows($docs[0])[$g].max_rate == null and $r.max_rate != null and
	$r.present == true and $r.decision == null' > /dev/null &&	pass "$g: JSON parses, knobs equal memctl get and the kernel, % and rates right" ||
		fail "$g: JSON values (see above)"
done

# --profile: the engine's decisions and working-set estimates, nothing written
cat > "$T_TMP/q.yaml" <<YAML
version: 1
parent: self
groups:
  $A:
    max: 200M
    protect: active
YAML
mc -o json top -b -n 2 -d 0.2 --profile "$T_TMP/q.yaml" --columns max,wset,decision > "$T_TMP/prof.json"
check_rc $? 0 "top --profile"
tail -n 1 "$T_TMP/prof.json" | jq -e --arg g "$A" '
	(.groups[] | select(.group == $g)) as $r |
	# the last decision for the group: max, or the kernel patch switch after it
	($r.decision | test("-> 200M: profile: max 200M$|^(simulated: )?memory.reclaim_protect_active -> 1: ")) and
	($r.wset | type) == "number" and $r.max == 256 * 1048576' > /dev/null &&
	pass "decision and working set shown for $A" || fail "--profile output: $(cat "$T_TMP/prof.json")"
check_eq "$(mc get "$A" max)" 256M "top --profile wrote nothing"

err=$(mc top -b -n 1 --columns max,nonsense 2>&1); rc=$?
check_rc $rc 2 "unknown column refused"
echo "$err" | grep -q "unknown column 'nonsense'" && pass "names the bad column" || fail "message: $err"
err=$(mc top 2>&1 < /dev/null); rc=$?
check_rc $rc 2 "top without a terminal and without -b"

# TASKS follows the kernel from refresh to refresh: an empty group is read
# once, then counted without a read until a write to its cgroup.procs is
# reported; a process that exits leaves a group that is read every time.
mc -o json top -b -n 12 -d 0.25 -p self --columns tasks > "$T_TMP/tasks.json" &
top_pid=$!
sleep 1
sh -c "echo \$\$ > '$T_DIR/$B/cgroup.procs' && exec sleep 1.5" &
sleep_pid=$!
wait "$sleep_pid"
wait "$top_pid"
check_rc $? 0 "top -b with the task count"
counts=$(jq -r --arg g "$B" '.groups[] | select(.group == $g) | .tasks' "$T_TMP/tasks.json" | uniq | tr '\n' ' ')
check_eq "$counts" "0 1 0 " "$B's task count: 0, then 1 while a process is in it, then 0 after it exits"

# Golden text on a fake v2 tree: every column, one refresh (no rates yet).
ROOT=$T_TMP/cg
v2group() {   # path max high low current anon file
	fake_v2_group "$ROOT$1" memory.max="$2" memory.high="$3" memory.low="$4" memory.current="$5" \
		"memory.stat=anon $6\nfile $7\nactive_anon $6\ninactive_anon 0\nactive_file 0\ninactive_file $7\nanon_thp 0\nthp_fault_fallback_charge 5\nworkingset_refault_anon 0\nworkingset_refault_file 7" \
		'memory.events=low 0\nhigh 3\nmax 2\noom 1\noom_kill 1' \
		'memory.pressure=some avg10=1.50 avg60=0.00 avg300=0.00 total=9\nfull avg10=0.25 avg60=0.00 avg300=0.00 total=3'
}
mkdir -p "$ROOT"; echo "cpu memory" > "$ROOT/cgroup.controllers"
v2group /svc 1073741824 max 0 104857600 52428800 52428800
v2group /svc/web 536870912 402653184 67108864 83886080 41943040 41943040
v2group /svc/web/cache 134217728 max 0 33554432 0 33554432
v2group /svc/batch max max 0 20971520 10485760 10485760
MEMCTL_CGROUP_ROOT=$ROOT MEMCTL_CGROUP_VERSION=2 MEMCTL_FAKE_SELF=/svc MEMCTL_FAKE_MEM_TOTAL=16G \
	mc top -b -n 1 --sort usage > "$T_TMP/out"
check_rc $? 0 "top -b on a fake v2 tree"
golden top-fake-v2.txt < "$T_TMP/out"
summary
