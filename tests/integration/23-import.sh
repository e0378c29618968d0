# memctl import: a real cgconfig.conf is converted, the profile passes
# memctl check, and applying it sets the same kernel values as libcgroup's
# own cgconfigparser sets from the same file (both below our own cgroup).
# What cannot be converted is named at FILE:LINE:COL with exit status 5;
# a syntax error is exit status 2 and writes nothing.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
command -v cgconfigparser >/dev/null || skip "cgconfigparser not installed (Debian package cgroup-tools)"

T_TMP=$(mktemp -d)
rel=${T_SELF#/}
rel=${rel:+$rel/}
swap=0
[ "$T_VERSION" = 1 ] && [ -f "$T_DIR/memory.memsw.limit_in_bytes" ] && swap=1
[ "$T_VERSION" = 2 ] && [ -f "$T_DIR/memory.swap.max" ] && swap=1

# The memory keys of each group, as this host's cgroup version names them.
if [ "$T_VERSION" = 1 ]; then
	web_keys="memory.limit_in_bytes = 256M;
memory.soft_limit_in_bytes = \"128m\";"
	[ $swap = 1 ] && web_keys="$web_keys
memory.memsw.limit_in_bytes = 384M;"
	cache_keys="memory.limit_in_bytes = 0x4000000;
memory.soft_limit_in_bytes = 32M;"
	batch_keys="memory.limit_in_bytes = 134217728;
memory.swappiness = 10;"
	[ $swap = 1 ] && batch_keys="$batch_keys
memory.memsw.limit_in_bytes = -1;"
else
	web_keys="memory.max = 256M;
memory.high = \"200m\";
memory.low = 64M;"
	[ $swap = 1 ] && web_keys="$web_keys
memory.swap.max = 128M;"
	cache_keys="memory.max = 0x4000000;
memory.min = 16M;"
	batch_keys="memory.max = 134217728;
memory.oom.group = 1;"
	[ $swap = 1 ] && batch_keys="$batch_keys
memory.swap.max = max;"
fi

# group NAME KEYS [perm]: one group section
group() {
	echo "group $rel$1 {"
	[ -n "${3:-}" ] && printf '\tperm {\n\t\ttask { uid = root; gid = root; }\n\t\tadmin { uid = root; gid = root; }\n\t}\n'
	printf '\tmemory {\n'
	[ -n "$2" ] && printf '%s\n' "$2" | sed 's/^/\t\t/'
	printf '\t}\n}\n\n'
}

# One cgconfig.conf for a group root $1: cgconfigparser gets one root,
# memctl import another, and their kernel values are compared.
conf() {
	echo "# memory groups as cgconfigparser sets them up"
	group "$1/web" "$web_keys" perm
	group "$1/web/cache" "$cache_keys"
	group "$1/batch" "$batch_keys"
	group "$1/idle" ""
}

CGC=$T_PREFIX-cgc
MC=$T_PREFIX-mc
conf "$CGC" > "$T_TMP/cgc.conf"
conf "$MC" > "$T_TMP/mc.conf"

# libcgroup's own tool, on its copy
cgconfigparser -l "$T_TMP/cgc.conf" > "$T_TMP/cgc.out" 2>&1
check_rc $? 0 "cgconfigparser sets up its copy"
[ -d "$T_DIR/$CGC/web/cache" ] && pass "cgconfigparser created the nested groups" ||
	fail "cgconfigparser did not create $CGC/web/cache: $(cat "$T_TMP/cgc.out")"

# memctl import on the other copy: two items are left out (the perm block,
# and memory.swappiness on v1 / memory.oom.group on v2)
mc import "$T_TMP/mc.conf" "$T_TMP/mc.yaml" 2> "$T_TMP/import.err"
check_rc $? 5 "import converts and says something was left out"
perm_line=$(grep -n 'perm {' "$T_TMP/mc.conf" | head -n1 | cut -d: -f1)
grep -q "^$T_TMP/mc.conf:$perm_line:2: ${rel}$MC/web: perm block not converted" "$T_TMP/import.err" &&
	pass "the perm block is reported at its line and column" ||
	fail "perm report: $(cat "$T_TMP/import.err")"
if [ "$T_VERSION" = 1 ]; then key=memory.swappiness; else key=memory.oom.group; fi
key_line=$(grep -n "$key" "$T_TMP/mc.conf" | cut -d: -f1)
grep -q "^$T_TMP/mc.conf:$key_line:3: ${rel}$MC/batch: '$key' not converted: memctl has no knob" "$T_TMP/import.err" &&
	pass "$key is reported at its line and column" || fail "$key report: $(cat "$T_TMP/import.err")"
check_eq "$(grep -c 'not converted:' "$T_TMP/import.err")" 2 "exactly two items reported"

mc check "$T_TMP/mc.yaml" > /dev/null
check_rc $? 0 "the imported profile passes memctl check"
mc -q apply "$T_TMP/mc.yaml"
check_rc $? 0 "the imported profile applies"

# The kernel's values, group by group, against cgconfigparser's and against
# what the file says (so that both being wrong the same way fails too).
if [ "$T_VERSION" = 1 ]; then
	unl=$(unlimited_v1)
	want="web memory.limit_in_bytes $((256 << 20))
web memory.soft_limit_in_bytes $((128 << 20))
web/cache memory.limit_in_bytes $((64 << 20))
web/cache memory.soft_limit_in_bytes $((32 << 20))
batch memory.limit_in_bytes $((128 << 20))
idle memory.limit_in_bytes $unl"
	[ $swap = 1 ] && want="$want
web memory.memsw.limit_in_bytes $((384 << 20))
batch memory.memsw.limit_in_bytes $unl"
else
	want="web memory.max $((256 << 20))
web memory.high $((200 << 20))
web memory.low $((64 << 20))
web/cache memory.max $((64 << 20))
web/cache memory.min $((16 << 20))
batch memory.max $((128 << 20))
idle memory.max max"
	[ $swap = 1 ] && want="$want
web memory.swap.max $((128 << 20))
batch memory.swap.max max"
fi
while read -r g f v; do
	got_cgc=$(kval "$CGC/$g" "$f")
	got_mc=$(kval "$MC/$g" "$f")
	check_eq "$got_mc" "$got_cgc" "$g $f: memctl apply = cgconfigparser"
	check_eq "$got_mc" "$v" "$g $f: the value the file says"
done <<< "$want"

# stdin, and -p: the same groups below another parent
mc -q -p "self/$T_PREFIX-p" import - < "$T_TMP/mc.conf" > "$T_TMP/p.yaml"
check_rc $? 5 "import from stdin with -p"
grep -q "^parent: self/$T_PREFIX-p$" "$T_TMP/p.yaml" && pass "-p becomes the profile's parent" ||
	fail "parent: $(grep parent: "$T_TMP/p.yaml")"

# A syntax error: exit 2, the position, and the output file left alone.
printf 'group %s%s/bad {\n\tmemory {\n\t\tmemory.limit_in_bytes = 1G # no\n\t}\n}\n' "$rel" "$MC" \
	> "$T_TMP/bad.conf"
echo keep > "$T_TMP/bad.yaml"
err=$(mc import "$T_TMP/bad.conf" "$T_TMP/bad.yaml" 2>&1); rc=$?
check_rc $rc 2 "syntax error refused"
echo "$err" | grep -q "^$T_TMP/bad.conf:3:30: syntax error: '#' after other text" &&
	pass "syntax error at file:line:col" || fail "message: $err"
check_eq "$(cat "$T_TMP/bad.yaml")" keep "the output file is untouched"
cgconfigparser -l "$T_TMP/bad.conf" > /dev/null 2>&1
[ $? -ne 0 ] && pass "cgconfigparser refuses the same file" || fail "cgconfigparser took bad.conf"
[ -d "$T_DIR/$MC/bad" ] && fail "a group was created from the bad file" || pass "nothing created"

summary
