# One reader over a churning real tree: memctl top -b keeps its subtree
# reader (and its directory listings) from refresh to refresh, and lists a
# directory again only when inotify says it changed. After each change below
# (mkdir, rmdir, an rmdir and a mkdir that keep the link count, a rename, a
# group removed and made again under its name, a change two levels down),
# a refresh that starts after it must list exactly the groups there are.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg

T_TMP=$(mktemp -d)
P=$T_PREFIX-tree
D=$T_DIR/$P
mkdir -p "$D/a/x" "$D/b" "$D/c" || fail "cannot create the test groups"
stop_top() { [ -n "${TOP:-}" ] && kill "$TOP" 2> /dev/null && wait "$TOP" 2> /dev/null; }
trap 'stop_top; cleanup' EXIT

mc -o json top -b -n 100000 -d 0.05 -p "self/$P" > "$T_TMP/top.json" 2> "$T_TMP/top.err" &
TOP=$!
frames() { wc -l < "$T_TMP/top.json"; }
# waits until refresh $1 is complete (a line per refresh); false after 60 s
wait_frame() {
	local i
	for i in $(seq 1 6000); do
		[ "$(frames)" -ge "$1" ] && return 0
		kill -0 "$TOP" 2> /dev/null || return 1
		sleep 0.01
	done
	return 1
}
# the groups below $P as listed afresh, and as the first refresh started after now lists them
listed() { (cd "$D" && find . -mindepth 1 -type d | sed 's|^\./||' | LC_ALL=C sort | tr '\n' ' '); }
shown() {
	local f
	f=$(($(frames) + 2))   # the next refresh may have started before the change
	wait_frame "$f" || { echo "top stopped: $(cat "$T_TMP/top.err")"; return; }
	sed -n "${f}p" "$T_TMP/top.json" | jq -r '.groups[] | .group | select(. != "")' |
		LC_ALL=C sort | tr '\n' ' '
}
step() { # what happened
	local want got
	want=$(listed) got=$(shown)
	[ "$got" = "$want" ] && pass "$1: top lists $want" || fail "$1: top lists '$got', want '$want'"
}

wait_frame 1 || fail "top -b did not start: $(cat "$T_TMP/top.err")"
step "start"
mkdir "$D/d"
step "mkdir"
rmdir "$D/c"
step "rmdir"
rmdir "$D/b" && mkdir "$D/e"
step "rmdir + mkdir, same link count"
if mv "$D/e" "$D/f" 2> /dev/null; then
	step "rename"
else
	pass "rename: not allowed on this hierarchy (cgroup v2)"
fi
rmdir "$D/d" && mkdir "$D/d"
step "removed and made again under its name"
mkdir "$D/a/x/deep" && rmdir "$D/a/x/deep" && mkdir "$D/a/x/deeper"
step "two levels down"
for i in 1 2 3 4 5; do mkdir "$D/n$i"; done
rmdir "$D/n2" "$D/n4"
step "several at once"
kill -0 "$TOP" 2> /dev/null && pass "top still running" || fail "top stopped: $(cat "$T_TMP/top.err")"
summary
