# memctl run keeps its period while the group it runs in is at its limit:
# run and a streaming reader share a group limited to 64M, so every page the
# reader touches must be reclaimed from that group, and run's own pages are
# what would go first if they were not locked. Prints intervals run against
# intervals expected, and the same ratio without the pressure.
# On v2 processes live only in leaves: run starts in a leaf of the limited
# group, moves into its own group below it (memory.min), and the reader
# runs in a sibling leaf.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg

T_TMP=$(disk_tmpdir) || skip "no disk-backed temporary directory (page cache needs a real disk)"
R=$T_PREFIX-r                    # where memctl run and the pressure live
W=$T_PREFIX-w                    # the profile's parent, elsewhere
if [ "$T_VERSION" = 1 ]; then
	mkdir "$T_DIR/$R"
	echo $((64 << 20)) > "$T_DIR/$R/memory.limit_in_bytes"
	RUN_CALM=$R RUN_HOT=$R HOG=$R
	failcnt() { cat "$T_DIR/$R/memory.failcnt"; }
else
	mkparent "$R"
	echo $((64 << 20)) > "$T_DIR/$R/memory.max"
	mkdir "$T_DIR/$R/run-calm" "$T_DIR/$R/run-hot" "$T_DIR/$R/hog"
	RUN_CALM=$R/run-calm RUN_HOT=$R/run-hot HOG=$R/hog
	failcnt() { awk '$1 == "max" {print $2}' "$T_DIR/$R/memory.events"; }
fi
mkparent "$W"
cat > "$T_TMP/p.yaml" <<YAML
version: 1
parent: ${T_SELF%/}/$W
interval: 100ms
groups:
  a: {max: 32M, soft_limit: 16M}
  b: {max: 16M}
YAML
BIG_M=$((512 / ${MEMCTL_TEST_SCALE:-1}))   # at least twice the 64M limit
head -c ${BIG_M}M /dev/zero | tr '\0' x | dd of="$T_TMP/big" conv=fsync status=none
# Our own file only: evict it, so that its pages are charged to the reader's group.
dd if="$T_TMP/big" iflag=nocache count=0 status=none

# Runs memctl run in group $1 for $2 seconds; prints "intervals expected".
measure() {
	sh -c "echo \$\$ > '$T_DIR/$1/cgroup.procs'; exec '$MEMCTL' run '$T_TMP/p.yaml'" 2> "$T_TMP/log" &
	local pid=$! t0 t1 n
	for i in $(seq 1 500); do grep -q "running '" "$T_TMP/log" 2>/dev/null && break; sleep 0.01; done
	t0=$(date +%s%N)
	sleep "$2"
	if [ "$T_VERSION" = 2 ]; then
		# it is in its own protected group by now
		grep -q "^$pid\$" "$T_DIR/$1/memctl-run/cgroup.procs" 2>/dev/null &&
			[ "$(cat "$T_DIR/$1/memctl-run/memory.min")" -gt 0 ] && echo own >> "$T_TMP/own"
	fi
	kill -TERM $pid; wait $pid
	t1=$(date +%s%N)
	n=$(sed -n 's/.*stopping after \([0-9]*\) intervals.*/\1/p' "$T_TMP/log")
	echo "${n:-0} $(((t1 - t0) / 100000000))"
}

read -r calm_n calm_e < <(measure "$RUN_CALM" 4)
# The pressure: a reader in the same group streaming the file through 64M, forever.
sh -c "echo \$\$ > '$T_DIR/$HOG/cgroup.procs'; while :; do cat '$T_TMP/big' > /dev/null; done" &
hog=$!
for i in $(seq 1 500); do
	[ "$(failcnt)" -gt 100 ] && break; sleep 0.01
done
read -r hot_n hot_e < <(measure "$RUN_HOT" 4)
fails=$(failcnt)
kill -STOP $hog                 # no new cat after this one
pkill -P $hog                   # the cat it is running: our own grandchild
kill $hog; kill -CONT $hog; wait $hog 2>/dev/null
# the grandchild is not ours to wait for: wait until the group is empty
for i in $(seq 1 500); do [ -z "$(cat "$T_DIR/$HOG/cgroup.procs")" ] && break; sleep 0.01; done
echo "# calm: $calm_n of ~$calm_e intervals; under pressure: $hot_n of ~$hot_e (group hit its limit $fails times)"
[ "$fails" -gt 100 ] && pass "the group was at its limit ($fails failed charges)" ||
	fail "the pressure did not reach the limit ($fails failed charges)"
[ "$hot_n" -ge $((hot_e * 8 / 10)) ] && pass "under pressure run kept its period ($hot_n of ~$hot_e)" ||
	fail "under pressure run fell behind ($hot_n of ~$hot_e)"
if [ "$T_VERSION" = 2 ]; then
	check_eq "$(wc -l < "$T_TMP/own" 2>/dev/null)" 2 "both times run moved into its own group with memory.min set"
	grep -q "running in its own group '.*/memctl-run' (memory.min and memory.low" "$T_TMP/log" &&
		pass "run says where it runs and how it is protected" || fail "log: $(cat "$T_TMP/log")"
fi
summary
