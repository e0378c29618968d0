# memctl run: applies every interval, reloads on SIGHUP (a broken profile is
# reported and the old one keeps running; one that comes while run starts
# is a reload once it runs), stops cleanly on SIGTERM and SIGINT, and
# --once / --dry-run do what they say.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg

T_TMP=$(mktemp -d)
G=$T_PREFIX-g
profile() { # max, interval
	cat > "$T_TMP/p.yaml" <<YAML
version: 1
parent: self
interval: $2
groups:
  $G:
    max: $1
YAML
}
profile 100M 200ms
# the file the kernel holds for our group's limit
limit_file=memory.max
[ "$T_VERSION" = 1 ] && limit_file=memory.limit_in_bytes

out=$(mc --dry-run --once run "$T_TMP/p.yaml" 2>&1); rc=$?
check_rc $rc 0 "run --once --dry-run"
[ -d "$T_DIR/$G" ] && fail "dry run created the group" || pass "dry run wrote nothing"
echo "$out" | grep -q "created $G" && pass "dry run logs what it would do" || fail "dry run log: $out"

mc --once run "$T_TMP/p.yaml" 2> "$T_TMP/once.log"; rc=$?
check_rc $rc 0 "run --once"
check_eq "$(kval $G $limit_file)" $((100 << 20)) "run --once applied the profile"
grep -q "$G: $limit_file" "$T_TMP/once.log" && pass "logs the write with its reason" ||
	fail "log: $(cat "$T_TMP/once.log")"

"$MEMCTL" run "$T_TMP/p.yaml" 2> "$T_TMP/run.log" &
pid=$!
# Someone changes the limit behind memctl's back: the next interval puts it back.
for i in $(seq 1 500); do grep -q "running" "$T_TMP/run.log" 2>/dev/null && break; sleep 0.01; done
echo $((50 << 20)) > "$T_DIR/$G/$limit_file"
for i in $(seq 1 500); do [ "$(kval $G $limit_file)" = $((100 << 20)) ] && break; sleep 0.01; done
check_eq "$(kval $G $limit_file)" $((100 << 20)) "a changed limit is put back within a few intervals"

# A broken profile on SIGHUP: reported, the old one keeps running.
printf 'version: 1\nparent: self\ngroups:\n  %s:\n    max: 12X\n' "$G" > "$T_TMP/p.yaml"
kill -HUP $pid
for i in $(seq 1 500); do grep -q "keeping the profile" "$T_TMP/run.log" && break; sleep 0.01; done
grep -q "p.yaml:5:10: .*12X" "$T_TMP/run.log" && pass "broken profile reported with its position" ||
	fail "log: $(cat "$T_TMP/run.log")"
grep -q "keeping the profile that is running" "$T_TMP/run.log" && pass "old profile kept" ||
	fail "old profile not kept"
kill -0 $pid 2>/dev/null && pass "still running after a broken SIGHUP" || fail "run exited on a broken profile"

# A good profile on SIGHUP takes effect.
profile 120M 200ms
kill -HUP $pid
for i in $(seq 1 500); do [ "$(kval $G $limit_file)" = $((120 << 20)) ] && break; sleep 0.01; done
check_eq "$(kval $G $limit_file)" $((120 << 20)) "reloaded profile applied"

kill -TERM $pid
wait $pid; rc=$?
check_rc $rc 0 "SIGTERM stops run cleanly"
grep -q "stopping after" "$T_TMP/run.log" && pass "says it stops" || fail "no stop message"

# A SIGHUP while run starts (systemctl start, then systemctl reload at once)
# is a reload once it runs, not its end. The test build stops itself there
# (MEMCTL_STOP_AT_START), started and not yet in its loop.
if mc --version | grep -q "fault injection"; then
	MEMCTL_STOP_AT_START=1 "$MEMCTL" run "$T_TMP/p.yaml" 2> "$T_TMP/start.log" &
	pid=$!
	wait_stopped $pid || fail "run did not stop at its start: $(cat "$T_TMP/start.log")"
	kill -HUP $pid
	kill -CONT $pid
	end=$((SECONDS + 30))
	until grep -q "SIGHUP: reloading" "$T_TMP/start.log" || [ $SECONDS -ge $end ]; do
		kill -0 $pid 2>/dev/null || break
		sleep 0.05
	done
	kill -0 $pid 2>/dev/null && pass "a SIGHUP during the start did not end run" ||
		fail "run ended on a SIGHUP during its start: $(cat "$T_TMP/start.log")"
	grep -q "SIGHUP: reloading" "$T_TMP/start.log" && pass "it reloaded once running" ||
		fail "no reload: $(cat "$T_TMP/start.log")"
	kill -TERM $pid
	wait $pid; check_rc $? 0 "and SIGTERM stops it cleanly"
fi

"$MEMCTL" run "$T_TMP/p.yaml" 2> "$T_TMP/run2.log" &
pid=$!
for i in $(seq 1 500); do grep -q "running" "$T_TMP/run2.log" 2>/dev/null && break; sleep 0.01; done
kill -INT $pid
wait $pid; check_rc $? 0 "SIGINT stops run cleanly"
[ -e "$T_STATE/journal" ] && fail "journal left behind" || pass "no journal left"
summary
