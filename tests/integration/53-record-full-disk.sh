# A full disk pauses recording and nothing else: memctl record on a full
# file system (a 1 MiB tmpfs of the test's own) says so once, keeps trying,
# and says when it resumed and how many samples were lost; no part of a
# sample that did not fit stays in the store. memctl run --record on the
# full file system goes on controlling: it applies its profile.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
T_TMP=$(mktemp -d)
M=$T_TMP/fs
mkdir "$M"
mount -t tmpfs -o size=1m,mode=0700 memctl-test "$M" || skip "cannot mount a tmpfs of our own"
rec_pid=
stop_all() {
	[ -n "$rec_pid" ] && { kill "$rec_pid"; wait "$rec_pid"; } 2>/dev/null
	umount "$M" 2>/dev/null
	cleanup
}
trap stop_all EXIT
P=$T_PREFIX
mkparent "$P" || { fail "cannot make $P"; summary; exit 1; }
for i in $(seq 1 20); do mkdir "$T_DIR/$P/g$i"; done
limit_file=memory.limit_in_bytes
[ "$T_VERSION" = 2 ] && limit_file=memory.max

S=$M/store
dd if=/dev/zero of="$M/fill" bs=4k status=none 2>/dev/null
check_eq "$(df --output=avail "$M" | tail -n1 | tr -d ' ')" 0 "the file system is full"
"$MEMCTL" record -p "self/$P" --dir "$S" --interval 20ms 2> "$T_TMP/rec.log" &
rec_pid=$!
wait_log() { # PATTERN: waits (bounded) for a line in the log
	local i
	for i in $(seq 1 300); do grep -q "$1" "$T_TMP/rec.log" && return 0; sleep 0.02; done
	return 1
}
wait_log "recording paused" || fail "no pause: $(cat "$T_TMP/rec.log")"
sleep 0.3   # more intervals on the full disk
rm "$M/fill"
wait_log "resumed" || fail "no resume: $(cat "$T_TMP/rec.log")"
kill "$rec_pid"; wait "$rec_pid"; rc=$?
rec_pid=
check_rc $rc 0 "record stops normally"
check_eq "$(grep -c 'recording paused' "$T_TMP/rec.log")" 1 "the full disk is logged once"
grep -q "No space left on device" "$T_TMP/rec.log" && pass "with its cause" || fail "cause: $(cat "$T_TMP/rec.log")"
lost=$(sed -n 's/.*resumed; \([0-9]*\) samples* lost.*/\1/p' "$T_TMP/rec.log")
[ -n "$lost" ] && [ "$lost" -ge 2 ] && pass "the resume says $lost samples were lost" ||
	fail "resume line: $(grep resumed "$T_TMP/rec.log")"
mc dump --dir "$S" > "$T_TMP/dump.csv" 2> "$T_TMP/dump.err"; check_rc $? 0 "the store reads"
check_eq "$(cat "$T_TMP/dump.err")" "" "with no torn or corrupt record"
n=$(awk -F, '$3 == "usage" && $2 ~ /\/g1$/' "$T_TMP/dump.csv" | wc -l)
[ "$n" -ge 1 ] && pass "$n samples written after the resume" || fail "no sample in the store"

# memctl run --record on a full disk keeps controlling
# an absolute parent: on v2 run moves itself into a group of its own, and
# "self" would then be that group
cat > "$T_TMP/p.yaml" <<YAML
version: 1
parent: ${T_SELF%/}/$P
interval: 50ms
groups:
  g1:
    max: 96M
YAML
dd if=/dev/zero of="$M/fill" bs=4k status=none 2>/dev/null
"$MEMCTL" run --no-mlock --record "$M/run-store" "$T_TMP/p.yaml" 2> "$T_TMP/rec.log" &
rec_pid=$!
wait_log "recording paused" || fail "run: no pause: $(cat "$T_TMP/rec.log")"
for _ in $(seq 1 300); do [ "$(kval "$P/g1" $limit_file)" = $((96 << 20)) ] && break; sleep 0.1; done
check_eq "$(kval "$P/g1" $limit_file)" $((96 << 20)) "run applied its profile with the store's disk full"
[ "$(kval "$P/g1" $limit_file)" = $((96 << 20)) ] || cat "$T_TMP/rec.log"
grep -q "memctl run goes on controlling" "$T_TMP/rec.log" && pass "and says it goes on" ||
	fail "run's line: $(grep paused "$T_TMP/rec.log")"
kill "$rec_pid"; wait "$rec_pid"; rc=$?
rec_pid=
check_rc $rc 0 "run stops normally"
check_eq "$(grep -c 'recording paused' "$T_TMP/rec.log")" 1 "run logged the full disk once"
summary
