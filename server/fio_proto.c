// SPDX-License-Identifier: MIT
/*
 * fio_proto.c - fio 3.33's packet format: crc16, headers, the receive-side
 * reassembler and the decoders of what a client sends.  Written from the
 * format's description (fio_proto.h), not from fio's code.  No I/O here:
 * the fuzz target (tests/fuzz/fuzz_fioproto.c) drives it with bytes.
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "server/fio_proto.h"

/* The layouts fio's compiler gives its structs (checked against captures too). */
_Static_assert(sizeof(struct fio_probe_pdu) == 136, "cmd_client_probe_pdu");
_Static_assert(sizeof(struct fio_probe_reply_pdu) == 112, "cmd_probe_reply_pdu");
_Static_assert(sizeof(struct fio_text_pdu) == 24, "cmd_text_pdu");
_Static_assert(sizeof(struct fio_job_opt_pdu) == 200, "cmd_job_option");
_Static_assert(sizeof(struct fio_eta_pdu) == 168, "jobs_eta");
_Static_assert(sizeof(struct fio_wire_io_stat) == 56, "io_stat");
_Static_assert(offsetof(struct fio_wire_ts, description) == 272, "thread_stat.description");
_Static_assert(offsetof(struct fio_wire_ts, sync_stat) == 544, "thread_stat.sync_stat (aligned 8)");
_Static_assert(offsetof(struct fio_wire_ts, usr_time) == 1440, "thread_stat.usr_time");
_Static_assert(offsetof(struct fio_wire_ts, percentile_list) == 1504, "thread_stat.percentile_list");
_Static_assert(offsetof(struct fio_wire_ts, io_u_plat) == 2248, "thread_stat.io_u_plat");
_Static_assert(offsetof(struct fio_wire_ts, total_io_u) == 150728, "thread_stat.total_io_u");
_Static_assert(offsetof(struct fio_wire_ts, io_bytes) == 150824, "thread_stat.io_bytes");
_Static_assert(offsetof(struct fio_wire_ts, kb_base) == 183680, "thread_stat.kb_base");
_Static_assert(offsetof(struct fio_wire_ts, sig_figs) == 183728, "thread_stat.sig_figs");
_Static_assert(offsetof(struct fio_wire_ts, ioprio) == 183812, "thread_stat.ioprio");
_Static_assert(offsetof(struct fio_wire_ts, nr_clat_prio) == 183856, "thread_stat.nr_clat_prio");
_Static_assert(sizeof(struct fio_wire_clat_prio) == 14912, "struct clat_prio_stat");
_Static_assert(sizeof(struct fio_wire_ts) == 183888, "thread_stat");
_Static_assert(sizeof(struct fio_wire_gs) == 164, "group_run_stats");
_Static_assert(sizeof(struct fio_wire_ts_pdu) == 184056, "cmd_ts_pdu");

/* CRC-16/ARC, bit by bit: 0xA001 is 0x8005 reflected.  Headers are 20 bytes, pdus <= 1 KiB. */
uint16_t rq_fio_crc16(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint16_t crc = 0;

	while (len--) {
		crc ^= *p++;
		for (int i = 0; i < 8; i++)
			crc = (crc & 1) ? (uint16_t)((crc >> 1) ^ 0xA001) : (uint16_t)(crc >> 1);
	}
	return crc;
}

static void put16(uint8_t *p, uint16_t v) { v = htole16(v); memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { v = htole32(v); memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { v = htole64(v); memcpy(p, &v, 8); }
static uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return le16toh(v); }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return le32toh(v); }
static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return le64toh(v); }

void rq_fio_hdr_encode(uint8_t *out, uint16_t opcode, uint32_t flags, uint64_t tag,
		       const void *pdu, uint32_t pdu_len)
{
	put16(out + 0, FIO_SERVER_VER);
	put16(out + 2, opcode);
	put32(out + 4, flags);
	put64(out + 8, tag);
	put32(out + 16, pdu_len);
	put16(out + 20, rq_fio_crc16(out, FIO_NET_CRC_LEN));
	put16(out + 22, pdu_len ? rq_fio_crc16(pdu, pdu_len) : 0);
}

static void hdr_decode(const uint8_t *in, struct fio_net_hdr *h)
{
	h->version = get16(in + 0);
	h->opcode = get16(in + 2);
	h->flags = get32(in + 4);
	h->tag = get64(in + 8);
	h->pdu_len = get32(in + 16);
	h->cmd_crc16 = get16(in + 20);
	h->pdu_crc16 = get16(in + 22);
}

void rq_fio_rx_init(struct rq_fio_rx *rx)
{
	memset(rx, 0, sizeof(*rx));
}

void rq_fio_rx_free(struct rq_fio_rx *rx)
{
	free(rx->buf);
	rq_fio_rx_init(rx);
}

bool rq_fio_rx_idle(const struct rq_fio_rx *rx)
{
	return !rx->hdr_have && !rx->in_frag && !rx->joining;
}

static int rx_fail(struct rq_fio_rx *rx, int status)
{
	rx->error = status;
	return status;
}

/* Make room for @more payload bytes (+1 for the NUL the decoders rely on). */
static int rx_reserve(struct rq_fio_rx *rx, size_t more)
{
	size_t need = rx->len + more + 1;
	uint8_t *p;

	if (need <= rx->cap)
		return 0;
	p = realloc(rx->buf, need);
	if (!p)
		return -ENOMEM;
	rx->buf = p;
	rx->cap = need;
	return 0;
}

/* A header is in: check it before waiting for anything it announces. */
static int rx_header(struct rq_fio_rx *rx)
{
	struct fio_net_hdr *h = &rx->cur;

	hdr_decode(rx->hdr, h);
	rx->hdr_have = 0;
	if (rq_fio_crc16(rx->hdr, FIO_NET_CRC_LEN) != h->cmd_crc16)
		return rx_fail(rx, RQ_FIO_RX_BAD_HDR_CRC);
	if (!rx->joining)
		rx->version = h->version;
	if (h->version != FIO_SERVER_VER)
		return rx_fail(rx, RQ_FIO_RX_BAD_VERSION);
	if (h->pdu_len > FIO_MAX_FRAGMENT_PDU)
		return rx_fail(rx, RQ_FIO_RX_TOO_BIG);
	if (!h->opcode || h->opcode >= FIO_NET_CMD_NR)
		return rx_fail(rx, RQ_FIO_RX_BAD_OPCODE);
	if (rx->joining) {
		if (h->opcode != rx->opcode)
			return rx_fail(rx, RQ_FIO_RX_FRAG_MISMATCH);
	} else {
		rx->opcode = h->opcode;
		rx->tag = h->tag;
		rx->len = 0;
	}
	if (rx->len + h->pdu_len > RQ_FIO_MAX_CMD)
		return rx_fail(rx, RQ_FIO_RX_TOO_BIG);
	if (rx_reserve(rx, h->pdu_len))
		return rx_fail(rx, RQ_FIO_RX_NOMEM);
	rx->in_frag = true;
	rx->frag_have = 0;
	return RQ_FIO_RX_MORE;
}

/* A fragment's payload is in: check it, and finish the command on the last one. */
static int rx_fragment(struct rq_fio_rx *rx)
{
	const struct fio_net_hdr *h = &rx->cur;

	if (h->pdu_len && rq_fio_crc16(rx->buf + rx->len, h->pdu_len) != h->pdu_crc16)
		return rx_fail(rx, RQ_FIO_RX_BAD_PDU_CRC);
	rx->len += h->pdu_len;
	rx->buf[rx->len] = '\0';
	rx->in_frag = false;
	if (h->flags & FIO_NET_CMD_F_MORE) {
		rx->joining = true;
		return RQ_FIO_RX_MORE;
	}
	rx->joining = false;
	rx->ready = true;
	return RQ_FIO_RX_CMD;
}

int rq_fio_rx_feed(struct rq_fio_rx *rx, const uint8_t *data, size_t len, size_t *used)
{
	size_t off = 0;
	int ret = RQ_FIO_RX_MORE;

	*used = 0;
	if (rx->error)
		return rx->error;
	if (rx->ready) {		/* the last command was taken: start afresh */
		rx->ready = false;
		rx->len = 0;
	}
	while (off < len && ret == RQ_FIO_RX_MORE) {
		if (!rx->in_frag) {
			size_t n = FIO_NET_HDR_LEN - rx->hdr_have;

			if (n > len - off)
				n = len - off;
			memcpy(rx->hdr + rx->hdr_have, data + off, n);
			rx->hdr_have += n;
			off += n;
			if (rx->hdr_have < FIO_NET_HDR_LEN)
				break;
			ret = rx_header(rx);
			if (ret < 0)
				break;
			/* an empty fragment is complete with its header */
			if (!rx->cur.pdu_len)
				ret = rx_fragment(rx);
		} else {
			size_t n = rx->cur.pdu_len - rx->frag_have;

			if (n > len - off)
				n = len - off;
			memcpy(rx->buf + rx->len + rx->frag_have, data + off, n);
			rx->frag_have += n;
			off += n;
			if (rx->frag_have == rx->cur.pdu_len)
				ret = rx_fragment(rx);
		}
	}
	*used = off;
	return ret;
}

void rq_fio_rx_cmd(struct rq_fio_rx *rx, struct rq_fio_cmd *cmd)
{
	static const uint8_t empty[1];

	cmd->opcode = rx->opcode;
	cmd->tag = rx->tag;
	cmd->pdu = rx->buf ? rx->buf : empty;
	cmd->len = rx->len;
}

const char *rq_fio_rx_strerror(int status)
{
	switch (status) {
	case RQ_FIO_RX_BAD_HDR_CRC: return "header checksum mismatch";
	case RQ_FIO_RX_BAD_VERSION: return "protocol version mismatch";
	case RQ_FIO_RX_TOO_BIG: return "oversized packet";
	case RQ_FIO_RX_BAD_PDU_CRC: return "payload checksum mismatch";
	case RQ_FIO_RX_BAD_OPCODE: return "unknown opcode";
	case RQ_FIO_RX_FRAG_MISMATCH: return "fragment of another command";
	case RQ_FIO_RX_NOMEM: return "out of memory";
	default: return "no error";
	}
}

const char *rq_fio_op_name(unsigned int op)
{
	static const char *const names[FIO_NET_CMD_NR] = {
		"", "QUIT", "EXIT", "JOB", "JOBLINE", "TEXT", "TS", "GS", "SEND_ETA", "ETA",
		"PROBE", "START", "STOP", "DISK_UTIL", "SERVER_START", "ADD_JOB", "RUN",
		"IOLOG", "UPDATE_JOB", "LOAD_FILE", "VTRIGGER", "SENDFILE", "JOB_OPT",
	};

	return op < FIO_NET_CMD_NR && op ? names[op] : "UNKNOWN";
}

int rq_fio_job_text(const struct rq_fio_cmd *cmd, const char **text, size_t *len)
{
	const size_t hdr = offsetof(struct fio_job_pdu, buf);
	uint32_t buf_len;
	const char *t, *nul;

	if (cmd->len < hdr)
		return -EINVAL;
	buf_len = get32(cmd->pdu);
	if (buf_len > cmd->len - hdr)
		return -EINVAL;
	t = (const char *)cmd->pdu + hdr;
	nul = memchr(t, '\0', buf_len);
	*text = t;
	*len = nul ? (size_t)(nul - t) : buf_len;
	return 0;
}

int rq_fio_jobline_each(const struct rq_fio_cmd *cmd, int (*fn)(const char *arg, void *priv),
			void *priv)
{
	size_t off = sizeof(struct fio_line_pdu);
	unsigned int lines;

	if (cmd->len < off)
		return -EINVAL;
	lines = get16(cmd->pdu);
	for (unsigned int i = 0; i < lines; i++) {
		const char *s;
		uint16_t l;
		int ret;

		if (cmd->len - off < 2)
			return -EINVAL;
		l = get16(cmd->pdu + off);
		off += 2;
		if (!l || l > cmd->len - off)
			return -EINVAL;
		s = (const char *)cmd->pdu + off;
		if (s[l - 1] != '\0' || strlen(s) != (size_t)l - 1)
			return -EINVAL;
		ret = fn(s, priv);
		if (ret < 0)
			return ret;
		off += l;
	}
	return (int)lines;
}

int rq_fio_load_file_name(const struct rq_fio_cmd *cmd, char *out, size_t outlen)
{
	const size_t hdr = offsetof(struct fio_load_file_pdu, file);
	const char *name;
	size_t n;

	if (cmd->len <= hdr || !outlen)
		return -EINVAL;
	name = (const char *)cmd->pdu + hdr;
	n = strnlen(name, cmd->len - hdr);
	if (n == cmd->len - hdr || n >= outlen)
		return -EINVAL;
	memcpy(out, name, n + 1);
	return 0;
}
