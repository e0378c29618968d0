# memctl record killed with SIGKILL again and again while it writes: after
# each kill the store reads without an error (a torn last record is left
# out with a note, never reported as corrupt), nothing recorded before the
# kill is lost, and the next recorder appends. A record cut short at the
# end (what a power cut leaves; SIGKILL does not stop a write half-way) is
# left out with a note, and the next recorder cuts it off and goes on.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
T_TMP=$(mktemp -d)
S=$T_TMP/store
P=$T_PREFIX
mkparent "$P" || { fail "cannot make $P"; summary; exit 1; }
for i in 1 2 3 4 5 6 7 8; do mkdir "$T_DIR/$P/g$i"; done
rec_pid=
stop_rec() { [ -n "$rec_pid" ] && { kill -9 "$rec_pid"; wait "$rec_pid"; } 2>/dev/null; rec_pid=; cleanup; }
trap stop_rec EXIT

data_bytes() { cat "$S"/*.mcd 2>/dev/null | wc -c; }
count() { awk -F, '$3 == "usage" && $2 ~ /\/g1$/ { n++ } END { print n + 0 }' "$1"; }
prev=0 bad=0 lost=0 grew=0 torn=0
# fewer on a slow test host (the QEMU guest sets MEMCTL_TEST_SCALE)
KILLS=${MEMCTL_T51_KILLS:-$([ -n "${MEMCTL_TEST_SCALE:-}" ] && echo 5 || echo 15)}
for k in $(seq 1 "$KILLS"); do
	b0=$(data_bytes)
	"$MEMCTL" record -p "self/$P" --dir "$S" --interval 10ms 2> "$T_TMP/rec.log" &
	rec_pid=$!
	# once it has written (a slow host may take a while to start it), at a
	# different moment each time: 0 to 290 ms later
	for _ in $(seq 1 400); do [ "$(data_bytes)" -gt "$b0" ] && break; sleep 0.05; done
	sleep "$(printf 0.%02d $(( (k * 7919) % 30 )))"
	kill -9 "$rec_pid"; wait "$rec_pid" 2>/dev/null
	rec_pid=
	mc dump --dir "$S" > "$T_TMP/dump.csv" 2> "$T_TMP/dump.err"; rc=$?
	if [ $rc != 0 ] || grep -v "torn record" "$T_TMP/dump.err" | grep -q .; then
		bad=$((bad + 1))
		echo "# kill $k: dump exit $rc: $(head -n3 "$T_TMP/dump.err")"
	fi
	grep -q "torn record" "$T_TMP/dump.err" && torn=$((torn + 1))
	n=$(count "$T_TMP/dump.csv")
	[ "$n" -lt "$prev" ] && { lost=$((lost + 1)); echo "# kill $k: $n samples, $prev before"; }
	[ "$n" -gt "$prev" ] && grew=$((grew + 1))
	prev=$n
done
check_eq "$bad" 0 "after each of $KILLS kills the store reads without an error"
check_eq "$lost" 0 "no kill loses a sample recorded before it"
[ "$grew" -ge $((KILLS - 2)) ] && pass "each new recorder appends ($grew of $KILLS)" ||
	fail "only $grew of $KILLS recorders added samples"
echo "# $torn of $KILLS kills left a torn record; $prev samples in all"
# SIGKILL does not stop a write half-way; a power cut does: the newest
# shard loses its last 10 bytes, the last record is torn
d=$(ls "$S"/*.mcd | tail -n1)
truncate -s $(( $(stat -c %s "$d") - 10 )) "$d"
mc dump --dir "$S" > "$T_TMP/dump.csv" 2> "$T_TMP/dump.err"; check_rc $? 0 "dump of a store whose last record is cut short"
grep -q "1 torn record at the end of a shard left out" "$T_TMP/dump.err" && pass "it says a torn record was left out" ||
	fail "no note: $(cat "$T_TMP/dump.err")"
check_eq "$(count "$T_TMP/dump.csv")" $((prev - 1)) "every sample before it reads"
prev=$((prev - 1))
# the next writer repairs: no torn record is left once it has opened the store
mc record -p "self/$P" --dir "$S" -n 1 2> "$T_TMP/rec.log"; check_rc $? 0 "a recorder after the last kill"
mc dump --dir "$S" > "$T_TMP/dump.csv" 2> "$T_TMP/dump.err"; check_rc $? 0 "dump after it"
check_eq "$(cat "$T_TMP/dump.err")" "" "no torn record is left"
check_eq "$(count "$T_TMP/dump.csv")" $((prev + 1)) "every sample is there, and the new one"
summary
