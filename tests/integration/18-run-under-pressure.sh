# memctl run keeps its period while the group it runs in is at its limit:
# run and a streaming reader share a group limited to 64M, so every page the
# reader touches must be reclaimed from that group, and run's own pages are
# what would go first if they were not locked. Prints intervals run against
# intervals expected, and the same ratio without the pressure.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
[ "$T_VERSION" = 1 ] || skip "uses memory.limit_in_bytes of the group run sits in"

T_TMP=$(mktemp -d /var/tmp/memctl-t18.XXXXXX)   # page cache needs a real disk
R=$T_PREFIX-r                    # where memctl run and the pressure live
W=$T_PREFIX-w                    # the profile's parent, elsewhere
mkdir "$T_DIR/$R" "$T_DIR/$W"
echo $((64 << 20)) > "$T_DIR/$R/memory.limit_in_bytes"
cat > "$T_TMP/p.yaml" <<YAML
version: 1
parent: ${T_SELF%/}/$W
interval: 100ms
groups:
  a: {max: 32M, soft_limit: 16M}
  b: {max: 16M}
YAML
head -c 512M /dev/zero | tr '\0' x | dd of="$T_TMP/big" conv=fsync status=none
# Our own file only: evict it, so that its pages are charged to the reader's group.
dd if="$T_TMP/big" iflag=nocache count=0 status=none

# Runs memctl run in group $1 for $2 seconds; prints "intervals expected".
measure() {
	sh -c "echo \$\$ > '$T_DIR/$1/cgroup.procs'; exec '$MEMCTL' run '$T_TMP/p.yaml'" 2> "$T_TMP/log" &
	local pid=$! t0 t1 n
	for i in $(seq 1 500); do grep -q running "$T_TMP/log" 2>/dev/null && break; sleep 0.01; done
	t0=$(date +%s%N)
	sleep "$2"
	kill -TERM $pid; wait $pid
	t1=$(date +%s%N)
	n=$(sed -n 's/.*stopping after \([0-9]*\) intervals.*/\1/p' "$T_TMP/log")
	echo "${n:-0} $(((t1 - t0) / 100000000))"
}

read -r calm_n calm_e < <(measure "$R" 4)
# The pressure: a reader in the same group streaming 512M through 64M, forever.
sh -c "echo \$\$ > '$T_DIR/$R/cgroup.procs'; while :; do cat '$T_TMP/big' > /dev/null; done" &
hog=$!
for i in $(seq 1 500); do
	[ "$(cat "$T_DIR/$R/memory.failcnt")" -gt 100 ] && break; sleep 0.01
done
read -r hot_n hot_e < <(measure "$R" 4)
fails=$(cat "$T_DIR/$R/memory.failcnt")
kill -STOP $hog                 # no new cat after this one
pkill -P $hog                   # the cat it is running: our own grandchild
kill $hog; kill -CONT $hog; wait $hog 2>/dev/null
# the grandchild is not ours to wait for: wait until the group is empty
for i in $(seq 1 500); do [ -z "$(cat "$T_DIR/$R/cgroup.procs")" ] && break; sleep 0.01; done
echo "# calm: $calm_n of ~$calm_e intervals; under pressure: $hot_n of ~$hot_e (group hit its limit $fails times)"
[ "$fails" -gt 100 ] && pass "the group was at its limit ($fails failed charges)" ||
	fail "the pressure did not reach the limit ($fails failed charges)"
[ "$hot_n" -ge $((hot_e * 8 / 10)) ] && pass "under pressure run kept its period ($hot_n of ~$hot_e)" ||
	fail "under pressure run fell behind ($hot_n of ~$hot_e)"
summary
