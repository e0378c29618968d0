# Group names are chosen by whoever may mkdir below a parent, and memctl
# shows them to root: real groups below our own cgroup named with a
# terminal escape (CSI), an OSC title sequence ending in BEL, a tab, a
# double quote and a backslash, a C1 control (U+009B, taken for ESC [ by
# some terminals), a right-to-left override and bytes that are not UTF-8.
# The kernel refuses a newline in a name, so that one is a group of a fake
# v2 tree (MEMCTL_CGROUP_ROOT) at the end.
# Text output (top -b, plan, messages) must carry none of those bytes raw,
# only their escaped forms, one line per group; JSON must parse with every
# valid name intact; the Prometheus text must pass promtool and its labels
# must unescape to the real names.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
PY=/usr/bin/python3
[ -x "$PY" ] || skip "no python3 on this host: the JSON and Prometheus parsers cannot run"
PROMTOOL=$(command -v promtool || echo /var/cache/memctl-tools/promtool)

T_TMP=$(mktemp -d)
P=$T_PREFIX
ESC=$(printf 'csi\033[31mred')
OSC=$(printf 'osc\033]0;owned\007')
TAB=$(printf 'tab\tx')
QB='q"b\c'
C1=$(printf 'c1\302\23331m')
RLO=$(printf 'rlo\342\200\256txt')
BAD=$(printf 'bad\377\376')
mkparent "$P" || { fail "cannot make $P"; summary; exit 1; }
for n in "$ESC" "$OSC" "$TAB" "$QB" "$C1" "$RLO" "$BAD"; do
	mkdir "$T_DIR/$P/$n" || fail "mkdir of a hostile name"
done

# raw bytes a terminal would act on, or that are not UTF-8: ESC, BEL, TAB,
# C1 CSI, U+202E, 0xff
raw_count() { LC_ALL=C grep -c -e $'\033' -e $'\007' -e $'\t' -e $'\302\233' -e $'\342\200\256' -e $'\377' "$1"; }

# --- top -b, text ---
mc top -b -n 1 -p "self/$P" --sort group > "$T_TMP/top.txt" 2> "$T_TMP/top.err"
check_rc $? 0 "top -b on hostile names"
check_eq "$(raw_count "$T_TMP/top.txt")" 0 "top -b: no raw control or invalid byte"
# header, column titles, the parent and 7 groups, the empty line after the table
check_eq "$(wc -l < "$T_TMP/top.txt")" 11 "top -b: one line per group"
for want in 'csi\x1b[31mred' 'osc\x1b]0;owned\x07' 'tab\x09x' 'q"b\\c' 'c1\u{009b}31m' \
	    'rlo\u{202e}txt' 'bad\xff\xfe'; do
	grep -qF -- "$want" "$T_TMP/top.txt" && pass "top -b shows $want" ||
		fail "top -b lacks $want: $(cat -v "$T_TMP/top.txt")"
done

# --- top -b, JSON ---
mc -o json top -b -n 1 -p "self/$P" > "$T_TMP/top.json"
check_rc $? 0 "top -b -o json on hostile names"
"$PY" - "$T_TMP/top.json" "$ESC" "$OSC" "$TAB" "$QB" "$C1" "$RLO" <<'PY' > "$T_TMP/check" 2>&1 &&
import json, sys
doc = json.loads(open(sys.argv[1], encoding="utf-8").read())
got = sorted(g["group"] for g in doc["groups"][1:])
want = sorted(sys.argv[2:] + ["bad\ufffd\ufffd"])
assert got == want, (got, want)
paths = [g["path"] for g in doc["groups"]]
assert all(p.startswith(doc["parent"]) for p in paths), paths
print(len(got), "names")
PY
	pass "top JSON parses as UTF-8; valid names intact, bytes that are not UTF-8 as U+FFFD ($(cat "$T_TMP/check"))" ||
	fail "top JSON: $(cat "$T_TMP/check")"

# --- export: Prometheus and JSON ---
mc export -p "self/$P" > "$T_TMP/m.prom" 2> "$T_TMP/export.err"
check_rc $? 0 "export on hostile names"
if [ -x "$PROMTOOL" ]; then
	"$PROMTOOL" check metrics < "$T_TMP/m.prom" > "$T_TMP/lint" 2>&1 &&
		pass "promtool takes the labels" || fail "promtool: $(cat "$T_TMP/lint")"
else
	fail "promtool is missing (scripts/setup.sh installs it)"
fi
"$PY" - "$T_TMP/m.prom" "$T_SELF/$P" "$ESC" "$OSC" "$TAB" "$QB" "$C1" "$RLO" <<'PY' > "$T_TMP/check" 2>&1 &&
import sys
from prometheus_client.parser import text_string_to_metric_families
text = open(sys.argv[1], encoding="utf-8").read()
parent = sys.argv[2].rstrip("/")
groups = set()
for fam in text_string_to_metric_families(text):
    for s in fam.samples:
        if "group" in s.labels:
            groups.add(s.labels["group"])
want = {parent} | {parent + "/" + n for n in sys.argv[3:]}
assert groups == want, (sorted(groups), sorted(want))
print(len(groups), "groups")
PY
	pass "Prometheus labels unescape to the real names; the name that is not UTF-8 is left out ($(cat "$T_TMP/check"))" ||
	fail "Prometheus labels: $(cat "$T_TMP/check")"
check_eq "$(raw_count "$T_TMP/export.err")" 0 "export's warning carries no raw byte"
grep -qF 'bad\xff\xfe' "$T_TMP/export.err" && pass "export warns about the name, escaped" ||
	fail "export warning: $(cat -v "$T_TMP/export.err")"
mc -o json export -p "self/$P" 2>/dev/null > "$T_TMP/m.json"
"$PY" -c 'import json, sys; d = json.load(open(sys.argv[1], encoding="utf-8")); print(len(d["groups"]))' \
	"$T_TMP/m.json" > "$T_TMP/check" 2>&1 && check_eq "$(cat "$T_TMP/check")" 7 "export JSON parses: the parent and 6 groups" ||
	fail "export JSON: $(cat "$T_TMP/check")"

# --- plan: a profile may name a group with a quote and a backslash ---
cat > "$T_TMP/p.yaml" <<YAML
version: 1
parent: self/$P
groups:
  'q"b\c':
    max: 64M
YAML
mc plan "$T_TMP/p.yaml" > "$T_TMP/plan.txt" 2>&1
check_rc $? 0 "plan for a group with a quote and a backslash"
grep -qF 'q"b\\c  memory.' "$T_TMP/plan.txt" && pass "plan text escapes the backslash" ||
	fail "plan text: $(cat "$T_TMP/plan.txt")"
mc -o json plan "$T_TMP/p.yaml" > "$T_TMP/plan.json"
"$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["steps"][0]["group"])' "$T_TMP/plan.json" \
	> "$T_TMP/check" 2>&1
check_eq "$(cat "$T_TMP/check")" "$QB" "plan JSON carries the name intact"

# --- messages: a name given on the command line is quoted escaped ---
mc get "$P/$(printf 'x\033]0;pwn\007')" > /dev/null 2> "$T_TMP/get.err"
check_rc $? 2 "get of a missing group with an OSC sequence in its name"
check_eq "$(raw_count "$T_TMP/get.err")" 0 "the message carries no raw byte"
grep -qF 'x\x1b]0;pwn\x07' "$T_TMP/get.err" && pass "the message quotes the name escaped" ||
	fail "message: $(cat -v "$T_TMP/get.err")"
# --- the top screen (ncurses, in tmux) shows the escaped names too ---
if command -v tmux > /dev/null; then
	. "$(dirname "$0")/lib-tmux.sh"
	tmux_start top 120 20 "env MEMCTL_STATE_DIR=$T_STATE TERM=xterm-256color $MEMCTL top -d 0.3 \
--sort group --columns usage -p self/$P; sleep 600"
	expect 'csi\\x1b\[31mred' "the screen shows the CSI name escaped"
	expect 'osc\\x1b]0;owned\\x07' "the screen shows the OSC name escaped"
	expect 'c1\\u\{009b\}31m' "the screen shows the C1 name escaped"
	keys q
else
	fail "tmux is missing (scripts/setup.sh installs it)"
fi

# --- status names a hostile parent escaped ---
mc status -p "self/$P/$OSC" > "$T_TMP/status.txt" 2>&1
check_eq "$(raw_count "$T_TMP/status.txt")" 0 "status: no raw control byte"
grep -qF 'osc\x1b]0;owned\x07' "$T_TMP/status.txt" && pass "status shows the parent escaped" ||
	fail "status: $(cat -v "$T_TMP/status.txt")"

# --- a newline in a name (a fake v2 tree: the kernel refuses one) ---
ROOT=$T_TMP/cg
NL=$(printf 'new\nline')
for d in "" /svc "/svc/$NL" "/svc/$ESC"; do
	mkdir -p "$ROOT$d"
	echo "cpu memory" > "$ROOT$d/cgroup.controllers"
	[ -z "$d" ] && continue
	for f in memory.max memory.high memory.swap.max; do echo max > "$ROOT$d/$f"; done
	for f in memory.low memory.min; do echo 0 > "$ROOT$d/$f"; done
	echo 4096 > "$ROOT$d/memory.current"
	printf 'anon 4096\nfile 0\n' > "$ROOT$d/memory.stat"
done
fake() { MEMCTL_CGROUP_ROOT=$ROOT MEMCTL_CGROUP_VERSION=2 MEMCTL_FAKE_SELF=/svc mc "$@"; }
fake top -b -n 1 --sort group --columns usage > "$T_TMP/fake.txt"
check_rc $? 0 "top -b on a fake tree with a newline in a name"
check_eq "$(raw_count "$T_TMP/fake.txt")" 0 "fake tree: no raw control byte"
check_eq "$(wc -l < "$T_TMP/fake.txt")" 6 "fake tree: header, titles, 3 rows, empty line"
grep -qF 'new\x0aline' "$T_TMP/fake.txt" && pass "the newline is shown as \\x0a" ||
	fail "newline: $(cat -v "$T_TMP/fake.txt")"
fake -o json top -b -n 1 > "$T_TMP/fake.json"
"$PY" -c 'import json, sys; print(sorted(g["group"] for g in json.load(open(sys.argv[1]))["groups"])[2])' \
	"$T_TMP/fake.json" > "$T_TMP/check" 2>&1
check_eq "$(cat "$T_TMP/check")" "$NL" "fake tree: JSON carries the newline intact"
fake export > "$T_TMP/fake.prom"
grep -qF 'memctl_usage_bytes{group="/svc/new\nline"} 4096' "$T_TMP/fake.prom" &&
	pass "Prometheus label escapes the newline" || fail "label: $(grep -F new "$T_TMP/fake.prom")"
summary
