# Retention deletes whole shards. By size: a store limited to 64K that
# records 600 samples keeps at most 64K on disk, in several shards, and its
# oldest samples are gone. By age: with --retain 7d, shards whose successor
# began more than 7 days ago are deleted (their newest record is older than
# that), the others kept.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
T_TMP=$(mktemp -d)
P=$T_PREFIX
mkparent "$P" || { fail "cannot make $P"; summary; exit 1; }
for i in $(seq 1 30); do mkdir "$T_DIR/$P/g$i"; done
samples() { mc dump --dir "$1" --groups g1 | awk -F, '$3 == "usage"' | wc -l; }
bytes() { find "$1" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }

S=$T_TMP/size
mc record -p "self/$P" --dir "$S" --interval 10ms -n 600 --max-size 64K 2> "$T_TMP/err"
check_rc $? 0 "record 600 samples into a store of at most 64K"
b=$(bytes "$S")
[ "$b" -le 65536 ] && pass "the store takes $b bytes" || fail "the store takes $b bytes, more than 64K"
n=$(ls "$S" | grep -c '\.mcd$')
[ "$n" -ge 2 ] && pass "in $n shards" || fail "$n shards"
n=$(samples "$S")
[ "$n" -gt 0 ] && [ "$n" -lt 600 ] && pass "$n of the 600 samples are kept, the oldest deleted" ||
	fail "$n samples kept of 600"
mc record -p "self/$P" --dir "$S" -n 1 --max-size 10K 2> "$T_TMP/err"; check_rc $? 2 "--max-size below 64K"

# By age: the shards of one recording, renamed as if made 10, 9, 8 and 3 days ago
A=$T_TMP/age
mc record -p "self/$P" --dir "$A" -n 3 --interval 10ms 2> "$T_TMP/err"; check_rc $? 0 "a small store"
src=$(ls "$A"/*.mcd | head -n1)
src=${src%.mcd}
for d in 10 9 8 3; do
	name=$(date -u -d "@$(( $(date +%s) - d * 86400 ))" +%Y%m%d-%H%M%S).000
	cp "$src.mcd" "$A/$name.mcd"
	cp "$src.mci" "$A/$name.mci"
	echo "$d $name" >> "$T_TMP/names"
done
rm "$src.mcd" "$src.mci"
mc record -p "self/$P" --dir "$A" -n 1 --retain 7d 2> "$T_TMP/err"; check_rc $? 0 "record with --retain 7d"
while read -r d name; do
	case $d in 10 | 9) want=no ;; *) want=yes ;; esac
	[ -e "$A/$name.mcd" ] && have=yes || have=no
	check_eq "$have" "$want" "the shard of $d days ago is $([ $want = yes ] && echo kept || echo deleted)"
done < "$T_TMP/names"
check_eq "$(samples "$A")" 7 "the kept shards and today's read (3 + 3 + 1 samples)"
summary
