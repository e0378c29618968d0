#ifndef MEMCTL_STORE_INTERNAL_H
#define MEMCTL_STORE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "store.h"

/*
 * What the history/ files share: the on-disk layout (docs/STORE.md), the
 * byte coding (varints, CRC-32C), the codec between samples and record
 * payloads, and the shard files.
 */

/* --- layout --- */
#define ST_FILE_MAGIC_DATA "MCSTORED"
#define ST_FILE_MAGIC_INDEX "MCSTOREI"
#define ST_FILE_HDR 32           /* magic[8] version u32 hdr_len u32 start_ns u64 reserved u32 crc u32 */
#define ST_REC_MAGIC 0x3152434du /* "MCR1" little-endian */
#define ST_REC_HDR 32            /* magic u32 flags u32 time_ns u64 stored u32 raw u32 pcrc u32 hcrc u32 */
#define ST_IDX_ENTRY 32          /* time_ns u64 offset u64 length u32 flags u32 reserved u32 crc u32 */
#define ST_REC_KEYFRAME 1u
#define ST_REC_ZSTD (1u << 8)
/* Bounds a hostile store cannot push the reader past. */
/*
 * v * scale as an unsigned 64-bit count, saturated (times in ns or µs,
 * durations): 0 for what is not above 0 (NaN included), UINT64_MAX past
 * 2^64 (a time in ns after the year 2554, infinity). A plain conversion
 * of a double out of range is undefined behaviour.
 */
uint64_t st_u64_of(double v, double scale);

#define ST_MAX_STORED (64u << 20)
#define ST_MAX_RAW (256u << 20)
#define ST_MAX_STRING 8192u
#define ST_MAX_STRINGS (1u << 22)
#define ST_MAX_GROUPS (1u << 21)
#define ST_MAX_KEYS (1u << 16)
#define ST_MAX_NODES 1024u
#define ST_MAX_RUN_ITEMS (1u << 22)

#define ST_DATA_EXT ".mcd"
#define ST_INDEX_EXT ".mci"
#define ST_LOCK "lock"

/* --- byte coding (codec.c) --- */
uint32_t st_crc32c(uint32_t crc, const void *p, size_t n);
void st_put_u32(unsigned char *p, uint32_t v);
void st_put_u64(unsigned char *p, uint64_t v);
uint32_t st_get_u32(const unsigned char *p);
uint64_t st_get_u64(const unsigned char *p);

/* A bounded cursor over a payload; any overrun sets bad and reads zeros. */
struct st_in {
	const unsigned char *p, *end;
	bool bad;
};
uint64_t st_in_varint(struct st_in *in);
const unsigned char *st_in_bytes(struct st_in *in, size_t n);

/* --- the codec (codec.c) --- */

/*
 * Classes of the names in a record's string table: a name is one class
 * byte and a suffix (a key, a knob, a group path).
 */
enum st_class {
	STC_PATH = 1,      /* a group path relative to the parent; or the parent (absolute) */
	STC_USAGE,
	STC_KNOB,          /* suffix: the knob's name ("max") */
	STC_STAT,          /* memory.stat key */
	STC_EVENT,         /* memory.events key */
	STC_NUMA,          /* "NODE:key" */
	STC_PSI,           /* some_avg10 ... full_total (avg in hundredths) */
	STC_TASKS,
	STC_BAD,
	STC_NOMEMCHILD,
	STC_MEMINFO,
	STC_VMSTAT,
	STC_HPSI,          /* host PSI, as STC_PSI */
	STC_LIMIT,         /* the parent's effective limit (no suffix) */
	STC__COUNT,
};

/* A decoded or to-be-encoded sample in vector form: entry 0 the host, then the groups. */
struct st_frame {
	size_t n;             /* entries */
	uint32_t *gid;        /* per entry: string id of its path (entry 0: 0) */
	size_t *off;          /* per entry: first key in keys/vals */
	uint32_t *cnt;        /* per entry: keys */
	size_t cap_e;
	uint32_t *keys;       /* string ids */
	uint64_t *vals;
	size_t len, cap_kv;
	uint32_t parent;      /* string id of the parent's absolute path */
	uint32_t version;
};

struct st_strtab {
	char **s;             /* class byte, suffix, NUL */
	uint32_t *len;        /* bytes with the class byte */
	size_t n, cap;
	uint32_t *hash;       /* open addressing: id + 1, 0 free */
	size_t hcap;
};

struct st_enc {
	struct st_strtab tab;
	size_t emitted;       /* strings of tab already written in this span */
	struct st_frame cur, prev;
	bool have_prev;
	int32_t *prev_ix;     /* per string id: entry of prev, -1 */
	size_t cap_ix;
	unsigned since_key;   /* records since the last keyframe */
	unsigned key_every;
	bool force_key;
	unsigned char *raw;   /* payload being built */
	size_t raw_len, raw_cap;
	bool oom;
	struct st_key_memo *memo;   /* ids of names by their key's address (codec.c) */
	uint32_t memo_gen, memo_sample;
};

void st_enc_release(struct st_enc *e);
/*
 * Encodes s (after the previous sample) into e->raw / e->raw_len; *ret_key
 * says whether it is a keyframe. The encoder's state moves on only with
 * st_enc_commit (after the record is on disk). 0 or -ENOMEM.
 */
int st_enc_sample(struct st_enc *e, const struct mc_hist_sample *s, bool *ret_key);
void st_enc_commit(struct st_enc *e);
/* The next sample is a keyframe (a new shard, a failed write). */
void st_enc_reset(struct st_enc *e);

struct st_pool;   /* reader-lifetime interned key strings (codec.c) */

/* What the decoder knows of each name of the table. */
struct st_name {
	int cls;                  /* enum st_class; 0: a class this reader does not know */
	int aux;                  /* KNOB: the knob (-1 unknown); NUMA: the node; PSI: the field */
	const char *key;          /* the key, interned for the reader's lifetime (STAT, EVENT,
	                             NUMA, MEMINFO, VMSTAT); PATH: the path (in the table) */
};

struct st_dec {
	struct st_strtab tab;     /* no hash: ids come from the record */
	struct st_name *names;
	size_t cap_names;
	struct st_frame cur, prev;
	bool have;                /* cur is a decoded sample */
	int32_t *prev_ix;
	size_t cap_ix;
	struct mc_runstate run;
	bool have_run;
	struct st_pool *pool;
	const char *why;          /* static text for the last -EBADMSG */
};

void st_dec_release(struct st_dec *d);
/*
 * Decodes one record's payload (raw, decompressed) over the state of the
 * record before (keyframe: from nothing). -EBADMSG with d->why, -ENOMEM.
 */
int st_dec_record(struct st_dec *d, const unsigned char *raw, size_t len, bool keyframe);
/* Turns the decoded record into *ret (released first), stamped time_ns. */
int st_dec_sample(struct st_dec *d, uint64_t time_ns, struct mc_hist_sample *ret);

/* Copies the interval records and figures of src into dst (empty). 0 or -ENOMEM. */
int st_run_copy(struct mc_runstate *dst, const struct mc_runstate *src);

/* --- shard files (shard.c) --- */

struct st_rec {
	uint64_t time_ns;
	uint64_t off;
	uint32_t len;         /* header and payload */
	uint32_t flags;
};

struct st_shard {
	char *name;           /* "20261201-000000" */
	uint64_t start_ns;    /* from the name */
	struct st_rec *rec;   /* loaded: index entries, then records found past them */
	size_t n, cap;
	bool loaded;
	uint64_t data_size;   /* when loaded */
	size_t torn;          /* a torn record at its end (0 or 1) */
	int fd;               /* data file, -1 until loaded */
};

/*
 * The shards in dirfd, sorted by name. Files whose names are not shard
 * names are ignored; a shard file that is not trusted is -EPERM (why).
 */
int st_list_shards(int dirfd, const char *dir, struct st_shard **ret, size_t *ret_n, char **why);
void st_shards_free(struct st_shard *v, size_t n);
/* Shard name for a time: "YYYYMMDD-HHMMSS.mmm" (UTC) into buf. */
#define ST_NAME_LEN 19
void st_shard_name(uint64_t time_ns, char buf[static ST_NAME_LEN + 1]);
/* The time a shard name stands for; -EINVAL when s is not a shard name. */
int st_shard_name_time(const char *s, size_t len, uint64_t *ret_ns);
/*
 * Loads shard sh: opens its data file (writable with rw) and reads its
 * index, then the records past the last indexed one (each header and
 * payload checksum checked); a record cut short at the end of the file is
 * counted in sh->torn. -EPERM (why), -EBADMSG (why: a bad file header),
 * -errno.
 */
int st_shard_load(int dirfd, const char *dir, struct st_shard *sh, bool rw, char **why);
void st_shard_unload(struct st_shard *sh);
/* Buffers and the decompression context reused from read to read. */
struct st_io {
	unsigned char *fbuf, *rbuf;
	size_t fcap, rcap;
	void *dctx;           /* ZSTD_DCtx */
};
void st_io_release(struct st_io *io);
/*
 * Reads record i of sh (header and payload checksums checked, against its
 * index entry) and decompresses it: *ret points into io. -EBADMSG with
 * *why (static text), -errno.
 */
int st_shard_read(struct st_shard *sh, size_t i, struct st_io *io, const unsigned char **ret,
		  size_t *ret_len, const char **why);
/* Parses and checks a record header at h (ST_REC_HDR bytes) into *ret; false when bad. */
bool st_rec_header(const unsigned char *h, struct st_rec *ret, uint32_t *ret_stored,
		   uint32_t *ret_raw, uint32_t *ret_pcrc);
void st_rec_header_make(unsigned char h[ST_REC_HDR], uint64_t time_ns, uint32_t flags,
			uint32_t stored, uint32_t raw, uint32_t pcrc);
/* A file header for data or index. */
void st_file_header(unsigned char h[ST_FILE_HDR], const char *magic, uint64_t start_ns);
void st_index_entry(unsigned char e[ST_IDX_ENTRY], const struct st_rec *r);

#endif
