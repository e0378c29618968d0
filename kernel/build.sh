#!/bin/bash
# Build the memctl test-host kernel (Linux 6.1 from Debian's linux-source-6.1).
#
#   kernel/build.sh [--baseline] [--print-dir] [--no-install]
#
# The source is unpacked into a cache outside the repository, keyed by a hash
# of the tarball, the config fragment and (unless --baseline) the series and
# every patch it names, so an unchanged series reuses the built tree and a
# changed one gets a fresh tree.  --baseline builds the same tree without the
# series, for A/B runs.  On success the last line printed is the path of the
# bzImage.  --print-dir prints the tree's directory instead of building.
#
# Environment: MEMCTL_KERNEL_CACHE (default /var/cache/memctl-kernel),
# MEMCTL_KERNEL_TARBALL (default /usr/src/linux-source-6.1.tar.xz),
# JOBS (default nproc).
#
# Exit codes: 0 built, 77 a prerequisite is missing and could not be
# installed (callers treat that as "skip"), anything else a failure.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${MEMCTL_KERNEL_CACHE:-/var/cache/memctl-kernel}
tarball=${MEMCTL_KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
jobs=${JOBS:-$(nproc)}
baseline=0 print_dir=0 install=1

for arg; do
	case $arg in
	--baseline) baseline=1 ;;
	--print-dir) print_dir=1 ;;
	--no-install) install=0 ;;
	-h|--help) sed -n '2,20p' "$0"; exit 0 ;;
	*) echo "build.sh: unknown argument '$arg'" >&2; exit 2 ;;
	esac
done

log() { echo "build.sh: $*" >&2; }

# Packages this script needs; installed through apt when missing and we are
# root (the CI image starts from scratch), otherwise reported as a skip.
need_pkgs=(linux-source-6.1 flex bison bc libelf-dev libssl-dev cpio xz-utils make gcc perl)
ensure_packages() {
	local missing=() p
	for p in "${need_pkgs[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$install" = 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		log "installing ${missing[*]}"
		if ! { DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q "${missing[@]}" ||
		       { apt-get -o DPkg::Lock::Timeout=600 update -q &&
			 DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q "${missing[@]}"; }; } >&2; then
			log "cannot install ${missing[*]}"
			exit 77
		fi
	else
		log "missing packages: ${missing[*]} (run as root to install them)"
		exit 77
	fi
}
ensure_packages
[ -r "$tarball" ] || { log "no kernel source tarball at '$tarball'"; exit 77; }

# The cache key covers everything that changes the built image.
key_input() {
	stat -c '%n %s %Y' "$tarball"
	cat "$here/config.fragment"
	if [ "$baseline" = 1 ]; then
		echo baseline
	else
		local p
		cat "$here/patches/series"
		while read -r p; do
			case $p in ''|'#'*) continue ;; esac
			cat "$here/patches/$p"
		done < "$here/patches/series"
	fi
}
key=$(key_input | sha256sum | cut -c1-16)
kind=$([ "$baseline" = 1 ] && echo baseline || echo patched)
dir=$cache/$kind-$key
src=$dir/linux

if [ "$print_dir" = 1 ]; then
	echo "$src"
	exit 0
fi

mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ] ||
	{ log "cannot write the kernel cache '$cache' (set MEMCTL_KERNEL_CACHE)"; exit 77; }
# A built tree is only read, under a shared lock (guests booting it hold
# one too, so a cache hit does not wait for them). Building takes the lock
# exclusively: one builder per tree, a second caller waits, then reuses.
cached() {
	[ -f "$dir/built" ] && [ -f "$src/arch/x86/boot/bzImage" ] || return 1
	log "cached $kind kernel $key"
	echo "$src/arch/x86/boot/bzImage"
}
exec 9>"$dir.lock"
flock -s 9
cached && exit 0
flock 9
cached && exit 0

if [ ! -f "$dir/prepared" ]; then
	rm -rf "$dir"
	mkdir -p "$dir"
	t0=$(date +%s.%N)
	tar -xJf "$tarball" -C "$dir"
	mv "$dir"/linux-source-6.1 "$src"
	log "unpacked in $(echo "$(date +%s.%N) - $t0" | bc) s"
	if [ "$baseline" = 0 ]; then
		while read -r p; do
			case $p in ''|'#'*) continue ;; esac
			log "applying $p"
			patch -d "$src" -p1 --forward --batch --quiet < "$here/patches/$p" || {
				log "patch '$p' does not apply"; exit 1; }
		done < "$here/patches/series"
	fi
	touch "$dir/prepared"
fi

t0=$(date +%s.%N)
{
	make -C "$src" -s tinyconfig
	"$src"/scripts/kconfig/merge_config.sh -m -O "$src" "$src/.config" "$here/config.fragment"
	make -C "$src" -s olddefconfig
} > "$dir/config.log" 2>&1 || { log "configuration failed, see $dir/config.log"; exit 1; }

# Fail loudly when Kconfig dropped a requested option (an unmet dependency
# silently turns =y into "is not set").
bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qx "$line" "$src/.config" || { log "config: wanted $line, got: $(grep "^${line%%=*}=\|^# ${line%%=*} " "$src/.config" || echo unset)"; bad=1; } ;;
	'# CONFIG_'*' is not set')
		sym=${line#\# }; sym=${sym%% *}
		if grep -q "^$sym=" "$src/.config"; then log "config: wanted $sym unset"; bad=1; fi ;;
	esac
done < "$here/config.fragment"
[ "$bad" = 0 ] || { log "required configuration options are missing"; exit 1; }

make -C "$src" -s -j"$jobs" bzImage >&2
log "built $kind kernel $key in $(echo "$(date +%s.%N) - $t0" | bc) s"
touch "$dir/built"

# Trees of the same kind for an older series or config are dead weight
# (1.5 GiB each): remove those no build or boot (run-guest.sh holds the
# lock shared) is using.
for old in "$cache/$kind"-*.lock; do
	[ "$old" = "$dir.lock" ] && continue
	(
		exec 8>"$old" && flock -n 8 || exit 0
		rm -rf "${old%.lock}" && rm -f "$old"
	) || true
done
echo "$src/arch/x86/boot/bzImage"
