# Driving a terminal program through tmux (sourced after lib.sh): a private
# server (-L memctl-test-PID, killed on exit with the test's groups), one
# session, fixed size.
#
#   tmux_start NAME COLS LINES COMMAND   start the session running COMMAND
#   screen                               the pane's text now
#   expect RE MSG / expect_gone RE MSG   pass once the screen (no longer)
#                                        matches RE, within ~5 s; else fail
#                                        and show the screen
#   keys KEY...   send tmux key names;  text STRING   send STRING literally
# capture-pane drops trailing blanks: a prompt "x> " reads "x>".

SOCK=memctl-test-$$
T_SESSION=
tm() { tmux -L "$SOCK" "$@"; }
trap 'tm kill-server 2> /dev/null; cleanup' EXIT

tmux_start() {
	T_SESSION=$1
	tm new-session -d -s "$1" -x "$2" -y "$3" "$4"
}
screen() { tm capture-pane -p -t "$T_SESSION"; }
keys() { tm send-keys -t "$T_SESSION" "$@"; }
text() { tm send-keys -t "$T_SESSION" -l "$1"; }

# Polls until the screen matches RE ($2 = match) or stops matching ($2 = gone).
wait_screen() {
	local i
	for i in $(seq 1 100); do
		if screen | grep -qE -- "$1"; then [ "$2" = match ] && return 0
		else [ "$2" = gone ] && return 0; fi
		sleep 0.05
	done
	return 1
}
expect() { if wait_screen "$1" match; then pass "$2"; else fail "$2; screen:"; screen; fi; }
expect_gone() { if wait_screen "$1" gone; then pass "$2"; else fail "$2; screen:"; screen; fi; }
