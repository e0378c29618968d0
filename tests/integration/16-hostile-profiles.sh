# Hostile profiles: each gets a clear error (exit 2, with the file and, where
# there is one, line:column), within a CPU-time limit and a memory bound, and
# nothing is written to the host.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg

T_TMP=$(mktemp -d)
H=$T_TMP/h
mkdir "$H"
hdr() { printf 'version: 1\nparent: self\n'; }
# billion laughs: group bodies whose children are aliases of the level
# below, nine wide and nine deep (9^9 groups once expanded)
{
	hdr
	printf 'x-g0: &g0 {max: 1M}\n'
	for i in 1 2 3 4 5 6 7 8; do
		p=$((i - 1))
		printf 'x-g%d: &g%d {groups: {a: *g%d, b: *g%d, c: *g%d, d: *g%d, e: *g%d, f: *g%d, g: *g%d, h: *g%d, i: *g%d}}\n' \
			$i $i $p $p $p $p $p $p $p $p $p
	done
	printf 'groups:\n  %s-g: *g8\n' "$T_PREFIX"
} > "$H/alias-bomb.yaml"
{ hdr; printf 'groups: '; head -c 100000 /dev/zero | tr '\0' '['; echo; } > "$H/deep-flow.yaml"
{
	hdr; printf 'groups:\n'
	ind="  "
	for i in $(seq 1 200); do printf '%s%s-g%d:\n%s  groups:\n' "$ind" "$T_PREFIX" $i "$ind"; ind="$ind    "; done
} > "$H/deep-groups.yaml"
{ hdr; printf 'groups:\n'; for i in $(seq 1 100000); do printf '  %s-g%d: {max: 1M}\n' "$T_PREFIX" $i; done; } > "$H/huge.yaml"
{ hdr; printf 'groups:\n  %s-g:\n    max: "1\xff\xfeM"\n' "$T_PREFIX"; } > "$H/bad-utf8.yaml"
{ hdr; printf 'groups:\n  %s-g:\n    max: 1M\0\n' "$T_PREFIX"; } > "$H/nul.yaml"
{ hdr; printf 'groups:\n\t%s-g:\n\t\tmax: 1M\n' "$T_PREFIX"; } > "$H/tabs.yaml"
{ hdr; printf 'groups:\n  %s-g: {max: 1M}\n---\n' "$T_PREFIX"; hdr; } > "$H/two-docs.yaml"
{ hdr; printf 'groups:\n  %s-g:\n    max: 99999999999999999999G\n' "$T_PREFIX"; } > "$H/huge-size.yaml"
{ hdr; printf 'groups:\n  %s-g:\n    max: -5M\n' "$T_PREFIX"; } > "$H/negative.yaml"
: > "$H/empty.yaml"

before=$(ls "$T_DIR")
for f in "$H"/*.yaml; do
	name=$(basename "$f")
	# CPU time is bounded by the kernel (ulimit -t), peak memory measured by
	# GNU time (the maximum resident set size of the child, in KiB).
	( ulimit -t 30; env time -f %M -o "$H/rss" "$MEMCTL" apply "$f" ) > /dev/null 2> "$H/err"
	rc=$?
	rss=$(( $(tail -n 1 "$H/rss") / 1024 ))
	msg=$(grep -v '^Command exited' "$H/err" | head -n 1)
	check_rc "$rc" 2 "$name refused"
	echo "$msg" | grep -q "$name" && pass "$name: the message names the file: $msg" ||
		fail "$name: message '$msg'"
	[ "$rss" -lt "${MEMCTL_T16_PEAK_M:-400}" ] && pass "$name: peak memory ${rss}M" ||
		fail "$name: peak memory ${rss}M (bound ${MEMCTL_T16_PEAK_M:-400}M)"
done
check_eq "$(ls "$T_DIR")" "$before" "no group was created by any of them"
summary
