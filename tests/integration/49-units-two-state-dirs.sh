# Two memctl processes with different state directories that name the same
# systemd unit are serialized by the unit's host-wide lock (in
# /run/memctl/units, whatever the state directory), as the subtree lock
# serializes those that share groups (test 42): with disjoint parents, the
# second waits, saying so, or with --no-wait refuses naming the first one's
# PID (exit 3); an alias of the unit shares its lock; their calls to systemd
# never interleave; and a rollback of a journal that names the unit waits
# for a memctl changing it; the locks are root's alone; memctl run asks
# systemd for a unit's Id (its lock's name) once, not every interval, again
# after SIGHUP and after intervals that failed on the unit (not while the
# unit is busy), and still takes the unit's lock every interval. systemd is the stand-in of test 32 on a private
# bus, and the units' cgroups are real groups below this test's own cgroup,
# where the stand-in writes MemoryMax as systemd would.
. "$(dirname "$0")/lib.sh"
prereq_fake_systemd

T_TMP=$(mktemp -d)
S1=$T_TMP/s1; S2=$T_TMP/s2
bus_pid= fake_pid= a= b= r= run=
stop_all() {
	for p in $a $b $r $run; do kill -CONT "$p" 2>/dev/null; kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	[ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null && wait "$fake_pid" 2>/dev/null
	private_bus_stop
	# this test's unit names are its own (they carry its PID): their lock files go too
	rm -f /run/memctl/units/"$T_PREFIX"-*
	cleanup
}
trap stop_all EXIT
private_bus_start
U=$T_PREFIX-db.service
slice=$T_PREFIX.slice
mkparent "$slice" "$T_PREFIX-a" "$T_PREFIX-b" && mkdir "$T_DIR/$slice/db.service" ||
	{ echo "cannot make the groups"; exit 1; }
mkfifo "$T_TMP/ready"
# start_fake: the stand-in on the private bus, "ready" in line once it answers
start_fake() {
	FAKE_SYSTEMD_CGROOT=$T_MOUNT "$FAKE" "$MEMCTL_TEST_SYSTEMD_BUS" "$T_TMP/log" \
		"$T_PREFIX-alias.service=alias:$U" "$U=loaded:${T_SELF%/}/$slice/db.service" > "$T_TMP/ready" &
	fake_pid=$!
	line=
	read -r -t 60 line < "$T_TMP/ready"
}
start_fake
check_eq "$line" ready "the stand-in owns org.freedesktop.systemd1"
M=$((1024 * 1024))
# profile FILE PARENT UNIT SETTINGS: a profile of one unit, below a parent of its own
profile() { printf 'version: 1\nparent: self/%s\nunits:\n  %s: {%s}\n' "$2" "$3" "$4" > "$1"; }
profile "$T_TMP/a.yaml" "$T_PREFIX-a" "$U" "max: 200M, swap_max: 32M"
profile "$T_TMP/b.yaml" "$T_PREFIX-b" "$U" "max: 250M"
profile "$T_TMP/alias.yaml" "$T_PREFIX-b" "$T_PREFIX-alias.service" "max: 240M"
sets() { grep -c '^set ' "$T_TMP/log"; }

# A (state S1) stops after its first property, holding the unit.
MEMCTL_STOP_AFTER_WRITE=1 "$MEMCTL" -s "$S1" -q apply "$T_TMP/a.yaml" &
a=$!
wait_stopped $a || fail "A did not stop"
n=$(sets)
out=$("$MEMCTL" -s "$S2" --no-wait apply "$T_TMP/b.yaml" 2>&1); rc=$?
check_rc $rc 3 "--no-wait with another state dir and another parent, same unit"
check_eq "$out" "memctl: another memctl (pid $a) is changing unit '$U'; try again when it is done" \
	"names A's pid and the unit"
out=$("$MEMCTL" -s "$S2" --no-wait apply "$T_TMP/alias.yaml" 2>&1); rc=$?
check_rc $rc 3 "an alias of the unit shares its lock"
echo "$out" | grep -qF "(pid $a) is changing unit '$T_PREFIX-alias.service'" &&
	pass "and the message names the unit as the profile does" || fail "alias: $out"
check_eq "$(sets)" "$n" "neither called systemd"

ids() { grep -c '^call Get Id$' "$T_TMP/log"; }
i0=$(ids)
"$MEMCTL" -s "$S2" apply "$T_TMP/b.yaml" > "$T_TMP/b.out" 2> "$T_TMP/b.err" &
b=$!
for i in $(seq 1 3000); do grep -q waiting "$T_TMP/b.err" && break; sleep 0.01; done
check_eq "$(cat "$T_TMP/b.err")" "memctl: waiting for pid $a, which is changing unit '$U'" \
	"B says it waits for the lock"
kill -0 $b 2>/dev/null && pass "B still waiting while A holds the unit" || fail "B did not wait"
check_eq "$(sets)" "$n" "B has not called systemd"
kill -CONT $a
wait $a; check_rc $? 0 "A finishes"; a=
wait $b; check_rc $? 0 "B finishes after A"; b=
check_eq "$(($(ids) - i0))" 1 "B asked for the unit's Id once, not again after its wait"
check_eq "$(grep '^set ' "$T_TMP/log" | tr '\n' ' ')" \
	"set $U MemoryMax $((200 * M)) set $U MemorySwapMax $((32 * M)) set $U MemoryMax $((250 * M)) " \
	"systemd got A's two calls, then B's: not interleaved"
check_eq "$(cat "$T_DIR/$slice/db.service/memory.limit_in_bytes" 2>/dev/null ||
	cat "$T_DIR/$slice/db.service/memory.max")" $((250 * M)) "the unit's cgroup has B's MemoryMax"

# A is killed after its first property: its journal in S1 names the unit.
# While B (S2) holds the unit, rolling A back waits for B.
profile "$T_TMP/a2.yaml" "$T_PREFIX-a" "$U" "max: 180M, swap_max: 16M"
profile "$T_TMP/b2.yaml" "$T_PREFIX-b" "$U" "low: 8M, high: 100M"
MEMCTL_STOP_AFTER_WRITE=1 "$MEMCTL" -s "$S1" -q apply "$T_TMP/a2.yaml" &
a=$!
wait_stopped $a || fail "A did not stop"
kill -9 $a; wait $a 2>/dev/null; a=
grep -q "^unit MemoryMax $((250 * M)) $((180 * M)) $U$" "$S1/journal" &&
	pass "A left a journal naming the unit" || fail "journal: $(cat "$S1/journal" 2>&1)"
MEMCTL_STOP_AFTER_WRITE=1 "$MEMCTL" -s "$S2" -q apply "$T_TMP/b2.yaml" &
b=$!
wait_stopped $b || fail "B did not stop"
n=$(sets)
"$MEMCTL" -s "$S1" rollback > "$T_TMP/rb.out" 2>&1 &
r=$!
# bounded: unlocked, the rollback would put MemoryMax back at once
for i in $(seq 1 100); do [ "$(sets)" != "$n" ] && break; kill -0 $r 2>/dev/null || break; sleep 0.01; done
check_eq "$(sets)" "$n" "the rollback waits: no call to systemd while B holds the unit"
kill -0 $r 2>/dev/null && pass "rollback still waiting" || fail "rollback: $(cat "$T_TMP/rb.out")"
kill -CONT $b
wait $b; check_rc $? 0 "B finishes"; b=
wait $r; check_rc $? 0 "the rollback of A then runs"; r=
check_eq "$(grep '^set ' "$T_TMP/log" | tail -n +$((n + 1)) | sed 's/ [0-9]*$//' | tr '\n' ' ')" \
	"set $U MemoryLow set $U MemoryMax " "B's second call, then the rollback's"
check_eq "$(grep '^set ' "$T_TMP/log" | tail -n1)" "set $U MemoryMax $((250 * M))" \
	"the rollback put A's MemoryMax back"

# memctl run (state S1) on the unit, every 200 ms. Each interval reads the
# unit (one "Get ActiveState" each); its Id is asked for once.
reads() { grep -c '^call Get ActiveState$' "$T_TMP/log"; }
calls() { grep -c '^call ' "$T_TMP/log"; }
# wait_for N COUNTER: until COUNTER says at least N (30 s at most)
wait_for() {
	local i
	for i in $(seq 1 300); do [ "$($2)" -ge "$1" ] && return 0; sleep 0.1; done
	return 1
}
profile "$T_TMP/run.yaml" "$T_PREFIX-a" "$U" "max: 220M"
sed -i 's/^parent: .*/&\ninterval: 200ms/' "$T_TMP/run.yaml"
i0=$(ids) r0=$(reads)
"$MEMCTL" -s "$S1" run "$T_TMP/run.yaml" > "$T_TMP/run.log" 2>&1 &
run=$!
wait_for $((r0 + 1)) reads || fail "run: no interval read the unit: $(cat "$T_TMP/run.log")"
check_eq "$(($(ids) - i0))" 1 "run's first interval asked for the unit's Id"
i1=$(ids) r1=$(reads) c1=$(calls)
wait_for $((r1 + 10)) reads || fail "run: fewer than 10 intervals in 30 s"
i2=$(ids) r2=$(reads) c2=$(calls)
check_eq "$((i2 - i1))" 0 "$((r2 - r1)) more intervals asked for no Id"
[ "$((i2 - i1))" = 0 ] || sed 's/^/# /' "$T_TMP/run.log"
echo "# D-Bus calls per interval of one unit: $(awk -v c=$((c2 - c1)) -v n=$((r2 - r1)) \
	'BEGIN { printf "%.1f", c / n }') ($((c2 - c1)) in $((r2 - r1)) intervals)"
kill -HUP $run
for i in $(seq 1 300); do grep -q "SIGHUP: reloading" "$T_TMP/run.log" && break; sleep 0.1; done
wait_for $(($(reads) + 3)) reads || fail "run: no interval after SIGHUP"
check_eq "$(($(ids) - i2))" 1 "after SIGHUP it asked once more"
# Another memctl (state S2) holds the unit: run's intervals skip it (no
# call that sets) and keep the Id, which a busy lock says nothing about.
MEMCTL_STOP_AFTER_WRITE=1 "$MEMCTL" -s "$S2" -q apply "$T_TMP/b.yaml" &
b=$!
wait_stopped $b || fail "B did not stop"
n=$(sets) i3=$(ids)
sleep 1
check_eq "$(sets)" "$n" "run sets nothing while another memctl holds the unit"
kill -CONT $b
wait $b; check_rc $? 0 "B finishes"; b=
wait_for $((n + 1)) sets || fail "run did not set the unit again: $(cat "$T_TMP/run.log")"
check_eq "$(grep '^set ' "$T_TMP/log" | tail -n2 | tr '\n' ' ')" \
	"set $U MemoryMax $((250 * M)) set $U MemoryMax $((220 * M)) " "B's call, then run's again"
check_eq "$(($(ids) - i3))" 0 "run kept the Id while the unit was busy"
# systemd gone, then back (a new stand-in, its MemoryMax infinity again):
# the intervals that failed on the unit forgot its Id, and run asks again.
kill "$fake_pid"; wait "$fake_pid" 2>/dev/null; fake_pid=
for i in $(seq 1 300); do grep -q "no systemd bus" "$T_TMP/run.log" && break; sleep 0.1; done
grep -q "no systemd bus" "$T_TMP/run.log" && pass "run: no systemd bus" || fail "run: $(cat "$T_TMP/run.log")"
i4=$(ids) n=$(sets)
start_fake
check_eq "$line" ready "a new stand-in"
wait_for $((n + 1)) sets || fail "run did not set the new stand-in's unit: $(cat "$T_TMP/run.log")"
[ "$(ids)" -gt "$i4" ] && pass "the failed intervals forgot the Id: run asked again" ||
	fail "run did not ask for the Id again after its intervals failed"
i5=$(ids)
wait_for $(($(reads) + 5)) reads || fail "run: no intervals after the new stand-in"
check_eq "$(($(ids) - i5))" 0 "and then kept it"
kill $run; wait $run 2>/dev/null; run=

# The units' locks are root's: a user who could take one could hold up
# every memctl on that unit. Without root, memctl says so before any call.
if setpriv --reuid nobody --regid nogroup --clear-groups -- true 2> /dev/null; then
	nb=$(mktemp -d)
	chmod 0755 "$nb" && cp "$T_TMP/b.yaml" "$nb/" && chmod 0644 "$nb/b.yaml"
	mkdir -m 0700 "$nb/state" && chown nobody "$nb/state"
	n=$(sets)
	out=$(setpriv --reuid nobody --regid nogroup --clear-groups -- \
		"$MEMCTL" -s "$nb/state" apply "$nb/b.yaml" 2>&1); rc=$?
	rm -rf "$nb"
	check_rc $rc 3 "without root"
	echo "$out" | grep -qF "changing systemd units needs root: their locks in '/run/memctl/units' are root's" &&
		pass "says it needs root, and why" || fail "without root: $out"
	check_eq "$(sets)" "$n" "without root: no call to systemd"
fi
summary
