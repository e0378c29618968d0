#!/bin/bash
# Check that every prefix of the series builds and passes checkpatch.
#
#   kernel/check-prefixes.sh
#
# Starts from a copy of the built baseline tree (kernel/build.sh --baseline,
# built first if it is not cached), applies the patches of kernel/patches/
# series one at a time, and after each one builds a whole bzImage with the
# test config, incrementally (make rebuilds what the patch touched and what
# includes it).  For each patch it prints the build's exit status and time,
# every compiler warning of that build, and what `scripts/checkpatch.pl
# --strict --no-tree` of the tree says about the patch.  Not run by CI: at
# a few minutes a prefix it is a check for whoever changes the series.
#
# Environment: MEMCTL_PREFIX_DIR (the scratch tree's parent, default
# /var/tmp/memctl-prefixes, emptied first), JOBS (default nproc), and
# build.sh's MEMCTL_KERNEL_CACHE and MEMCTL_KERNEL_TARBALL.
#
# Exit codes: 0 every prefix built without a warning and checkpatch found
# nothing, 1 something failed or warned (its line says what), 77 the
# baseline kernel could not be built for lack of a prerequisite.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
work=${MEMCTL_PREFIX_DIR:-/var/tmp/memctl-prefixes}
jobs=${JOBS:-$(nproc)}
log() { echo "check-prefixes.sh: $*" >&2; }

rc=0
"$here/build.sh" --baseline >/dev/null || rc=$?
[ "$rc" = 0 ] || { log "the baseline kernel did not build (exit $rc)"; exit "$rc"; }
base=$("$here/build.sh" --baseline --print-dir)

rm -rf "$work"
mkdir -p "$work"
# cp -a keeps the objects' times, so make rebuilds only what a patch changes
cp -a "$base" "$work/linux"
src=$work/linux

bad=0
n=0
while read -r p; do
	case $p in ''|'#'*) continue ;; esac
	n=$((n + 1))
	if ! patch -d "$src" -p1 --forward --batch --quiet < "$here/patches/$p"; then
		echo "$p: does not apply on the prefix before it"
		bad=1
		break
	fi
	t0=$(date +%s)
	brc=0
	make -C "$src" -s -j"$jobs" bzImage > "$work/build-$n.log" 2>&1 || brc=$?
	secs=$(($(date +%s) - t0))
	warnings=$(grep -c 'warning:' "$work/build-$n.log" || true)
	# from the scratch directory: checkpatch asks git whether its argument
	# is a tracked file and then checks it as a source file, not a patch
	check=$(cd "$work" && "$src/scripts/checkpatch.pl" --strict --no-tree \
		"$here/patches/$p" 2>&1 | grep '^total:') || true
	echo "$p: bzImage exit $brc in ${secs} s, $warnings compiler warnings; checkpatch: $check"
	grep 'warning:\|error:' "$work/build-$n.log" | sed 's/^/    /' || true
	[ "$brc" = 0 ] && [ "$warnings" = 0 ] || bad=1
	case $check in *'total: 0 errors, 0 warnings, 0 checks'*) ;; *) bad=1 ;; esac
done < "$here/patches/series"

[ "$n" -gt 0 ] || { log "the series names no patch"; exit 1; }
exit "$bad"
