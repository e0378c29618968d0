# Which systemd unit owns a group, in status and top: groups named like
# units below our own cgroup (a slice, a service with a work group and a
# scope below it), real groups on this host. top's UNIT column (text and
# JSON) names the deepest unit of each row's path, "-" / null outside any;
# status GROUP names the unit, the cgroup it has and who writes it; a
# command memctl exec starts in the service's work group reports that unit.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg

T_TMP=$(mktemp -d)
P=$T_PREFIX
mkparent "$P" "$P/demo.slice" "$P/demo.slice/app.service" || fail "mkdir"
mkdir "$T_DIR/$P/demo.slice/app.service/work" "$T_DIR/$P/plain" "$T_DIR/$P/plain/x.servicefoo" ||
	fail "mkdir"

# top -b: the UNIT column per row, in tree order
mc top -b -n 1 -p "self/$P" --sort group --columns unit > "$T_TMP/top.txt"
check_rc $? 0 "top -b --columns unit"
rows=$(awk 'NR > 2 && NF { print $1 "=" $2 }' "$T_TMP/top.txt" | sed 1d | tr '\n' ' ')
check_eq "$rows" "demo.slice=demo.slice app.service=app.service work=app.service plain=- x.servicefoo=- " \
	"each group's unit is the deepest unit of its path"
mc -o json top -b -n 1 -p "self/$P" --columns unit > "$T_TMP/top.json"
check_rc $? 0 "top -b -o json --columns unit"
got=$(jq -r '.groups[] | "\(.group)=\(.unit)"' "$T_TMP/top.json" | LC_ALL=C sort | tr '\n' ' ')
check_eq "$got" "=null demo.slice/app.service/work=app.service demo.slice/app.service=app.service demo.slice=demo.slice plain/x.servicefoo=null plain=null " \
	"JSON: the unit, null outside any"

# status GROUP: the unit that owns it and its cgroup
out=$(mc status "$P/demo.slice/app.service/work" 2>/dev/null); rc=$?
check_rc $rc 0 "status GROUP"
unit=$(echo "$out" | sed -n 's/^unit  *//p')
case $unit in
"app.service (${T_SELF%/}/$P/demo.slice/app.service): "*) pass "status names the unit and its cgroup" ;;
*) fail "status unit line: $unit" ;;
esac
echo "$out" | grep -q "^group  *${T_SELF%/}/$P/demo.slice/app.service/work$" &&
	pass "status says which group it checked" || fail "status: $out"
check_eq "$(mc -o json status "$P/demo.slice/app.service/work" 2>/dev/null | jq -r .systemd.unit)" \
	app.service "status -o json GROUP: the unit"
check_eq "$(mc status "$P/plain" | sed -n 's/^unit  *//p')" "none: no systemd unit's cgroup holds it" \
	"a group in no unit"
mc status "$P/nope" >/dev/null 2>&1; check_rc $? 2 "status of a missing group"
mc status --profile /dev/null "$P/plain" >/dev/null 2>&1; check_rc $? 2 "GROUP and --profile together"

# a command started with exec in the service's work group: its group's unit
"$MEMCTL" exec "$P/demo.slice/app.service/work" -- sleep 30 &
pid=$!
for i in $(seq 1 500); do grep -qx "$pid" "$T_DIR/$P/demo.slice/app.service/work/cgroup.procs" && break; sleep 0.01; done
mc top -b -n 1 -p "self/$P/demo.slice/app.service" --columns tasks,unit > "$T_TMP/exec.txt"
check_eq "$(awk '$1 == "work" { print $2, $3 }' "$T_TMP/exec.txt")" "1 app.service" \
	"the exec'd command's group: one task, owned by app.service"
kill $pid; wait $pid 2>/dev/null
summary
