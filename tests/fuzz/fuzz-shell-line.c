/*
 * libFuzzer target: the shell's line parser. A line (up to its first NUL,
 * as the shell refuses lines with one) is split into words; each word,
 * quoted again, must split back to itself; then the words are parsed as a
 * command line against the real command and option tables, and looked at
 * as completion does. Nothing runs: mc_call_parse only parses.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

#define MAX_WORDS 128

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every word, quoted and split again, is one word equal to it. */
static void check_round_trip(char **words, int n)
{
	for (int i = 0; i < n; i++) {
		char *q = NULL, *buf = NULL, *again[4];
		int m;

		if (mc_line_quote(words[i], &q) < 0)
			return;
		m = mc_line_split(q, &buf, again, 2);
		if (m != 1 || strcmp(again[0], words[i]) != 0)
			__builtin_trap();
		free(buf);
		free(q);
	}
}

static void check_parse(int argc, char **argv)
{
	struct mc_ctx ctx = { .prog = "memctl", .parent = "self", .state_dir = "/run/memctl" };
	struct mc_opt_error err;
	struct mc_call call;
	const struct mc_opt *opt;
	int index;

	if (mc_call_parse(&ctx, argc, argv, &call, &err) == 0) {
		/* what parses has a command (or asks for help), in its argument bounds */
		if (!call.cmd && !ctx.help && !ctx.version)
			__builtin_trap();
		if (call.cmd && !ctx.help && !ctx.version &&
		    (call.argc < call.cmd->min_args ||
		     (call.cmd->max_args >= 0 && call.argc > call.cmd->max_args)))
			__builtin_trap();
		if (call.argc >= argc)
			__builtin_trap();
		mc_call_release(&call);
	} else if (err.kind == MC_OPT_ERR_NONE || call.opts || call.argv) {
		__builtin_trap();   /* a failure says why and leaves nothing allocated */
	}
	for (int n = 1; n <= argc; n++)
		mc_complete_position(n, argv, &opt, &index);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1), *buf = NULL, *argv[MAX_WORDS + 2];
	int n;

	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	argv[0] = "memctl";
	n = mc_line_split(line, &buf, argv + 1, MAX_WORDS);
	if (n > MAX_WORDS)
		__builtin_trap();
	if (n > 0) {
		check_round_trip(argv + 1, n);
		check_parse(n + 1, argv);
	}
	free(buf);
	free(line);
	return 0;
}
