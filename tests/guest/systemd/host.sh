#!/bin/bash
# Host side of the systemd guest's tests: boot the Debian root file system
# with systemd as PID 1 (kernel/run-guest.sh --systemd) and run tests of
# this directory in it (one, several as TEST,TEST, or all) in one boot.
#
#   tests/guest/systemd/host.sh [--baseline] [--out DIR] TEST[,TEST...]|all [ARG...]
#
# MEMCTL names the memctl binary whose build directory cpack makes the
# package from; MEMCTL_GUEST_TIMEOUT bounds the whole boot (default 900 s).
# The console is printed without the kernel's own lines; the full console
# log and what the guest left in its results directory (journal.txt,
# dpkg.log, the tests' files) are in --out DIR (default: a temporary
# directory, removed).  Exit status: the guest's; 77 = skipped.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
kopt= out=
while [ $# -gt 0 ]; do
	case $1 in
	--baseline) kopt=--baseline; shift ;;
	--out) out=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { echo "usage: host.sh [--baseline] [--out DIR] TEST[,TEST...]|all [ARG...]" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -n "$out" ] || out=$work/out
rm -rf "$out" && mkdir -p "$out"
memctl_args=()
[ -n "${MEMCTL:-}" ] && memctl_args=(--memctl "$MEMCTL")
MEMCTL_GUEST_LOG=$out/console.log "$repo/kernel/run-guest.sh" --systemd $kopt \
	--timeout "${MEMCTL_GUEST_TIMEOUT:-900}" --out "$out" "${memctl_args[@]}" "$@" \
	> "$work/run.out" 2>&1
rc=$?
grep -av -e '^\[ *[0-9.]*\]' -e 'SeaBIOS' -e 'Booting from ROM' "$work/run.out"
[ "$rc" = 0 ] || [ "$rc" = 77 ] || {
	echo "--- journal of the guest's boot (last 60 lines; all in $out/journal.txt)"
	tail -n 60 "$out/journal.txt" 2>/dev/null
}
exit $rc
