# Shared setup for integration tests (sourced). Every test works only below
# its own memory cgroup (from /proc/self/cgroup), under group names that
# carry the test's name and PID, and removes them in its EXIT trap.
#
#   prereq_root / prereq_memcg        skip (exit 77) with a reason
#   T_SELF      our memory cgroup path ("/process_api/abc")
#   T_DIR       its directory in the memory hierarchy
#   T_PREFIX    unique group name prefix for this test
#   T_STATE     a private state dir (lock + journal)
#   mc ARGS     runs memctl with the private state dir
#   one_group_profile FILE [KEY=VALUE...]   a profile of the group $T_PREFIX-g
#   tree_profile FILE GROUP [PATH=VALUE...] [-- GROUP ...]
#                                           a profile of GROUPs and groups below them
#   apply_tree MSG [PATH=VALUE...]          T_TMP, P; $T_TMP/p.yaml of $P, applied
#   created_setup                           REC, ABS and two profiles of the tests
#                                           of the record of created groups
#   apply_old                               old.yaml applied; before, writes of new.yaml
#   fake_v2_group DIR [FILE=TEXT...]        a group of a fake cgroup v2 tree
#   golden NAME < OUTPUT                    OUTPUT byte for byte against tests/golden/NAME
#   fail MSG / pass MSG / check_eq GOT WANT MSG / summary

set -u
MEMCTL=${MEMCTL:?MEMCTL must point at the memctl binary}
SRC=${MEMCTL_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
T_NAME=$(basename "$0" .sh)
T_FAILS=0
T_CHECKS=0

skip() { echo "SKIP: $*"; exit 77; }
fail() { T_FAILS=$((T_FAILS + 1)); T_CHECKS=$((T_CHECKS + 1)); echo "not ok - $*"; }
pass() { T_CHECKS=$((T_CHECKS + 1)); echo "ok - $*"; }
check_eq() {
	if [ "$1" = "$2" ]; then pass "$3"; else fail "$3 (got '$1', want '$2')"; fi
}
check_rc() {
	if [ "$1" -eq "$2" ]; then pass "$3 (exit $1)"; else fail "$3 (exit $1, want $2)"; fi
}
summary() {
	echo "# $T_NAME: $((T_CHECKS - T_FAILS))/$T_CHECKS checks passed"
	[ "$T_CHECKS" -gt 0 ] || { echo "no checks ran"; exit 1; }
	[ "$T_FAILS" -eq 0 ]
}

# One check: stdin byte for byte against the golden file tests/golden/NAME,
# the difference shown when it fails; MEMCTL_REGEN_GOLDEN=1 rewrites the
# file instead. (Feed it from a file: in a pipeline it would run in a
# subshell, and its check would not count.)
golden() {
	local d
	if [ "${MEMCTL_REGEN_GOLDEN:-}" = 1 ]; then
		cat > "$SRC/tests/golden/$1"
		pass "regenerated $1"
	elif d=$(diff -u "$SRC/tests/golden/$1" -); then
		pass "$1 matches"
	else
		fail "$1 differs:"
		echo "$d"
	fi
}

prereq_root() { [ "$(id -u)" -eq 0 ] || skip "needs root to create cgroups"; }

# Finds our memory cgroup and its directory (v1 memory line, else v2 "0::").
prereq_memcg() {
	local line
	line=$(grep -E '^[0-9]+:([^:]*,)?memory(,[^:]*)?:' /proc/self/cgroup | head -n1)
	if [ -n "$line" ]; then
		T_SELF=${line#*:*:}
		T_MOUNT=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ {print $2; exit}' /proc/mounts)
		T_VERSION=1
	else
		T_SELF=$(sed -n 's/^0:://p' /proc/self/cgroup)
		T_MOUNT=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
		T_VERSION=2
		[ -n "$T_MOUNT" ] && grep -qw memory "$T_MOUNT/cgroup.controllers" 2>/dev/null ||
			skip "no memory controller on this host"
	fi
	[ -n "$T_MOUNT" ] || skip "no memory controller mounted"
	T_DIR=$T_MOUNT${T_SELF%/}
	[ "$T_SELF" = / ] && T_DIR=$T_MOUNT
	[ -w "$T_DIR" ] || skip "cannot create groups in own cgroup $T_DIR"
	# fixed width, so aligned output does not depend on the PID's digits
	T_PREFIX="t-$T_NAME-$(printf %07d $$)"
	T_STATE=$(mktemp -d /tmp/memctl-state.XXXXXX)
	export MEMCTL_STATE_DIR=$T_STATE
	trap cleanup EXIT
}

# Removes every group below our cgroup whose name starts with our prefix,
# deepest first. Only directories we created carry the prefix.
cleanup() {
	local d
	if [ -n "${T_DIR:-}" ]; then
		for d in "$T_DIR/$T_PREFIX"*; do
			[ -d "$d" ] || continue
			find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null
		done
	fi
	[ -n "${T_STATE:-}" ] && rm -rf "$T_STATE"
	[ -n "${T_TMP:-}" ] && rm -rf "$T_TMP"
	return 0
}

mc() { "$MEMCTL" "$@"; }

# Creates groups (paths relative to our cgroup) that hold other groups: on
# cgroup v2 each also enables the memory controller for its children, as an
# operator delegating a subtree to memctl would.
mkparent() {
	local g
	for g; do
		mkdir "$T_DIR/$g" || return 1
		[ "$T_VERSION" = 2 ] && { echo +memory > "$T_DIR/$g/cgroup.subtree_control" || return 1; }
	done
	return 0
}

# A directory on a real disk for page cache tests (not tmpfs): /var/tmp, or
# MEMCTL_TEST_DISKDIR (the QEMU guest's ext2 disk). Prints the new dir.
disk_tmpdir() {
	local d
	d=$(mktemp -d "${MEMCTL_TEST_DISKDIR:-/var/tmp}/memctl-$T_NAME.XXXXXX") || return 1
	[ "$(stat -f -c %T "$d")" != tmpfs ] || { rmdir "$d"; return 1; }
	echo "$d"
}

# Writes to FILE a profile of one group, $T_PREFIX-g below our cgroup, with
# the settings given as KEY=VALUE (default: max=64M).
one_group_profile() {
	local f=$1
	shift
	[ $# -gt 0 ] || set -- max=64M
	tree_profile "$f" "$T_PREFIX-g" "$@"
}

# Writes to FILE a profile of GROUP below our cgroup and of groups below
# it: KEY=VALUE is a setting of GROUP, CHILD/KEY=VALUE (CHILD/GRANDCHILD/...)
# one of a group below it, and CHILD/ alone a group with no settings
# (written {}). Groups come in the order they are first named. "--" starts
# the next group below our cgroup, with its own settings.
tree_profile() {
	local f=$1 g a body args=()
	shift
	{
		printf 'version: 1\nparent: self\ngroups:\n'
		while [ $# -gt 0 ]; do
			g=$1 args=()
			shift
			while [ $# -gt 0 ]; do
				a=$1
				shift
				[ "$a" = -- ] && break
				args+=("$a")
			done
			body=$(tree_yaml "" "    " "${args[@]}")
			if [ -n "$body" ]; then printf '  %s:\n%s\n' "$g" "$body"
			else printf '  %s: {}\n' "$g"; fi
		done
	} > "$f"
}

# tree_yaml REL INDENT PATH=VALUE...: the body of the group REL (relative to
# tree_profile's GROUP, "" for GROUP itself), indented by INDENT.
tree_yaml() {
	local rel=$1 in=$2 a p c body kids=()
	shift 2
	for a; do
		p=${a%%=*}
		if [ -n "$rel" ]; then
			case $p in "$rel"/*) p=${p#"$rel"/} ;; *) continue ;; esac
		fi
		case $p in
		*/*) c=${p%%/*}; [[ " ${kids[*]} " == *" $c "* ]] || kids+=("$c") ;;
		?*) printf '%s%s: %s\n' "$in" "$p" "${a#*=}" ;;
		esac
	done
	[ ${#kids[@]} -gt 0 ] && printf '%sgroups:\n' "$in"
	for c in "${kids[@]}"; do
		body=$(tree_yaml "${rel:+$rel/}$c" "$in    " "$@")
		if [ -n "$body" ]; then printf '%s  %s:\n%s\n' "$in" "$c" "$body"
		else printf '%s  %s: {}\n' "$in" "$c"; fi
	done
	return 0
}

# Sets T_TMP (a directory removed on exit) and P (the test's group,
# $T_PREFIX), writes $T_TMP/p.yaml, tree_profile's profile of $P with the
# settings given, and applies it: one check, named MSG.
apply_tree() {
	local msg=$1
	shift
	T_TMP=$(mktemp -d)
	P=$T_PREFIX
	tree_profile "$T_TMP/p.yaml" "$P" "$@"
	mc -q apply "$T_TMP/p.yaml"
	check_rc $? 0 "$msg"
}

# For the tests of an interrupted apply: applies $T_TMP/old.yaml (one
# check), keeps the state of our groups (state_dump) in before and the
# number of writes the plan of $T_TMP/new.yaml makes in writes.
apply_old() {
	mc -q apply "$T_TMP/old.yaml"
	check_rc $? 0 "apply the old state"
	before=$(state_dump)
	writes=$(plan_writes "$T_TMP/new.yaml")
}

# For the tests of the record of the groups memctl created: T_TMP, P, REC
# (the record), ABS ($P's absolute cgroup path) and two profiles of $P,
# $T_TMP/keep.yaml (the group keep below it) and $T_TMP/two.yaml (keep, r1
# with a soft limit, r2).
created_setup() {
	T_TMP=$(mktemp -d)
	P=$T_PREFIX
	REC=$T_STATE/created
	ABS=${T_SELF%/}/$P
	tree_profile "$T_TMP/keep.yaml" "$P" keep/max=64M
	tree_profile "$T_TMP/two.yaml" "$P" keep/max=64M r1/max=48M r1/soft_limit=8M r2/max=40M
}

# Makes DIR a group of a fake cgroup v2 tree (for MEMCTL_CGROUP_ROOT), with
# the files of a v2 kernel's memory controller: no limits, no protection,
# 1M in use (half anon, half file), no events, no pressure. FILE=TEXT
# writes TEXT (with printf's backslash escapes, and a newline) to FILE
# instead of its default.
fake_v2_group() {
	local d=$1 kv z="avg10=0.00 avg60=0.00 avg300=0.00 total=0"
	shift
	mkdir -p "$d" || return 1
	for kv in "cgroup.controllers=cpu memory" memory.max=max memory.high=max memory.low=0 \
		memory.min=0 memory.swap.max=max memory.current=1048576 \
		'memory.stat=anon 524288\nfile 524288' 'memory.events=low 0\nhigh 0\nmax 0\noom 0\noom_kill 0' \
		"memory.pressure=some $z\nfull $z" "$@"; do
		printf '%b\n' "${kv#*=}" > "$d/${kv%%=*}" || return 1
	done
}

# kernel file value of group (relative to our cgroup)
kval() { cat "$T_DIR/$1/$2"; }

# The value v1 shows for "no limit": PAGE_COUNTER_MAX * page size.
unlimited_v1() { echo $(( (0x7fffffffffffffff / $(getconf PAGESIZE)) * $(getconf PAGESIZE) )); }

# Waits (bounded: 60 s by the clock) until process $1 is stopped (state
# T); returns 1 at once when it is gone or has exited (a zombie until its
# parent waits), so that a process that died at its start fails the test
# then, not at the suite's timeout. Builtins only: a loop of subprocesses
# is slow in the QEMU guest.
wait_stopped() {
	local line state end=$((SECONDS + 60))
	while [ $SECONDS -lt $end ]; do
		{ read -r line < "/proc/$1/stat"; } 2>/dev/null || return 1
		line=${line##*) }
		state=${line%% *}
		case $state in
		T) return 0 ;;
		Z|X) return 1 ;;
		esac
		sleep 0.01
	done
	return 1
}

# Writes a snapshot "group file value" of every memory file we manage below
# our prefix groups, for before/after comparisons.
state_dump() {
	local d g f v
	for d in $(find "$T_DIR" -mindepth 1 -type d -name "$T_PREFIX*" | sort); do
		while read -r g; do
			for f in memory.limit_in_bytes memory.soft_limit_in_bytes memory.memsw.limit_in_bytes \
				 memory.max memory.high memory.low memory.min memory.swap.max; do
				[ -f "$g/$f" ] || continue
				# read, not $(cat): no process a file (slow in the QEMU guest)
				v=
				read -r v < "$g/$f" || [ -n "$v" ] || v="(unreadable)"
				echo "${g#$T_DIR/} $f $v"
			done
			echo "${g#$T_DIR/} exists"
		done < <(find "$d" -type d | sort)
	done
}

# What the tests of units on a stand-in systemd need (root, a memory
# cgroup, the test build, dbus-daemon); FAKE: the stand-in.
prereq_fake_systemd() {
	prereq_root
	prereq_memcg
	prereq_fault_injection
	command -v dbus-daemon > /dev/null || skip "no dbus-daemon (Debian's dbus-daemon package)"
	FAKE=${MEMCTL_BUILD_DIR:?}/tests/fake-systemd
	[ -x "$FAKE" ] || { echo "no $FAKE"; exit 1; }
}

# The private D-Bus of the tests of units (32, 49), where fake-systemd
# stands in for systemd: private_bus_start starts a dbus-daemon listening
# on $T_TMP/bus (again after a kill: the address carries no guid, so memctl
# connects to a new daemon at the same path), its PID in bus_pid, and
# exports MEMCTL_TEST_SYSTEMD_BUS; private_bus_stop stops it.
private_bus_start() {
	[ -e "$T_TMP/bus.conf" ] || cat > "$T_TMP/bus.conf" <<XML
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>custom</type>
  <listen>unix:path=$T_TMP/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
XML
	export MEMCTL_TEST_SYSTEMD_BUS=unix:path=$T_TMP/bus
	dbus-daemon --config-file="$T_TMP/bus.conf" --fork --print-pid=4 4> "$T_TMP/bus.pid" ||
		{ echo "dbus-daemon did not start"; exit 1; }
	bus_pid=$(cat "$T_TMP/bus.pid")
}
# Stops it and waits (10 s at most) until it is gone: a daemon still exiting
# removes the socket path a new one listens on.
private_bus_stop() {
	local i
	[ -n "$bus_pid" ] || return 0
	kill "$bus_pid" 2>/dev/null
	for i in $(seq 1 200); do kill -0 "$bus_pid" 2>/dev/null || break; sleep 0.05; done
	bus_pid=
}

prereq_fault_injection() {
	mc --version | grep -q "fault injection" ||
		skip "memctl was built without MEMCTL_FAULT_INJECTION (scripts/setup.sh test builds it)"
}

# Number of knob writes the plan for profile $1 makes.
plan_writes() {
	mc -o json plan "$1" | jq '[.steps[] | select(.action == "write")] | length'
}
