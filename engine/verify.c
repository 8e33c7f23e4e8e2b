// SPDX-License-Identifier: MIT
/*
 * verify.c - what fio's verify= writes and checks: a header per written
 * block and a checksum of its data (crc32c or md5), or a fixed pattern.
 *
 * A verified block (len >= RQ_VHDR_LEN) is laid out as
 *   [0, 64)   struct vhdr: magic, offset, len, type, seed, seq, digest,
 *             and a crc32c of the header itself
 *   [64, len) data: verify_pattern repeated if the job gave one, else a
 *             xorshift64* stream from the header's seed
 * so a read proves the block is the one written at that offset (offset,
 * len), whole (digest) and not a stale copy of another block.  With
 * verify=pattern the whole block is the pattern and nothing else.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/verify.h"
#include "jobfile/job.h"

#define VHDR_MAGIC 0x7271766572696679ULL	/* "rqverify" */

struct vhdr {
	uint64_t magic;
	uint64_t offset;
	uint32_t len;
	uint32_t type;
	uint64_t seed;
	uint64_t seq;
	uint8_t digest[16];		/* crc32c: first 4 bytes; md5: all */
	uint32_t pad;
	uint32_t hdr_crc;		/* crc32c of the bytes before it */
};

_Static_assert(sizeof(struct vhdr) == RQ_VHDR_LEN, "header is 64 bytes");

/* ---- crc32c (Castagnoli), hardware where the CPU has it ---- */

static uint32_t crc_table[8][256];
static int crc_hw = -1;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
		crc_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xff];
#if defined(__x86_64__)
	crc_hw = __builtin_cpu_supports("sse4.2");
#else
	crc_hw = 0;
#endif
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc_sse42(uint32_t crc, const unsigned char *p, size_t len)
{
	uint64_t c = crc;

	for (; len >= 8; p += 8, len -= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
	}
	for (; len; p++, len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p);
	return (uint32_t)c;
}
#endif

/* slice-by-8: eight table look-ups per 8 bytes */
static uint32_t crc_soft(uint32_t crc, const unsigned char *p, size_t len)
{
	for (; len >= 8; p += 8, len -= 8) {
		uint32_t lo, hi;

		memcpy(&lo, p, 4);
		memcpy(&hi, p + 4, 4);
		lo ^= crc;
		crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
		      crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
		      crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
		      crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
	}
	for (; len; p++, len--)
		crc = crc_table[0][(crc ^ *p) & 0xff] ^ (crc >> 8);
	return crc;
}

uint32_t rq_crc32c(const void *buf, size_t len)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	uint32_t crc = 0xffffffffu;

	pthread_once(&once, crc_init);
#if defined(__x86_64__)
	if (crc_hw)
		return ~crc_sse42(crc, buf, len);
#endif
	return ~crc_soft(crc, buf, len);
}

/* ---- md5 (RFC 1321) ---- */

struct md5 {
	uint32_t a, b, c, d;
	uint64_t len;
	unsigned char buf[64];
	size_t fill;
};

static const uint32_t md5_k[64] = {
	0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
	0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
	0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
	0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
	0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
	0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
	0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
	0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};
static const unsigned char md5_r[64] = {
	7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
	5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
	4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
	6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
};

static void md5_block(struct md5 *m, const unsigned char *p)
{
	uint32_t w[16], a = m->a, b = m->b, c = m->c, d = m->d;

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[i * 4] | (uint32_t)p[i * 4 + 1] << 8 |
		       (uint32_t)p[i * 4 + 2] << 16 | (uint32_t)p[i * 4 + 3] << 24;
	for (int i = 0; i < 64; i++) {
		uint32_t f, g, t;

		if (i < 16) {
			f = (b & c) | (~b & d);
			g = (uint32_t)i;
		} else if (i < 32) {
			f = (d & b) | (~d & c);
			g = (uint32_t)(5 * i + 1) % 16;
		} else if (i < 48) {
			f = b ^ c ^ d;
			g = (uint32_t)(3 * i + 5) % 16;
		} else {
			f = c ^ (b | ~d);
			g = (uint32_t)(7 * i) % 16;
		}
		t = d;
		d = c;
		c = b;
		f += a + md5_k[i] + w[g];
		b += (f << md5_r[i]) | (f >> (32 - md5_r[i]));
		a = t;
	}
	m->a += a;
	m->b += b;
	m->c += c;
	m->d += d;
}

void rq_md5(const void *buf, size_t len, uint8_t out[16])
{
	struct md5 m = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0, { 0 }, 0 };
	const unsigned char *p = buf;
	uint64_t bits = (uint64_t)len * 8;
	unsigned char tail[128] = { 0 };
	size_t rest;

	for (; len >= 64; p += 64, len -= 64)
		md5_block(&m, p);
	memcpy(tail, p, len);
	tail[len] = 0x80;
	rest = len + 1 + 8 <= 64 ? 64 : 128;
	for (int i = 0; i < 8; i++)
		tail[rest - 8 + i] = (unsigned char)(bits >> (8 * i));
	md5_block(&m, tail);
	if (rest == 128)
		md5_block(&m, tail + 64);
	for (int i = 0; i < 4; i++) {
		out[i] = (uint8_t)(m.a >> (8 * i));
		out[4 + i] = (uint8_t)(m.b >> (8 * i));
		out[8 + i] = (uint8_t)(m.c >> (8 * i));
		out[12 + i] = (uint8_t)(m.d >> (8 * i));
	}
}

/* ---- fill and check ---- */

static void fill_data(const struct rq_job *job, unsigned char *p, size_t len, uint64_t seed)
{
	if (job->verify_pattern_len) {
		for (size_t i = 0; i < len; i++)
			p[i] = job->verify_pattern[i % job->verify_pattern_len];
		return;
	}
	uint64_t x = seed | 1;

	for (size_t i = 0; i < len; i += 8) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		uint64_t v = x * 0x2545f4914f6cdd1dULL;

		memcpy(p + i, &v, len - i < 8 ? len - i : 8);
	}
}

static void digest(enum rq_verify type, const unsigned char *p, size_t len, uint8_t out[16])
{
	memset(out, 0, 16);
	if (type == RQ_VERIFY_META)
		return;		/* the header alone: where and when the block was written */
	if (type == RQ_VERIFY_MD5) {
		rq_md5(p, len, out);
	} else {
		uint32_t c = rq_crc32c(p, len);

		memcpy(out, &c, 4);
	}
}

/*
 * fio's verify_offset: the header is swapped with the bytes this far into
 * the interval after the digest is taken; 0 when it would not fit.
 */
static uint32_t hdr_at(const struct rq_job *job, uint32_t len)
{
	uint32_t o = job->verify_offset;

	return o && (uint64_t)o + RQ_VHDR_LEN <= len ? o : 0;
}

static void swap_hdr(unsigned char *p, uint32_t at)
{
	unsigned char t[RQ_VHDR_LEN];

	memcpy(t, p, RQ_VHDR_LEN);
	memcpy(p, p + at, RQ_VHDR_LEN);
	memcpy(p + at, t, RQ_VHDR_LEN);
}

static void fill_one(const struct rq_job *job, unsigned char *p, uint64_t offset, uint32_t len,
		     uint64_t seed, uint64_t seq)
{
	struct vhdr h;
	uint32_t at;

	if (job->verify == RQ_VERIFY_PATTERN || len < RQ_VHDR_LEN) {
		fill_data(job, p, len, seed);
		return;
	}
	fill_data(job, p + RQ_VHDR_LEN, len - RQ_VHDR_LEN, seed);
	memset(&h, 0, sizeof(h));
	h.magic = VHDR_MAGIC;
	h.offset = offset;
	h.len = len;
	h.type = (uint32_t)job->verify;
	h.seed = seed;
	h.seq = seq;
	digest(job->verify, p + RQ_VHDR_LEN, len - RQ_VHDR_LEN, h.digest);
	h.hdr_crc = rq_crc32c(&h, offsetof(struct vhdr, hdr_crc));
	memcpy(p, &h, sizeof(h));
	at = hdr_at(job, len);
	if (at)
		swap_hdr(p, at);
}

/* The intervals of a block: verify_interval bytes each, the last one shorter. */
static uint32_t interval(const struct rq_job *job, uint32_t len)
{
	return job->verify_interval && job->verify_interval < len ? job->verify_interval : len;
}

void rq_verify_fill(const struct rq_job *job, void *buf, uint64_t offset, uint32_t len,
		    uint64_t seed, uint64_t seq)
{
	uint32_t iv = interval(job, len);

	for (uint32_t i = 0; i < len; i += iv) {
		uint32_t n = len - i < iv ? len - i : iv;

		fill_one(job, (unsigned char *)buf + i, offset + i, n, seed + i, seq);
	}
}

static void hex(char *out, const uint8_t *d, int n)
{
	for (int i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

static int check_pattern(const struct rq_job *job, const unsigned char *p, uint64_t offset,
			 uint32_t len, char *msg, size_t msglen)
{
	for (uint32_t i = 0; job->verify_pattern_len && i < len; i++) {
		unsigned char want = job->verify_pattern[i % job->verify_pattern_len];

		if (p[i] != want) {
			snprintf(msg, msglen, "offset %" PRIu64 ": pattern byte expected 0x%02x, "
				 "found 0x%02x", offset + i, want, p[i]);
			return -EILSEQ;
		}
	}
	return 0;
}

/*
 * One interval, @at_byte bytes into its block; seq is the write it must come
 * from, UINT64_MAX for any; @stream and @newer_below as
 * rq_verify_check_replay() (0: no later write is accepted).
 */
static int check_one(const struct rq_job *job, const unsigned char *p, uint64_t offset, uint32_t len,
		     uint32_t at_byte, uint64_t seq, const uint64_t *stream, uint64_t newer_below,
		     char *msg, size_t msglen)
{
	uint8_t d[16];
	struct vhdr h;

	if (job->verify == RQ_VERIFY_PATTERN || len < RQ_VHDR_LEN)
		return check_pattern(job, p, offset, len, msg, msglen);
	memcpy(&h, p, sizeof(h));
	if (h.magic != VHDR_MAGIC) {
		snprintf(msg, msglen, "offset %" PRIu64 ": no verify header (magic expected 0x%016" PRIx64
			 ", found 0x%016" PRIx64 ")", offset, (uint64_t)VHDR_MAGIC, h.magic);
		return -EILSEQ;
	}
	if (h.hdr_crc != rq_crc32c(&h, offsetof(struct vhdr, hdr_crc))) {
		snprintf(msg, msglen, "offset %" PRIu64 ": verify header is corrupt (header crc32c)", offset);
		return -EILSEQ;
	}
	if (h.offset != offset || h.len != len) {
		snprintf(msg, msglen, "offset %" PRIu64 ": block written for offset %" PRIu64
			 " len %u, expected offset %" PRIu64 " len %u", offset, h.offset, h.len, offset, len);
		return -EILSEQ;
	}
	if (h.type != (uint32_t)job->verify) {
		snprintf(msg, msglen, "offset %" PRIu64 ": verify type %u, expected %u", offset, h.type,
			 (unsigned int)job->verify);
		return -EILSEQ;
	}
	/* verify=meta has no digest (both are zero): the header's seq still finds a lost write */
	digest(job->verify, p + RQ_VHDR_LEN, len - RQ_VHDR_LEN, d);
	if (stream && h.seed != (*stream ^ h.seq) + at_byte) {
		if (!newer_below)
			seq = UINT64_MAX;	/* another stream's numbering: not judged */
	} else if (stream && seq != UINT64_MAX && h.seq > seq && h.seq < newer_below) {
		seq = h.seq;		/* a later write of the sequence: judged when it is replayed */
	}
	if (!memcmp(d, h.digest, 16) && seq != UINT64_MAX && h.seq != seq) {
		snprintf(msg, msglen, "offset %" PRIu64 ": stale block: whole, but from write #%" PRIu64
			 ", expected write #%" PRIu64 " (a lost write)", offset, h.seq, seq);
		return -EILSEQ;
	}
	if (job->verify == RQ_VERIFY_META)	/* and the pattern, when one is given */
		return check_pattern(job, p + RQ_VHDR_LEN, offset + RQ_VHDR_LEN, len - RQ_VHDR_LEN,
				     msg, msglen);
	if (memcmp(d, h.digest, 16)) {
		char want[33], found[33], where[96] = "";
		int n = job->verify == RQ_VERIFY_MD5 ? 16 : 4;
		unsigned char *exp = malloc(len);

		/* the header is whole, so its seed regenerates the data: name the first bad byte */
		if (exp) {
			fill_data(job, exp, len - RQ_VHDR_LEN, h.seed);
			for (uint32_t i = 0; i < len - RQ_VHDR_LEN; i++) {
				if (exp[i] != p[RQ_VHDR_LEN + i]) {
					snprintf(where, sizeof(where), "; first bad byte at offset %" PRIu64
						 " (expected 0x%02x, found 0x%02x)", offset + RQ_VHDR_LEN + i,
						 exp[i], p[RQ_VHDR_LEN + i]);
					break;
				}
			}
			free(exp);
		}
		hex(want, h.digest, n);
		hex(found, d, n);
		snprintf(msg, msglen, "offset %" PRIu64 ": %s mismatch: expected %s, found %s%s", offset,
			 job->verify == RQ_VERIFY_MD5 ? "md5" : "crc32c", want, found, where);
		return -EILSEQ;
	}
	return 0;
}

int rq_verify_check(const struct rq_job *job, const void *buf, uint64_t offset, uint32_t len,
		    char *msg, size_t msglen)
{
	return rq_verify_check_seq(job, buf, offset, len, UINT64_MAX, NULL, msg, msglen);
}

int rq_verify_check_seq(const struct rq_job *job, const void *buf, uint64_t offset, uint32_t len,
			uint64_t seq, const uint64_t *stream, char *msg, size_t msglen)
{
	return rq_verify_check_replay(job, buf, offset, len, seq, stream, 0, msg, msglen);
}

int rq_verify_check_replay(const struct rq_job *job, const void *buf, uint64_t offset, uint32_t len,
			   uint64_t seq, const uint64_t *stream, uint64_t newer_below, char *msg,
			   size_t msglen)
{
	uint32_t iv = interval(job, len);

	for (uint32_t i = 0; i < len; i += iv) {
		uint32_t n = len - i < iv ? len - i : iv, at = hdr_at(job, n);
		const unsigned char *p = (const unsigned char *)buf + i;
		unsigned char *copy = NULL;
		int ret;

		if (at && job->verify != RQ_VERIFY_PATTERN) {
			/* verify_offset: put the header back where the digest expects it */
			copy = malloc(n);
			if (!copy) {
				snprintf(msg, msglen, "offset %" PRIu64 ": out of memory", offset + i);
				return -ENOMEM;
			}
			memcpy(copy, p, n);
			swap_hdr(copy, at);
			p = copy;
		}
		ret = check_one(job, p, offset + i, n, i, seq, stream, newer_below, msg, msglen);
		free(copy);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * A block trim_percentage trimmed (trim_verify_zero): every byte must be
 * zero, as fio's verify_trimmed_io_u() wants; the first one that is not
 * is named.
 */
int rq_verify_check_zero(const void *buf, uint64_t offset, uint32_t len, char *msg, size_t msglen)
{
	const unsigned char *p = buf;

	for (uint32_t i = 0; i < len; i++) {
		if (!p[i])
			continue;
		snprintf(msg, msglen, "offset %" PRIu64 ", length %u: trimmed, yet byte %u reads 0x%02x, "
			 "not zero (trim_verify_zero)", offset, len, i, p[i]);
		return -EILSEQ;
	}
	return 0;
}
