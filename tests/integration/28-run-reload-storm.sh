# memctl run under a SIGHUP storm (100 a second) while the profile is being
# rewritten in place: reloads are merged (at most one a second), the storm
# does not slow the loop (its interval rate stays within 10% of a calm run
# of the same profile just before, so that a loaded or emulated host, which
# cannot keep 100 ms at all, compares like with like), and a profile read half-written
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

# intervals a run logged when it stopped
intervals() { sed -n 's/.*stopping after \([0-9]*\) intervals.*/\1/p' "$1"; }

# the calm run: the same profile, no signals, about as long as the storm
"$MEMCTL" --no-mlock run "$T_TMP/p.yaml" 2> "$T_TMP/calm.log" &
pid=$!
# both runs are timed from the line a run logs before its first interval
ready() { for i in $(seq 1 200); do grep -q "running '" "$1" && break; sleep 0.05; done; }
ready "$T_TMP/calm.log"
calm_start=$(date +%s%N)
for i in $(seq 1 200); do [ -f "$T_DIR/$G/$MAXF" ] && break; sleep 0.05; done
check_eq "$(kval "$G" $MAXF)" $((512 << 20)) "run applied max 512M"
sleep 3.5
kill -TERM $pid; wait $pid
check_rc $? 0 "the calm run stops on SIGTERM"
calm_end=$(date +%s%N)
n0=$(intervals "$T_TMP/calm.log")

"$MEMCTL" --no-mlock run "$T_TMP/p.yaml" 2> "$T_TMP/log" &
pid=$!
# its signals are blocked once it says so, or a SIGHUP would end it
ready "$T_TMP/log"
run_start=$(date +%s%N)

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

# intervals per second in the storm run against the calm run (and against
# the 10 a second the profile asks for, reported)
n=$(intervals "$T_TMP/log")
ms=$(( (run_end - run_start) / 1000000 )); ms0=$(( (calm_end - calm_start) / 1000000 ))
storm=$(( (end - start) / 1000000 ))
reloads=$(grep -c "reloading" "$T_TMP/log")
echo "# storm: $n intervals in $ms ms; calm: $n0 in $ms0 ms; at 100 ms $((ms / 100)) were due after the first; 300 SIGHUPs over $storm ms; $reloads reloads"
[ -n "$n" ] && [ -n "$n0" ] && [ "$n0" -gt 0 ] && [ $((n * ms0 * 10)) -ge $((n0 * ms * 9)) ] &&
	pass "the storm kept the calm run's interval rate within 10% ($n in $ms ms; $n0 in $ms0 ms)" ||
	fail "interval rate: ${n:-no} in $ms ms under the storm, ${n0:-no} in $ms0 ms calm"
[ "$reloads" -le $(( storm / 1000 + 3 )) ] && pass "reloads merged: $reloads for 300 SIGHUPs in $storm ms" ||
	fail "reloads not merged: $reloads for 300 SIGHUPs in $storm ms"
refused=$(grep -c "keeping the profile that is running" "$T_TMP/log")
echo "# $refused reloads refused (read half-written), the old profile kept"
summary
