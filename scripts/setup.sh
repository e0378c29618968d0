#!/usr/bin/env bash
# Installs the Debian packages memctl needs to build and test, only those
# that are missing, then configures and builds one flavour:
#   scripts/setup.sh release   -> build/release (optimized)
#   scripts/setup.sh test      -> build/test (ASan+UBSan, -Werror, fault injection)
set -euo pipefail
cd "$(dirname "$0")/.."
flavour=${1:-release}

pkgs=(build-essential cmake pkg-config libcgroup-dev libyaml-dev libreadline-dev
      libncurses-dev python3 groff-base man-db tmux
      python3-prometheus-client)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "installing: ${missing[*]}"
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get -o DPkg::Lock::Timeout=600 update -q
	DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -q "${missing[@]}"
fi

# promtool, Prometheus's own checker of the metrics format, for the export
# test. Installing the prometheus package would also install and start a
# Prometheus server, so only promtool is taken out of Debian's package.
promtool_dir=/var/cache/memctl-tools
if ! command -v promtool > /dev/null && [ ! -x "$promtool_dir/promtool" ]; then
	echo "fetching promtool from Debian's prometheus package into $promtool_dir"
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	tmp=$(mktemp -d)
	chmod 755 "$tmp"
	(cd "$tmp" && { apt-get download -q prometheus ||
		{ $sudo apt-get -o DPkg::Lock::Timeout=600 update -q && apt-get download -q prometheus; }; })
	dpkg-deb --fsys-tarfile "$tmp"/prometheus_*.deb | tar -x -C "$tmp" ./usr/bin/promtool
	$sudo install -D -m 0755 "$tmp/usr/bin/promtool" "$promtool_dir/promtool"
	rm -rf "$tmp"
fi

case $flavour in
release) opts=(-DCMAKE_BUILD_TYPE=Release) ;;
test)    opts=(-DCMAKE_BUILD_TYPE=Debug -DMEMCTL_SANITIZE=ON -DMEMCTL_WERROR=ON -DMEMCTL_FAULT_INJECTION=ON) ;;
*)       echo "usage: $0 release|test" >&2; exit 2 ;;
esac
cmake -S . -B "build/$flavour" "${opts[@]}" >/dev/null
cmake --build "build/$flavour" -j "$(nproc)"
