#ifndef MEMCTL_NAMES_H
#define MEMCTL_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "snapshot.h"

/*
 * The names of the subtree reader, private to the host layer: the file
 * each slot is read from (host_slot_file, mc_host_bad_files, declared with
 * the host) and the name each key is stored under.
 *
 * Keys come out under v2's names on every host: v1's hierarchical total_*
 * (memory.stat) and hierarchical_* (numa_stat) keys are renamed, since they
 * count the subtree as v2's keys do; v1's group-local keys are dropped
 * (the map returns NULL for them); the pre-5.9 workingset_refault,
 * _activate and _restore are the _file ones; of v1's oom_control only
 * oom_kill is kept. A v2 name memctl knows is returned as a string of its
 * own, stored without a copy; an unknown v2 name is kept, copied.
 */

/* The files whose keys are renamed, each with a cache of its own. */
enum host_key_file { HOST_KEYS_STAT, HOST_KEYS_NUMA, HOST_KEYS_EVENTS, HOST_KEYS__COUNT };

struct host_key_slot {
	char key[48];
	unsigned char len;
	const char *to;         /* the name it is stored under, or NULL */
	bool copy;
};

/*
 * The keys of one file at its last read, in order; zero-initialised before
 * the first use, released with host_keys_release. n is how many keys the
 * last read had (a good size to reserve for the next).
 */
struct host_keys {
	struct host_key_slot *v;
	size_t n;
	size_t cap;
	size_t pos;             /* the next key of this read */
	enum host_key_file kf;
	bool v1;
};

/*
 * The key map (struct mc_key_map, for the parsers of snapshot.h) of one
 * read of file kf on a v1 host or not, through cache c, which it rewinds.
 * The names it returns outlive c. Out of memory, a key is looked up and
 * named all the same, only not cached.
 */
struct mc_key_map host_keys_map(struct host_keys *c, enum host_key_file kf, bool v1);

/* Frees c's memory; c is empty (zeroed) afterwards. */
void host_keys_release(struct host_keys *c);

#endif
