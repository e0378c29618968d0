# Shared helpers of the systemd guest's tests (bash), sourced by NN-*.sh.
# They run as root in memctl-guest.service (system.slice), with systemd as
# PID 1 on cgroup v2; the memctl package is installed (runner.sh).  Each
# test sets T before sourcing this file.
CG=/sys/fs/cgroup
failures=0

say() { echo "$T: $*"; }
ok() { echo "ok - $T: $*"; }
not_ok() { echo "not ok - $T: $*"; failures=$((failures + 1)); }
skip() { echo "SKIP $T: $*"; exit 77; }
# check DESCRIPTION COMMAND...: run a test command, report ok/not ok.
check() {
	local d=$1; shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}
finish() {
	[ "$failures" = 0 ] && { echo "$T: PASS"; exit 0; }
	echo "$T: FAIL ($failures failed)"; exit 1
}
# result KEY VALUE: a measured number, printed for the host side.
result() { echo "RESULT $T $1=$2"; }
patched() { grep -q 'memctl_kernel=patched' /proc/cmdline; }

# wait_until SECONDS COMMAND...: poll COMMAND every 0.1 s until it succeeds;
# fails once SECONDS have passed (by the clock: under TCG one try of a
# command can take longer than the poll interval).  For states systemd
# reaches asynchronously (a unit's main PID, a journal line), which have no
# event to wait on from a script.
wait_until() {
	local end=$((SECONDS + $1)); shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.1
	done
}
# is VALUE COMMAND...: COMMAND prints VALUE (for wait_until, which must run
# the command each time: "$(...)" in its arguments is expanded only once).
is() { local want=$1; shift; [ "$("$@" 2>/dev/null)" = "$want" ]; }
# prop UNIT PROPERTY: one property of a unit, as systemctl show prints it.
prop() { systemctl show -P "$2" "$1"; }
# cgroup_of UNIT: the unit's cgroup path below $CG.
cgroup_of() { prop "$1" ControlGroup; }
# journal_since CURSOR_FILE UNIT: the unit's journal lines after the cursor
# saved in CURSOR_FILE by journal_mark, with their priorities (-o verbose
# would be long; "PRIORITY MESSAGE" per line).
journal_mark() { journalctl -n 0 --show-cursor -q | sed -n 's/^-- cursor: //p' > "$1"; }
journal_since() {
	journalctl --after-cursor="$(cat "$1")" -u "$2" -o json --no-pager |
		jq -r 'select(.MESSAGE != null) | "\(.PRIORITY) \(.MESSAGE)"'
}
