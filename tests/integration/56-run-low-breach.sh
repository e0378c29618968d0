# memctl run acts when memory.low fails, not an interval later (cgroup v2).
# A job in P/web (protect: active) re-reads a file; once memctl run has set
# its memory.low, a hog in P/hog grows anonymous memory without swap past
# P's limit. The kernel has nothing to reclaim but web's cache, so it goes
# below web's memory.low and memory.events "low" rises. memctl watches that
# file and plans at once: its log says memory.low did not hold web and that
# it plans now, before the interval (3 s here) was due, and the hog's cap
# follows in that plan. Prints how many of its pages web read again.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
[ "$T_VERSION" = 2 ] || skip "cgroup v1 has no memory.low to fail (the guest's cgroup v2 runs this test)"

abort() { fail "$*"; summary; exit 1; }
BUILD=${MEMCTL_BUILD_DIR:-$(dirname "$MEMCTL")}
WL=${MEMCTL_WORKLOADS:-$BUILD/tests/workloads}
for w in ws-reader hog mkfile; do
	[ -x "$WL/$w" ] || abort "workload '$WL/$w' not built"
done
T_TMP=$(disk_tmpdir) || skip "no disk-backed temporary directory: tmpfs page cache cannot be reclaimed"
"$WL/mkfile" "$T_TMP/ws.dat" 24M > /dev/null || abort "cannot write the job's file"

P=$T_PREFIX-p
mkparent "$P" || abort "cannot create $P"
cat > "$T_TMP/p.yaml" <<YAML
version: 1
parent: ${T_SELF%/}/$P
interval: 3s
groups:
  P:
    max: 96M
    groups:
      web: { protect: active }
      hog: {}
YAML
G=$T_DIR/$P/P
pids=
stop_all() { for p in $pids; do kill -TERM $p 2>/dev/null; done; for p in $pids; do wait $p 2>/dev/null; done; pids=; }
trap 'stop_all; cleanup' EXIT

mc run "$T_TMP/p.yaml" 2> "$T_TMP/log" &
run=$!
pids="$run"
for i in $(seq 1 100); do [ -d "$G/web" ] && [ -d "$G/hog" ] && break; sleep 0.1; done
[ -d "$G/web" ] || abort "memctl run did not create the groups: $(cat "$T_TMP/log")"
sh -c "echo \$\$ > '$G/web/cgroup.procs'; exec '$WL/ws-reader' '$T_TMP/ws.dat' 0" > /dev/null &
pids="$pids $!"
for i in $(seq 1 300); do [ "$(cat "$G/web/memory.low")" -gt 0 ] && break; sleep 0.1; done
low=$(cat "$G/web/memory.low")
[ "$low" -gt 0 ] || abort "memctl did not protect web within 30 s: $(cat "$T_TMP/log")"
echo 0 > "$G/hog/memory.swap.max" || abort "cannot turn swap off for the hog"
rf0=$(awk '$1 == "workingset_refault_file" { print $2 }' "$G/web/memory.stat")
sh -c "echo \$\$ > '$G/hog/cgroup.procs'; exec '$WL/hog' 160M 20" > /dev/null 2>&1 &
hog=$!
pids="$pids $hog"
for i in $(seq 1 300); do kill -0 $hog 2>/dev/null || break; sleep 0.1; done
sleep 1
rf1=$(awk '$1 == "workingset_refault_file" { print $2 }' "$G/web/memory.stat")
lowev=$(awk '$1 == "low" { print $2 }' "$G/web/memory.events")
stop_all

early=$(grep -n "memory.low did not hold '[^']*/web' (memory.events low rose): planning now, -*[0-9]* ms before the interval" "$T_TMP/log" | head -n1)
echo "# web's memory.low $((low >> 20))M; memory.events low $lowev; web read $((rf1 - rf0)) pages again; $(echo "${early#*:}" | sed 's/.*planning now, //')"
[ "${lowev:-0}" -gt 0 ] && pass "the hog drove reclaim below web's memory.low (memory.events low $lowev)" ||
	fail "memory.low never failed web: the test provoked nothing (low '$lowev')"
[ -n "$early" ] && pass "memctl planned when memory.low failed web, not at the interval" ||
	fail "no early plan in the log: $(cat "$T_TMP/log")"
cap=$(grep -n "P/hog: memory.max " "$T_TMP/log" | head -n1)
[ -n "$cap" ] && [ -n "$early" ] && [ "${cap%%:*}" -gt "${early%%:*}" ] &&
	pass "the hog's cap was written in the plan that followed: ${cap#*:}" ||
	fail "no cap of the hog after the early plan: $(cat "$T_TMP/log")"
summary
