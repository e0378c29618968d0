/*
 * Shared helpers of the test workloads: small, deterministic programs that
 * stand in for real jobs (a gzip over one hot file, a dd streaming through a
 * huge one) and report their own numbers, so tests and benchmarks assert on
 * what the job saw rather than on wall-clock guesses.
 *
 * Every workload prints its result as one line of key=value pairs on stdout
 * so a shell script picks a value out with sed or awk, and a human reads it
 * as it is.
 */
#ifndef MEMCTL_WL_H
#define MEMCTL_WL_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

/* Set by SIGTERM/SIGINT once wl_catch_stop() ran; workloads poll it per block. */
extern volatile sig_atomic_t wl_stop;

/* Prints "PROG: MESSAGE" to stderr and exits 1. */
void wl_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Makes SIGTERM and SIGINT set wl_stop instead of killing the process. */
void wl_catch_stop(void);

/* Monotonic time in seconds. */
double wl_now(void);

/*
 * Parses a size: bytes, or a number with K, M, G (binary units). Returns 0
 * and stores it in *ret_bytes; -1 for anything else (nothing stored).
 */
int wl_parse_size(const char *s, uint64_t *ret_bytes);

/*
 * Bytes this process made the storage layer read (/proc/self/io read_bytes):
 * what a page cache miss costs through read(), which, unlike a miss through
 * a mapping, does not count as a major fault. -1 if the kernel lacks
 * task I/O accounting.
 */
int64_t wl_disk_read_bytes(void);

/*
 * Seconds this process has spent runnable but waiting for a CPU
 * (/proc/self/schedstat, second field); -1 if the kernel does not say.
 */
double wl_runq_wait(void);

/* The program name for messages, set from argv[0] by each main(). */
extern const char *wl_prog;

#endif
