# Every key the top screen handles (the case labels of key() in
# tui/top-screen.c) is named in memctl(8)'s "memctl top" section.
src=${1:?tui/top-screen.c} man=${2:?man/memctl.8}
text=$(groff -man -Tutf8 -P-c -P-b -P-u "$man" 2>/dev/null | sed -n '/^   memctl top/,/^   memctl shell/p')
[ -n "$text" ] || { echo "no 'memctl top' section in $man"; exit 1; }
keys=$(sed -n '/^static bool key(struct screen/,/^}/p' "$src" | grep -o "case [^:]*:" | sed 's/^case //; s/:$//' | sort -u)
[ -n "$keys" ] || { echo "no case labels found in key() of $src"; exit 1; }
missing=
while read -r k; do
	case $k in
	"' '") w=space ;; "'\\n'"|"'\\r'"|KEY_ENTER) w=Enter ;;
	KEY_UP) w=Up ;; KEY_DOWN) w=Down ;; KEY_LEFT) w=Left ;; KEY_RIGHT) w=Right ;;
	KEY_PPAGE) w=PgUp ;; KEY_NPAGE) w=PgDn ;; KEY_HOME) w=Home ;; KEY_END) w=End ;;
	KEY_F\(*\)) w=F${k#KEY_F(}; w=${w%)} ;;
	"'"?"'") w=${k:1:1} ;;
	*) echo "unknown key label $k"; missing="$missing $k"; continue ;;
	esac
	# the key as a word of its own: between blanks, slashes, commas or line ends
	printf '%s\n' "$text" | grep -qE "(^|[ /,(])$(printf '%s' "$w" | sed 's/[][\.*^$+?(){}|/]/\\&/g')([ /,)]|$)" ||
		missing="$missing $w"
done <<< "$keys"
[ -z "$missing" ] || { echo "keys of the top screen missing from memctl(8):$missing"; exit 1; }
echo "all $(echo "$keys" | wc -l) key labels of the top screen are in memctl(8)"
