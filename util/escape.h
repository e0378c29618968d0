#ifndef MEMCTL_ESCAPE_H
#define MEMCTL_ESCAPE_H

#include <stdarg.h>
#include <stdbool.h>

#include "buf.h"

/*
 * Escaping of text memctl did not write itself — group names from the
 * host (anyone allowed to mkdir below a parent picks them), reasons that
 * quote them, file names — for each place it goes. One module, so every
 * renderer follows the same rules:
 *
 *   text  (terminals, logs): C0 controls, DEL, C1 controls, bytes that are
 *         not UTF-8 and the bidirectional and line-separator characters
 *         become \xHH or \u{HHHH}; a backslash becomes \\ so the escaped
 *         form is never ambiguous. Printable UTF-8 stays as it is.
 *   JSON: RFC 8259 string literal, controls as \u00HH; a byte that is not
 *         part of well-formed UTF-8 becomes U+FFFD, so the document always
 *         parses (the name is then shown, not preserved).
 *   Prometheus label values: backslash, double quote and newline escaped,
 *         as the text exposition format defines; the format needs UTF-8, so
 *         callers leave out names for which mc_utf8_valid is false.
 */

/* True when s is well-formed UTF-8 (no overlong forms, surrogates or values past U+10FFFF). */
bool mc_utf8_valid(const char *s);

/* Appends s escaped for a terminal or log line (rules above). */
void mc_esc_text(struct mc_buf *b, const char *s);

/*
 * Like mc_esc_text, but a backslash stays one: for whole messages at the
 * last moment (mc_err), where parts may be escaped already.
 */
void mc_esc_controls(struct mc_buf *b, const char *s);

/* Formats a message and appends it through mc_esc_controls (for loggers). */
void mc_esc_controls_fmt(struct mc_buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* True when mc_esc_text would change s (so the caller can skip a copy). */
bool mc_esc_text_needed(const char *s);

/* Appends s as a JSON string literal, quotes included; NULL is null. */
void mc_esc_json(struct mc_buf *b, const char *s);

/* Appends s as the inside of a Prometheus label value (no quotes). */
void mc_esc_prom_label(struct mc_buf *b, const char *s);

/*
 * s escaped for text as a new string (caller frees), or NULL when out of
 * memory. For messages that quote a name.
 */
char *mc_esc_text_dup(const char *s);

#endif
