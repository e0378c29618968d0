/* Output formats shared by the commands: text for people, JSON for scripts. */
#include <inttypes.h>
#include <string.h>

#include "cmd.h"
#include "escape.h"

/*
 * Writes what esc appends for s. Out of memory, the output says so in the
 * value's place (never the raw string, never a part of it).
 */
static void print_escaped(FILE *f, const char *s, void (*esc)(struct mc_buf *, const char *),
			  const char *oom)
{
	struct mc_buf b = { 0 };

	esc(&b, s);
	if (mc_buf_error(&b) == 0)
		fwrite(b.p, 1, b.len, f);
	else
		fputs(oom, f);
	mc_buf_release(&b);
}

void mc_json_str(FILE *f, const char *s)
{
	print_escaped(f, s ? s : "", mc_esc_json, "\"(out of memory)\"");
}

void mc_text_str(FILE *f, const char *s)
{
	print_escaped(f, s, mc_esc_text, "(out of memory)");
}

void mc_json_size(FILE *f, uint64_t v)
{
	if (v == MC_SIZE_MAX)
		fputs("\"max\"", f);
	else
		fprintf(f, "%" PRIu64, v);
}


static const char *step_action(const struct mc_step *s)
{
	static const char *const names[] = {
		[MC_STEP_MKDIR] = "create",
		[MC_STEP_WRITE] = "write",
		[MC_STEP_NOTE] = "skip",
		[MC_STEP_RECLAIM] = "reclaim",
		[MC_STEP_ENABLE] = "enable",
		[MC_STEP_SYSCTL] = "sysctl",
	};
	return names[s->kind];
}

static void plan_json(FILE *f, const struct mc_plan *plan)
{
	fputs("{\"parent\":", f);
	mc_json_str(f, plan->parent);
	fprintf(f, ",\"changes\":%zu,\"steps\":[", mc_plan_n_changes(plan));
	for (size_t i = 0; i < plan->n; i++) {
		const struct mc_step *s = &plan->steps[i];

		fprintf(f, "%s{\"action\":\"%s\",\"group\":", i ? "," : "", step_action(s));
		mc_json_str(f, s->group);
		if (s->kind == MC_STEP_RECLAIM) {
			fprintf(f, ",\"bytes\":%" PRIu64 ",\"nodes\":", s->bytes);
			if (s->node_bytes) {
				for (size_t n = 0; n < s->n_nodes; n++)
					fprintf(f, "%s%" PRIu64, n ? "," : "[", s->node_bytes[n]);
				fputc(']', f);
			} else {
				fputs("null", f);
			}
		} else if (s->kind == MC_STEP_ENABLE) {
			fputs(",\"file\":\"cgroup.subtree_control\",\"new\":\"+memory\"", f);
		} else if (s->kind == MC_STEP_SYSCTL || (s->kind == MC_STEP_NOTE && s->knob >= MC_KNOB__COUNT)) {
			fputs(",\"file\":", f);
			mc_json_str(f, s->file);
			fprintf(f, ",\"want\":%" PRIu64, s->want);
			if (s->kind == MC_STEP_SYSCTL)
				fprintf(f, ",\"old\":%" PRIu64 ",\"new\":%" PRIu64, s->old_raw, s->new_raw);
		} else if (s->kind != MC_STEP_MKDIR) {
			fprintf(f, ",\"knob\":\"%s\"", mc_knob_info(s->knob)->name);
			fputs(",\"want\":", f);
			mc_json_size(f, s->want);
		}
		if (s->kind == MC_STEP_WRITE) {
			fputs(",\"file\":", f);
			mc_json_str(f, s->file);
			fputs(",\"old\":", f);
			if (s->old_valid)
				mc_json_size(f, s->old_raw);
			else
				fputs("null", f);
			fputs(",\"new\":", f);
			mc_json_size(f, s->new_raw);
		}
		fputs(",\"reason\":", f);
		mc_json_str(f, s->reason);
		fputc('}', f);
	}
	fputs("]}\n", f);
}

/*
 * Text plan: one line per step, aligned, the reason last.
 *   create  web
 *   write   web  memory.limit_in_bytes  max -> 512M  # profile: max 512M
 *   skip    web  high                                # high 256M not applied: ...
 */
const char *mc_fmt_reclaim(const struct mc_step *s, char *buf, size_t len)
{
	char v[24];
	size_t off;

	off = (size_t)snprintf(buf, len, "%s", mc_fmt_size(s->bytes, v));
	for (size_t n = 0; s->node_bytes && n < s->n_nodes && off < len; n++)
		off += (size_t)snprintf(buf + off, len - off, "%s N%zu=%s", n ? "," : " (",
					n, mc_fmt_size(s->node_bytes[n], v));
	if (s->node_bytes && s->n_nodes && off < len)
		snprintf(buf + off, len - off, ")");
	return buf;
}

void mc_print_plan(struct mc_ctx *ctx, const struct mc_plan *plan, const char *title)
{
	FILE *f = ctx->out_f;
	size_t gw = 5, fw = 4, vw = 0;
	char a[24], b[24], val[64];

	if (ctx->out == MC_OUT_JSON) {
		plan_json(f, plan);
		return;
	}
	for (size_t i = 0; i < plan->n; i++) {
		const struct mc_step *s = &plan->steps[i];

		if (strlen(s->group) > gw)
			gw = strlen(s->group);
		if ((s->kind == MC_STEP_WRITE || s->kind == MC_STEP_SYSCTL) && strlen(s->file) > fw)
			fw = strlen(s->file);
		if (s->kind == MC_STEP_ENABLE && fw < strlen("cgroup.subtree_control"))
			fw = strlen("cgroup.subtree_control");
		if (s->kind == MC_STEP_WRITE || s->kind == MC_STEP_SYSCTL) {
			size_t l = (size_t)snprintf(val, sizeof(val), "%s -> %s",
						    s->old_valid ? mc_fmt_size(s->old_raw, a) : "(new)",
						    mc_fmt_size(s->new_raw, b));
			if (l > vw)
				vw = l;
		} else if (s->kind == MC_STEP_RECLAIM &&
			   strlen(mc_fmt_reclaim(s, val, sizeof(val))) > vw) {
			vw = strlen(val);
		}
	}
	{
		size_t nr = 0;

		for (size_t i = 0; i < plan->n; i++)
			nr += plan->steps[i].kind == MC_STEP_RECLAIM;
		fprintf(f, "%s %s: %zu change%s", title, plan->parent, mc_plan_n_changes(plan),
			mc_plan_n_changes(plan) == 1 ? "" : "s");
		if (nr)
			fprintf(f, ", %zu reclaim%s", nr, nr == 1 ? "" : "s");
		fputc('\n', f);
	}
	for (size_t i = 0; i < plan->n; i++) {
		const struct mc_step *s = &plan->steps[i];
		const char *file = "";

		val[0] = '\0';
		if (s->kind == MC_STEP_WRITE || s->kind == MC_STEP_SYSCTL) {
			file = s->file;
			snprintf(val, sizeof(val), "%s -> %s",
				 s->old_valid ? mc_fmt_size(s->old_raw, a) : "(new)",
				 mc_fmt_size(s->new_raw, b));
		} else if (s->kind == MC_STEP_NOTE) {
			file = s->knob < MC_KNOB__COUNT ? mc_knob_info(s->knob)->name : s->file;
		} else if (s->kind == MC_STEP_RECLAIM) {
			mc_fmt_reclaim(s, val, sizeof(val));
		} else if (s->kind == MC_STEP_ENABLE) {
			file = "cgroup.subtree_control";
			snprintf(val, sizeof(val), "+memory");
		}
		fprintf(f, "  %-6s  %-*s  %-*s  %-*s  # %s\n", step_action(s), (int)gw, s->group,
			(int)fw, file, (int)vw, val, s->reason);
	}
}
