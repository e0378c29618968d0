# memctl dump -o openmetrics round-trips through Prometheus's own tools:
# promtool tsdb create-blocks-from openmetrics loads the dump of a real
# recording into a TSDB block, and promtool tsdb dump gives back, for each
# group's usage and limit, the values and timestamps of the CSV dump.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
PROMTOOL=$(command -v promtool || echo /var/cache/memctl-tools/promtool)
[ -x "$PROMTOOL" ] || skip "no promtool (Debian's prometheus package; scripts/setup.sh installs it)"
T_TMP=$(mktemp -d)
S=$T_TMP/store
P=$T_PREFIX
mkparent "$P" || { fail "cannot make $P"; summary; exit 1; }
mkdir "$T_DIR/$P/a" "$T_DIR/$P/b,with \"quotes\""
echo $((64 << 20)) > "$T_DIR/$P/a/$([ "$T_VERSION" = 2 ] && echo memory.max || echo memory.limit_in_bytes)"
mc record -p "self/$P" --dir "$S" --interval 50ms -n 8 2> "$T_TMP/err"; check_rc $? 0 "record 8 samples"
mc dump --dir "$S" -o openmetrics > "$T_TMP/dump.om"; check_rc $? 0 "dump -o openmetrics"
check_eq "$(tail -n1 "$T_TMP/dump.om")" "# EOF" "it ends in # EOF"
"$PROMTOOL" tsdb create-blocks-from openmetrics "$T_TMP/dump.om" "$T_TMP/tsdb" > "$T_TMP/pt.out" 2>&1
check_rc $? 0 "promtool tsdb create-blocks-from openmetrics loads it"
mkdir -p "$T_TMP/tsdb/wal"   # promtool tsdb dump wants one
"$PROMTOOL" tsdb dump "$T_TMP/tsdb" > "$T_TMP/tsdb.txt" 2> "$T_TMP/pt.err"; check_rc $? 0 "promtool tsdb dump"
mc dump --dir "$S" > "$T_TMP/dump.csv"
# CSV: time,group,metric,value; promtool: {__name__="N", group="G", ...} VALUE MS
# (the group with a comma and quotes in its name is quoted in the CSV: left
# out here, its escaping is checked below)
for m in 'usage:memctl_usage_bytes:' 'limit.max:memctl_limit_bytes:knob="max"'; do
	metric=${m%%:*} name=${m#*:} label=${m##*:}
	name=${name%%:*}
	awk -F, -v m="$metric" '!/"/ && $3 == m && $2 != "" { v = $4; if (v == "max") v = "+Inf"; printf "%s %.0f %s\n", $2, $1 * 1000, v }' \
		"$T_TMP/dump.csv" | sort > "$T_TMP/want.$metric"
	grep "__name__=\"$name\"" "$T_TMP/tsdb.txt" | grep -v 'quotes' | grep -F "$label" |
		sed 's/.*group="\(\([^"\\]\|\\.\)*\)".*} \([^ ]*\) \([0-9]*\)$/\1 \4 \3/; s/\\"/"/g' |
		awk '{ v = $(NF - 0); if (v != "+Inf") v = sprintf("%.0f", v); $NF = v; print }' | sort > "$T_TMP/got.$metric"
	n=$(wc -l < "$T_TMP/want.$metric")
	[ "$n" -ge 16 ] || fail "$metric: only $n values in the CSV"
	if cmp -s "$T_TMP/want.$metric" "$T_TMP/got.$metric"; then
		pass "$metric: promtool holds the $n values and times of the CSV"
	else
		fail "$metric: promtool's values differ: $(diff "$T_TMP/want.$metric" "$T_TMP/got.$metric" | head -n4)"
	fi
done
grep -q 'group=".*/b,with \\"quotes\\""' "$T_TMP/dump.om" && pass "a name with quotes is escaped" ||
	fail "no escaped name in the dump"
summary
