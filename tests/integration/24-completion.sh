# Shell completion: the bash script the build generated is what
# `memctl completion bash` prints, bash really loads it through the
# bash-completion package, and COMP_WORDS/COMP_CWORD give the expected
# commands, options, option values, profile files, live groups and knobs.
# Each command is offered exactly the options its --help lists, in bash and
# zsh; -o exactly its formats. Group names are host input: hostile ones
# ($(...), backticks, ';', blanks, globs, escape sequences) made below our
# cgroup are completed in bash and zsh under tmux, inserted, and run, and
# nothing they carry is ever executed or printed raw.
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
# a command for exec's COMMAND to complete to
printf '#!/bin/sh\n' > "$T_TMP/bin/memctl-probe-$$"
chmod 755 "$T_TMP/bin/memctl-probe-$$"

# The completions of each case, one case per line: "words...|expected".
# The last word is the one being completed (possibly empty).
cmds=$(mc --help | sed -n '/^Commands:/,/^$/p' | awk 'NF && !/Commands:/ {print $1}' | sort | tr '\n' ' ')
cases="memctl ap|apply
memctl |$cmds
memctl --no-|--no-mlock --no-wait
memctl -o |csv json openmetrics prom text
memctl get -o |json text
memctl export -o |json prom
memctl run --output=|json prom
memctl top -o |json text
memctl --output=j|json
memctl check --|--help --insecure-profile --quiet --version
memctl ge --o|--output
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
memctl s|set shell status
memctl exec $T_PREFIX|$G $G/child
memctl exec -p self/$G c|child
memctl exec $G memctl-probe-|memctl-probe-$$
memctl exec $G -- memctl-probe-|memctl-probe-$$
memctl rm $T_PREFIX|$G $G/child
memctl status $G/|$G/child
memctl apply --pr|--prune
memctl plan --pr|--prune"

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

# Each command is offered exactly the options its --help lists (bash: for
# "memctl CMD --<TAB>"; zsh: in the command's _arguments).
help_opts() { mc "$@" --help | sed -n '/^Options:/,$p' | grep -o -- '--[a-z-]*' | sort -u | tr '\n' ' '; }
bash_opts() {
	PATH="$T_TMP/bin:$PATH" bash --norc --noprofile -c '
		. /usr/share/bash-completion/bash_completion; . "$1"; shift
		COMP_WORDS=(memctl "$@" --); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
		COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
		_memctl memctl -- "${COMP_WORDS[COMP_CWORD-1]}" 2>/dev/null
		printf "%s\n" "${COMPREPLY[@]}"' _ "$T_TMP/memctl.bash" "$@" | grep -- '^--' | sort -u | tr '\n' ' '
}
# the --long names in the zsh branch of command $1 (from "    a|b|cmd)" to its ";;")
zsh_opts() {
	awk -v c="$1" '
		/^    [a-z|]+\)$/ { n = split(substr($1, 1, length($1) - 1), w, "|"); inb = 0
			for (i = 1; i <= n; i++) if (w[i] == c) inb = 1; next }
		inb && /^      ;;$/ { inb = 0 }
		inb' "$T_TMP/_memctl" | grep -oE -- '--[a-z-]+(=|\[|})' | tr -d '[=}' | sort -u | tr '\n' ' '
}
n=0
for c in $cmds; do
	want=$(help_opts "$c")
	check_eq "$(bash_opts "$c")" "$want" "bash offers $c its own options"
	check_eq "$(zsh_opts "$c")" "$want" "zsh offers $c its own options"
	n=$((n + 1))
done
[ "$n" -ge 13 ] && pass "options of $n commands compared" || fail "only $n commands"
expanders=$(cat "$T_TMP/memctl.bash" "$T_TMP/_memctl" | grep -v '^[[:space:]]*#' |
	grep -E 'compgen|eval|_call_program')
check_eq "$expanders" "" "no compgen, eval or _call_program in the scripts (outside comments)"

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

# --- hostile group names: host input, named by whoever may create groups ---
H=$T_PREFIX-h
mkparent "$H" || fail "mkdir $H"
hostile=('$(touch x)' '`touch x`' 'a;touch x' 'sp ace' '*' '?' '[ab]' $'nl\nx' $'\e]0;pwned\a'
	$'\e[31mred' "it's" 'q"d' 'b\s' $'\xc2\x9b' $'caf\xc3\xa9' '!!' '~x' '=x' '#x' '{a,b}' '$HOME'
	'z$(touch x)')
made=()
for h in "${hostile[@]}"; do mkdir "$T_DIR/$H/$h" 2> /dev/null && made+=("$h"); done
[ "${#made[@]}" -ge 18 ] && pass "${#made[@]} hostile groups made (the kernel refuses the rest)" ||
	fail "only ${#made[@]} hostile groups made"
want=$(printf '%s\0' "${made[@]}" | sort -z | od -An -c)
mc -p "self/$H" completion groups > "$T_TMP/hostile.list"
check_eq "$(LC_ALL=C grep -c '[[:cntrl:]]' "$T_TMP/hostile.list")" 0 \
	"completion groups prints no control byte"
# every printed word, read back by the shell, is exactly a group's name
got=$(cd "$T_TMP/files" && while IFS= read -r w; do eval "printf '%s\0' $w"; done < "$T_TMP/hostile.list" |
	sort -z | od -An -c)
check_eq "$got" "$want" "each printed word reads back as its group's name"
check_eq "$(ls "$T_TMP/files" | tr '\n' ' ')" "a.yaml b.yml c.conf sub " "reading them back ran nothing"

# bash: what _memctl offers reads back as the names; nothing ran
export H
got=$(cd "$T_TMP/files" && PATH="$T_TMP/bin:$PATH" bash --norc --noprofile -c '
	. /usr/share/bash-completion/bash_completion; . "$T_TMP/memctl.bash"
	COMP_WORDS=(memctl -p "self/$H" get ""); COMP_CWORD=4
	COMP_LINE="memctl -p self/$H get "; COMP_POINT=${#COMP_LINE}
	_memctl memctl "" get
	for w in "${COMPREPLY[@]}"; do eval "printf '"'"'%s\0'"'"' $w"; done' | sort -z | od -An -c)
check_eq "$got" "$want" "bash offers every hostile group, as words that read back as their names"
check_eq "$(ls "$T_TMP/files" | tr '\n' ' ')" "a.yaml b.yml c.conf sub " "completing them ran nothing"
got=$(cd "$T_TMP/files" && PATH="$T_TMP/bin:$PATH" bash --norc --noprofile -c '
	. /usr/share/bash-completion/bash_completion; . "$T_TMP/memctl.bash"
	COMP_WORDS=(memctl get "$H/sp"); COMP_CWORD=2; COMP_LINE="memctl get $H/sp"; COMP_POINT=${#COMP_LINE}
	_memctl memctl "$H/sp" get; printf "%s\n" "${COMPREPLY[@]}"')
check_eq "$got" "$H/sp\$' 'ace" "a plain prefix completes a name with a blank"

# For real: type, TAB, run the line, in bash and in zsh under tmux.
if command -v tmux > /dev/null; then
	. "$(dirname "$0")/lib-tmux.sh"
	mkdir "$T_TMP/zsh"
	cp "$T_TMP/_memctl" "$T_TMP/zsh/_memctl"
	marker() { [ ! -e "$T_TMP/files/x" ] && pass "$1: nothing ran" || fail "$1: the marker file exists"; }
	for sh in bash zsh; do
		if [ $sh = bash ]; then
			start="bash --norc --noprofile"
			setup=". $BC; . $T_TMP/memctl.bash; PS1='sh\$ '"
		else
			start="zsh -f"
			setup="fpath=($T_TMP/zsh \$fpath); autoload -Uz compinit; compinit -u -D; PS1='sh\$ '"
		fi
		tmux_start "$sh" 200 40 "cd $T_TMP/files && env HOME=$T_TMP PATH=$T_TMP/bin:$PATH $start"
		text "$setup"; keys Enter
		expect '^sh\$ ?$' "$sh: prompt"
		text "memctl -p self/$H get sp"; keys Tab
		text " max; echo rc=\$?"; keys Enter
		expect '^rc=0$' "$sh: 'sp<TAB>' inserted a word that names the group 'sp ace'"
		keys C-l
		text "memctl -p self/$H get z"; keys Tab
		text " max; echo rc=\$?"; keys Enter
		expect '^rc=0$' "$sh: the group 'z\$(touch x)' completed and ran as a name"
		marker "$sh: z\$(touch x)"
		keys C-l
		text "memctl -p self/$H get "; keys Tab Tab
		expect 'sp' "$sh: TAB TAB lists the groups"
		check_eq "$(tm capture-pane -p -e -t "$sh" | grep -c $'\e\\[31m')" 0 "$sh: no name's escape sequence reached the terminal"
		tm display -p -t "$sh" '#{pane_title}' | grep -q pwned && fail "$sh: a name set the terminal's title" ||
			pass "$sh: the terminal's title is untouched"
		marker "$sh: listing"
		keys C-c
	done
else
	echo "# tmux is not installed: typed completion skipped"
fi

summary
