#ifndef MEMCTL_CAPS_H
#define MEMCTL_CAPS_H

#include <stdbool.h>
#include <stdint.h>

#include "knob.h"

/*
 * What the engine needs to know about a host. Filled by the host layer from
 * discovery (never assumed); tests fill it by hand.
 */
struct mc_caps {
	enum mc_cgver ver;
	/* File implementing each knob on this host, NULL when absent. */
	const char *file[MC_KNOB__COUNT];
	bool patched;        /* memctl kernel patch knobs detected */
	uint64_t page_size;  /* limits are stored by the kernel in pages */
	uint64_t mem_total;  /* bytes of RAM: the effective limit of an unlimited root */
};

#endif
