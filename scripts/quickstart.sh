#!/usr/bin/env bash
# The main job on a fresh machine: set up, build, apply the quickstart
# profile to real cgroups below the cgroup this shell runs in, and show them.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh release
memctl=build/release/memctl
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
run() { echo "+ memctl ${*}"; $sudo $memctl "$@"; echo; }
run status
run check profiles/quickstart.yaml
run plan profiles/quickstart.yaml
run apply profiles/quickstart.yaml
run get demo
run get demo/worker
run plan profiles/quickstart.yaml
dir=$($sudo $memctl -o json status |
	python3 -c 'import json,sys; s=json.load(sys.stdin); print(s["memory_mount"] + s["self"].rstrip("/"))')
echo "The quickstart groups live in $dir/demo; remove them with:"
echo "  rmdir $dir/demo/worker $dir/demo"
