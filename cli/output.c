/* Output formats shared by the commands: text for people, JSON for scripts. */
#include <inttypes.h>
#include <stdlib.h>
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
	print_escaped(f, s ? s : "", mc_esc_text, "(out of memory)");
}

/* s escaped for text into b (reused), for a printf argument. */
static const char *text_of(struct mc_buf *b, const char *s)
{
	mc_buf_reset(b);
	mc_esc_text(b, s ? s : "");
	return mc_buf_error(b) < 0 ? "(out of memory)" : mc_buf_str(b);
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
	struct mc_step_text t;
	const char *a = "?";

	if (mc_step_describe(s, &t) == 0) {
		a = t.action;
		mc_step_text_free(&t);
	}
	return a;
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
		} else if (s->kind == MC_STEP_RMDIR) {
			fprintf(f, ",\"created_by_memctl\":%s", s->created ? "true" : "false");
		} else if (s->kind != MC_STEP_MKDIR) {
			fprintf(f, ",\"knob\":\"%s\"", mc_knob_info(s->knob)->name);
			fputs(",\"want\":", f);
			mc_json_size(f, s->want);
		}
		if (s->kind == MC_STEP_UNIT)
			fputs(",\"via\":\"systemd\"", f);
		if (s->cgroup) {   /* a unit's step in its own cgroup (UNIT_FILE, RECLAIM) */
			fputs(",\"cgroup\":", f);
			mc_json_str(f, s->cgroup);
		}
		if (s->kind == MC_STEP_WRITE || s->kind == MC_STEP_UNIT || s->kind == MC_STEP_UNIT_FILE) {
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
	struct mc_step_text t;

	if (mc_step_describe(s, &t) < 0) {
		snprintf(buf, len, "?");
		return buf;
	}
	snprintf(buf, len, "%s", t.value);
	mc_step_text_free(&t);
	return buf;
}

int mc_name_col(void)
{
	int w = 0;

	for (int k = 0; k < MC_KNOB__COUNT; k++)
		if ((int)strlen(mc_knob_info((enum mc_knob)k)->name) > w)
			w = (int)strlen(mc_knob_info((enum mc_knob)k)->name);
	return w;
}

void mc_print_plan(struct mc_ctx *ctx, enum mc_output out, const struct mc_plan *plan,
		   const char *title)
{
	FILE *f = ctx->out_f;
	size_t gw = 5, fw = 4, vw = 0, nr = 0;
	struct mc_buf group = { 0 }, reason = { 0 };
	struct mc_step_text *t;

	if (out == MC_OUT_JSON) {
		plan_json(f, plan);
		return;
	}
	t = calloc(plan->n ? plan->n : 1, sizeof(*t));
	for (size_t i = 0; t && i < plan->n; i++)
		if (mc_step_describe(&plan->steps[i], &t[i]) < 0) {
			for (size_t j = 0; j < i; j++)
				mc_step_text_free(&t[j]);
			free(t);
			t = NULL;
		}
	if (!t) {
		mc_err("out of memory: the plan is not shown");
		return;
	}
	for (size_t i = 0; i < plan->n; i++) {
		if (strlen(text_of(&group, plan->steps[i].group)) > gw)
			gw = strlen(text_of(&group, plan->steps[i].group));
		/* As before the table: a note's knob and enable's value do not widen columns. */
		if (plan->steps[i].kind != MC_STEP_NOTE && strlen(t[i].file) > fw)
			fw = strlen(t[i].file);
		if (plan->steps[i].kind != MC_STEP_ENABLE && strlen(t[i].value) > vw)
			vw = strlen(t[i].value);
		nr += plan->steps[i].kind == MC_STEP_RECLAIM;
	}
	fprintf(f, "%s %s: %zu change%s", title, text_of(&group, plan->parent),
		mc_plan_n_changes(plan), mc_plan_n_changes(plan) == 1 ? "" : "s");
	if (nr)
		fprintf(f, ", %zu reclaim%s", nr, nr == 1 ? "" : "s");
	fputc('\n', f);
	for (size_t i = 0; i < plan->n; i++) {
		const struct mc_step *s = &plan->steps[i];

		fprintf(f, "  %-6s  %-*s  %-*s  %-*s  # %s\n", t[i].action, (int)gw,
			text_of(&group, s->group), (int)fw, t[i].file, (int)vw, t[i].value,
			text_of(&reason, s->reason));
		mc_step_text_free(&t[i]);
	}
	free(t);
	mc_buf_release(&group);
	mc_buf_release(&reason);
}

void mc_print_step(FILE *f, const char *prefix, const struct mc_step *s, bool reason)
{
	struct mc_step_text t;

	if (mc_step_describe(s, &t) < 0) {
		fprintf(f, "%s", prefix);
		mc_text_str(f, s->group);
		fputs(": (out of memory)\n", f);
		return;
	}
	/* the step's text quotes the group (and a note's reason): escaped as a whole */
	fputs(prefix, f);
	mc_text_str(f, t.done);
	if (reason && s->kind != MC_STEP_NOTE) {
		fputs(": ", f);
		mc_text_str(f, s->reason);
	}
	fputc('\n', f);
	mc_step_text_free(&t);
}
