# memctl run under a SIGHUP storm (100 a second) while the profile is being
# rewritten in place: reloads are merged (at most one a second), the loop
# keeps its 100 ms period within 10%, and a profile read half-written
# ("max: 5" out of "max: 512M", or empty) is refused with the old one kept:
# the limit on the host never drops below 512M.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
T_TMP=$(mktemp -d)
G=$T_PREFIX-g
MAXF=memory.limit_in_bytes
[ "$T_VERSION" = 2 ] && MAXF=memory.max
head() { printf 'version: 1\nparent: self\ninterval: 100ms\ngroups:\n  %s:\n    max: ' "$G"; }
{ head; printf '512M\n'; } > "$T_TMP/p.yaml"
chmod 0644 "$T_TMP/p.yaml"

run_start=$(date +%s%N)
"$MEMCTL" --no-mlock run "$T_TMP/p.yaml" 2> "$T_TMP/log" &
pid=$!
for i in $(seq 1 100); do [ -f "$T_DIR/$G/$MAXF" ] && break; sleep 0.05; done
check_eq "$(kval "$G" $MAXF)" $((512 << 20)) "run applied max 512M"

# in-place rewrites: truncate, write half, pause, write the rest
( while :; do
	{ head; printf '5'; } > "$T_TMP/p.yaml"; sleep 0.003; printf '12M\n' >> "$T_TMP/p.yaml"; sleep 0.002
done ) &
writer=$!
# 100 SIGHUPs a second for 3 s, and watch the limit meanwhile
start=$(date +%s%N)
low=0
for i in $(seq 1 300); do
	kill -HUP $pid 2>/dev/null
	[ $((i % 10)) -eq 0 ] && [ "$(kval "$G" $MAXF)" -lt $((512 << 20)) ] && low=$((low + 1))
	sleep 0.01
done
kill $writer; wait $writer 2>/dev/null
{ head; printf '512M\n'; } > "$T_TMP/p.yaml"
end=$(date +%s%N)
kill -0 $pid 2>/dev/null && pass "survives the storm" || fail "died in the storm"
check_eq "$low" 0 "the limit never dropped below 512M"
run_end=$(date +%s%N)
kill -TERM $pid; wait $pid
check_rc $? 0 "stops on SIGTERM"
check_eq "$(kval "$G" $MAXF)" $((512 << 20)) "max 512M at the end"

# intervals over the whole run (the storm is most of it) against 10 a second
n=$(sed -n 's/.*stopping after \([0-9]*\) intervals.*/\1/p' "$T_TMP/log")
expect=$(( (run_end - run_start) / 100000000 ))
storm=$(( (end - start) / 1000000 ))
reloads=$(grep -c "reloading" "$T_TMP/log")
echo "# $n intervals in $(( (run_end - run_start) / 1000000 )) ms at 100 ms; 300 SIGHUPs over $storm ms; $reloads reloads"
[ -n "$n" ] && [ $((n * 10)) -ge $((expect * 9)) ] && [ $((n * 10)) -le $((expect * 11 + 10)) ] &&
	pass "kept its period within 10% ($n intervals, $expect expected)" ||
	fail "period: ${n:-no} intervals, $expect expected"
[ "$reloads" -le $(( storm / 1000 + 3 )) ] && pass "reloads merged: $reloads for 300 SIGHUPs in $storm ms" ||
	fail "reloads not merged: $reloads for 300 SIGHUPs in $storm ms"
refused=$(grep -c "keeping the profile that is running" "$T_TMP/log")
echo "# $refused reloads refused (read half-written), the old profile kept"
summary
