# Shell completion: the bash script the build generated is what
# `memctl completion bash` prints, bash really loads it through the
# bash-completion package, and COMP_WORDS/COMP_CWORD give the expected
# commands, options, option values, profile files, live groups and knobs.
# The zsh script passes `zsh -n` and names every command and option.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
BC=/usr/share/bash-completion/bash_completion
[ -f "$BC" ] || skip "bash-completion is not installed"
command -v zsh >/dev/null || skip "zsh is not installed"
GEN=${MEMCTL_BUILD_DIR:?}/completion

T_TMP=$(mktemp -d)
mc completion bash > "$T_TMP/memctl.bash"
check_rc $? 0 "completion bash"
cmp -s "$T_TMP/memctl.bash" "$GEN/memctl" && pass "the build's bash file is current" ||
	fail "$GEN/memctl differs from 'memctl completion bash'"
mc completion zsh > "$T_TMP/_memctl"
cmp -s "$T_TMP/_memctl" "$GEN/_memctl" && pass "the build's zsh file is current" ||
	fail "$GEN/_memctl differs from 'memctl completion zsh'"

# live groups to complete: G and G/child below our cgroup
G=$T_PREFIX-g
printf 'version: 1\nparent: self\ngroups:\n  %s:\n    max: 64M\n    groups:\n      child: {}\n' "$G" \
	> "$T_TMP/p.yaml"
mc -q apply "$T_TMP/p.yaml"
check_rc $? 0 "apply the groups to complete"

# files to complete
mkdir "$T_TMP/files" "$T_TMP/files/sub"
touch "$T_TMP/files/a.yaml" "$T_TMP/files/b.yml" "$T_TMP/files/c.conf"
mkdir "$T_TMP/bin"
ln -s "$MEMCTL" "$T_TMP/bin/memctl"

# The completions of each case, one case per line: "words...|expected".
# The last word is the one being completed (possibly empty).
cmds=$(mc --help | sed -n '/^Commands:/,/^$/p' | awk 'NF && !/Commands:/ {print $1}' | sort | tr '\n' ' ')
cases="memctl ap|apply
memctl |$cmds
memctl --no-|--no-mlock --no-wait
memctl -o |json text
memctl --output=j|json
memctl -q ch|check
memctl check |a.yaml b.yml sub
memctl import |a.yaml b.yml c.conf sub
memctl import c.conf |a.yaml b.yml sub
memctl get $T_PREFIX|$G $G/child
memctl ge $G/|$G/child
memctl get $G m|max min
memctl set $G sw|swap_max=
memctl set $G so|soft_limit=
memctl -p self/$T_PREFIX|self/$G self/$G/child
memctl top --sort us|usage
memctl completion |bash zsh
memctl s|set shell status"

export T_TMP cases
out=$(cd "$T_TMP/files" && PATH="$T_TMP/bin:$PATH" bash --norc --noprofile -c '
	. /usr/share/bash-completion/bash_completion
	. "$T_TMP/memctl.bash"
	complete -p memctl >/dev/null || { echo "LOAD FAILED"; exit 1; }
	while IFS="|" read -r line want; do
		read -r -a COMP_WORDS <<< "$line"
		[ "${line: -1}" = " " ] && COMP_WORDS+=("")
		COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
		COMP_LINE=$line
		COMP_POINT=${#line}
		COMPREPLY=()
		_memctl memctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" 2>/dev/null
		got=$(printf "%s\n" "${COMPREPLY[@]}" | sed "/^$/d" | sort | tr "\n" " ")
		echo "$line|${got% }|$want"
	done <<< "$cases"
')
echo "$out" | grep -q "LOAD FAILED" && fail "bash did not load the completion"
while IFS="|" read -r line got want; do
	check_eq "$got" "${want% }" "bash: '$line<TAB>'"
done <<< "$out"
check_eq "$(echo "$out" | grep -c '|')" "$(echo "$cases" | wc -l)" "every case ran"

# Every option the help lists is offered.
opts=$(mc --help | grep -o -- '--[a-z-]*' | sort -u)
for o in $opts; do
	got=$(PATH="$T_TMP/bin:$PATH" bash --norc --noprofile -c '
		. /usr/share/bash-completion/bash_completion; . "$1"
		COMP_WORDS=(memctl "$2"); COMP_CWORD=1; COMP_LINE="memctl $2"; COMP_POINT=${#COMP_LINE}
		_memctl memctl "$2" memctl 2>/dev/null; printf "%s\n" "${COMPREPLY[@]}"' _ "$T_TMP/memctl.bash" "$o")
	echo "$got" | grep -qx -- "$o" || fail "bash does not offer $o"
	grep -q -- "$o" "$T_TMP/_memctl" || fail "zsh does not offer $o"
done
pass "bash and zsh offer all $(echo "$opts" | wc -w) options of memctl --help"

zsh -n "$T_TMP/_memctl"
check_rc $? 0 "zsh -n accepts the zsh script"
head -n1 "$T_TMP/_memctl" | grep -qx '#compdef memctl' && pass "zsh script is a #compdef file" ||
	fail "zsh header: $(head -n1 "$T_TMP/_memctl")"
for c in $cmds; do
	grep -q "^    '$c:" "$T_TMP/_memctl" || fail "zsh does not describe command $c"
done
pass "zsh describes the $(echo $cmds | wc -w) commands"

# The groups helper the scripts call, and its -p
check_eq "$(mc completion groups | grep "^$G" | sort | tr '\n' ' ')" "$G $G/child " "completion groups lists the live groups"
check_eq "$(mc -p "self/$G" completion groups | tr '\n' ' ')" "child " "completion groups below -p"

summary
