/* SPDX-License-Identifier: MIT */
/*
 * fio_proto.h - fio 3.33's client/server wire format, as rqlock speaks it.
 *
 * Facts from fio-3.33 (server.h, server.c, client.c, stat.h, crc/crc16.c,
 * lib/ieee754.c), checked against packets captured from Debian's fio 3.33
 * (`fio --server=sock:...` behind a logging proxy; docs/SERVER.md):
 *
 * - Every packet is a 24-byte header, then pdu_len bytes of payload:
 *       u16 version   FIO_SERVER_VER, 97 in fio 3.33
 *       u16 opcode
 *       u32 flags     bit 0 (F_MORE): another fragment of this command follows
 *       u64 tag       echoed in a reply (PROBE, SEND_ETA -> ETA)
 *       u32 pdu_len   this fragment's payload, at most 1024 bytes
 *       u16 cmd_crc16 over the 20 bytes before it (version..pdu_len)
 *       u16 pdu_crc16 over this fragment's payload
 *   All integers are LITTLE-endian on the wire (server.h: "On-wire encoding
 *   is little endian"; fio uses cpu_to_le*, not network byte order).
 *   Doubles travel as their IEEE-754 binary64 bits in a little-endian u64
 *   (pack754(x, 64, 11) gives exactly those bits for normal numbers) inside
 *   a 16-byte fio_fp64_t whose last 8 bytes are zero.
 * - crc16 is CRC-16/ARC: polynomial 0x8005 reflected (0xA001), initial 0,
 *   no final xor.
 * - Commands longer than 1024 bytes go as fragments with F_MORE set on all
 *   but the last; the receiver joins them and refuses a fragment whose
 *   opcode differs from the first.  fio caps a joined command at 2 GiB; we
 *   cap it at RQ_FIO_MAX_CMD (job files are small).
 *
 * This header holds the constants, the payload layouts (packed, little
 * endian) and the receive side: a byte-stream reassembler that never
 * trusts a length it has not checked.  It depends on nothing else in
 * rqlock, so the fuzz target builds it alone.
 */
#ifndef RQ_FIO_PROTO_H
#define RQ_FIO_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FIO_SERVER_VER		97	/* fio 3.33 */
#define FIO_NET_PORT		8765
#define FIO_MAX_FRAGMENT_PDU	1024
#define FIO_NET_HDR_LEN		24
#define FIO_NET_CRC_LEN		20	/* the header bytes cmd_crc16 covers */
#define FIO_NET_CMD_F_MORE	(1u << 0)
#define FIO_NET_NAME_MAX	256
#define FIO_PROBE_FLAG_ZLIB	(1u << 0)

/* A joined command larger than this is refused (a job file is a few KiB). */
#define RQ_FIO_MAX_CMD		(1u << 20)

enum fio_net_op {
	FIO_NET_CMD_QUIT = 1,
	FIO_NET_CMD_EXIT = 2,
	FIO_NET_CMD_JOB = 3,
	FIO_NET_CMD_JOBLINE = 4,
	FIO_NET_CMD_TEXT = 5,
	FIO_NET_CMD_TS = 6,
	FIO_NET_CMD_GS = 7,
	FIO_NET_CMD_SEND_ETA = 8,
	FIO_NET_CMD_ETA = 9,
	FIO_NET_CMD_PROBE = 10,
	FIO_NET_CMD_START = 11,
	FIO_NET_CMD_STOP = 12,
	FIO_NET_CMD_DU = 13,
	FIO_NET_CMD_SERVER_START = 14,
	FIO_NET_CMD_ADD_JOB = 15,
	FIO_NET_CMD_RUN = 16,
	FIO_NET_CMD_IOLOG = 17,
	FIO_NET_CMD_UPDATE_JOB = 18,
	FIO_NET_CMD_LOAD_FILE = 19,
	FIO_NET_CMD_VTRIGGER = 20,
	FIO_NET_CMD_SENDFILE = 21,
	FIO_NET_CMD_JOB_OPT = 22,
	FIO_NET_CMD_NR = 23,
};

/* fio's log levels in a TEXT pdu (log.h: FIO_LOG_DEBUG, INFO, ERR) */
enum { FIO_LOG_DEBUG = 1, FIO_LOG_INFO = 2, FIO_LOG_ERR = 3 };

/*
 * fio's os/arch numbers in the probe reply (os/os.h, arch/arch.h), and
 * FIO_ARCH_HOST, this build's.  fio sends the arch it was compiled for
 * (arch/arch.h picks it by the compiler's macros), as it sends bpp, the
 * pointer size: a 32-bit build on a 64-bit kernel says x86.
 */
enum { FIO_OS_LINUX = 1 };
enum { FIO_ARCH_X86_64 = 1, FIO_ARCH_X86 = 2, FIO_ARCH_PPC = 3, FIO_ARCH_S390 = 5,
       FIO_ARCH_ARM = 9, FIO_ARCH_AARCH64 = 13, FIO_ARCH_GENERIC = 14 };
#if defined(__x86_64__)
#define FIO_ARCH_HOST FIO_ARCH_X86_64
#elif defined(__i386__)
#define FIO_ARCH_HOST FIO_ARCH_X86
#elif defined(__aarch64__)
#define FIO_ARCH_HOST FIO_ARCH_AARCH64
#elif defined(__arm__)
#define FIO_ARCH_HOST FIO_ARCH_ARM
#elif defined(__powerpc__)
#define FIO_ARCH_HOST FIO_ARCH_PPC
#elif defined(__s390__)
#define FIO_ARCH_HOST FIO_ARCH_S390
#else
#define FIO_ARCH_HOST FIO_ARCH_GENERIC
#endif

/* client -> server PROBE */
struct fio_probe_pdu {
	uint64_t flags;
	uint8_t server[128];
} __attribute__((packed));

/* server -> client PROBE reply */
struct fio_probe_reply_pdu {
	uint8_t hostname[64];
	uint8_t bigendian;
	uint8_t fio_version[32];
	uint8_t os;
	uint8_t arch;
	uint8_t bpp;
	uint32_t cpus;
	uint64_t flags;
} __attribute__((packed));

/* client -> server JOB: buf_len bytes of job file (fio adds 8 KiB of slack, NUL filled) */
struct fio_job_pdu {
	uint32_t buf_len;
	uint32_t client_type;
	uint8_t buf[];
} __attribute__((packed));

/* client -> server JOBLINE: lines x { u16 len (with the NUL); text } */
struct fio_line_pdu {
	uint16_t lines;
	uint16_t client_type;
} __attribute__((packed));

/* client -> server LOAD_FILE: a path on the server */
struct fio_load_file_pdu {
	uint16_t name_len;
	uint16_t client_type;
	uint8_t file[];
} __attribute__((packed));

/* server -> client START: jobs (threads) and stat outputs (TS packets to come) */
struct fio_start_pdu {
	uint32_t jobs;
	uint32_t stat_outputs;
} __attribute__((packed));

/* server -> client STOP */
struct fio_end_pdu {
	uint32_t error;
	uint32_t signal;
} __attribute__((packed));

/* server -> client TEXT */
struct fio_text_pdu {
	uint32_t level;
	uint32_t buf_len;
	uint64_t log_sec;
	uint64_t log_usec;
	uint8_t buf[];
} __attribute__((packed));

/* server -> client JOB_OPT: one "job options"/"global options" pair */
struct fio_job_opt_pdu {
	uint16_t global;
	uint16_t truncated;
	uint32_t groupid;		/* index of the TS it belongs to */
	uint8_t name[64];
	uint8_t value[128];
} __attribute__((packed));

/* server -> client ETA (stat.h JOBS_ETA, without run_str): 168 bytes */
struct fio_eta_pdu {
	uint32_t nr_running, nr_ramp, nr_pending, nr_setting_up;
	uint64_t m_rate[3], t_rate[3], rate[3];
	uint32_t m_iops[3], t_iops[3], iops[3];
	uint32_t pad;
	uint64_t elapsed_sec, eta_sec;
	uint32_t is_pow2, unit_base, sig_figs, files_open, nr_threads, pad2;
} __attribute__((packed));

/* ---- FIO_NET_CMD_TS: struct cmd_ts_pdu = thread_stat + group_run_stats ---- */

#define FIO_DDIR_CNT		3	/* read, write, trim */
#define FIO_DDIR_SYNC_CNT	4
#define FIO_LAT_CNT		3	/* slat, clat, lat */
#define FIO_PLAT_NR		(29 * 64)
#define FIO_LIST_MAX		20
#define FIO_MAP_NR		7
#define FIO_LAT_N_NR		10
#define FIO_LAT_U_NR		10
#define FIO_LAT_M_NR		12
#define FIO_MAX_BLOCK_INFOS	8192

/*
 * thread_stat.ss_state: fio's steady-state flags (steadystate.h).  With
 * FIO_SS_DATA the TS carries ss_dur u64 IOPS samples at
 * ss_iops_data_offset and as many bytes/s at ss_bw_data_offset (from the
 * payload's start, after any clat_prio records), a ring whose first
 * sample is at ss_head - or one before it, when the window was full
 * (BUFFER_FULL) and not attained.  A client renders "steadystate" when
 * ss_dur is not 0, and reads the samples then, so a server sends ss_dur
 * only with FIO_SS_DATA.
 */
enum {
	FIO_SS_IOPS = 1u << 0,
	FIO_SS_BW = 1u << 1,
	FIO_SS_SLOPE = 1u << 2,
	FIO_SS_ATTAINED = 1u << 3,
	FIO_SS_RAMP_OVER = 1u << 4,
	FIO_SS_DATA = 1u << 5,
	FIO_SS_PCT = 1u << 6,
	FIO_SS_BUFFER_FULL = 1u << 7,
};

struct fio_wire_fp64 {
	uint64_t bits;			/* IEEE-754 binary64, little endian */
	uint8_t pad[8];
} __attribute__((packed));

struct fio_wire_io_stat {
	uint64_t max_val, min_val, samples;
	struct fio_wire_fp64 mean, S;	/* S: sum of squared deviations */
} __attribute__((packed));

/*
 * fio's struct thread_stat is packed, but its sync_stat carries
 * aligned(8): that puts 4 bytes of padding before sync_stat and rounds
 * the size up to a multiple of 8 (183888 bytes).  Spelled out here with
 * explicit pads, and the offsets asserted in fio_proto.c.
 */
struct fio_wire_ts {
	char name[128];
	char verror[128];
	uint32_t error, thread_number, groupid, pid;
	char description[256];
	uint32_t members, unified_rw_rep, disable_prio_stat;
	uint8_t pad_align[4];
	struct fio_wire_io_stat sync_stat;
	struct fio_wire_io_stat clat_stat[FIO_DDIR_CNT];
	struct fio_wire_io_stat slat_stat[FIO_DDIR_CNT];
	struct fio_wire_io_stat lat_stat[FIO_DDIR_CNT];
	struct fio_wire_io_stat bw_stat[FIO_DDIR_CNT];
	struct fio_wire_io_stat iops_stat[FIO_DDIR_CNT];
	uint64_t usr_time, sys_time, ctx, minf, majf;	/* ms, ms, counts */
	uint32_t clat_percentiles, lat_percentiles, slat_percentiles, pad;
	uint64_t percentile_precision;
	struct fio_wire_fp64 percentile_list[FIO_LIST_MAX];
	uint64_t io_u_map[FIO_MAP_NR], io_u_submit[FIO_MAP_NR], io_u_complete[FIO_MAP_NR];
	uint64_t io_u_lat_n[FIO_LAT_N_NR], io_u_lat_u[FIO_LAT_U_NR], io_u_lat_m[FIO_LAT_M_NR];
	uint64_t io_u_plat[FIO_LAT_CNT][FIO_DDIR_CNT][FIO_PLAT_NR];
	uint64_t io_u_sync_plat[FIO_PLAT_NR];
	uint64_t total_io_u[FIO_DDIR_SYNC_CNT];
	uint64_t short_io_u[FIO_DDIR_CNT], drop_io_u[FIO_DDIR_CNT];
	uint64_t total_submit, total_complete;
	uint64_t io_bytes[FIO_DDIR_CNT], runtime[FIO_DDIR_CNT];	/* bytes, ms */
	uint64_t total_run_time;	/* ms */
	uint32_t continue_on_error;	/* a u16 in a u32 union */
	uint32_t first_error;
	uint64_t total_err_count;
	uint64_t nr_zone_resets;
	uint64_t nr_block_infos;
	uint32_t block_infos[FIO_MAX_BLOCK_INFOS];
	uint32_t kb_base, unit_base;
	uint32_t latency_depth, pad3;
	uint64_t latency_target;
	struct fio_wire_fp64 latency_percentile;
	uint64_t latency_window;
	uint32_t sig_figs;
	uint64_t ss_dur;
	uint32_t ss_state, ss_head;
	struct fio_wire_fp64 ss_limit, ss_slope, ss_deviation, ss_criterion;
	uint32_t ioprio;
	uint64_t ss_iops_data_offset, ss_bw_data_offset;
	/* offsets of clat_prio arrays appended after the pdu; unions of pointers in fio */
	uint64_t clat_prio_offset[FIO_DDIR_CNT];
	uint32_t nr_clat_prio[FIO_DDIR_CNT];
	uint64_t cachehit, cachemiss;
	uint8_t pad_tail[4];
} __attribute__((packed));

struct fio_wire_gs {
	uint64_t max_run[FIO_DDIR_CNT], min_run[FIO_DDIR_CNT];	/* ms */
	uint64_t max_bw[FIO_DDIR_CNT], min_bw[FIO_DDIR_CNT];	/* bytes/s */
	uint64_t iobytes[FIO_DDIR_CNT];
	uint64_t agg[FIO_DDIR_CNT];				/* bytes/s */
	uint32_t kb_base, unit_base, sig_figs, groupid, unified_rw_rep;
} __attribute__((packed));

/*
 * fio's struct clat_prio_stat (3.33 stat.h): one I/O priority's latencies
 * (clat, or lat under lat_percentiles), appended after the pdu per
 * direction at ts.clat_prio_offset[d], ts.nr_clat_prio[d] of them; not
 * packed in fio, so 8-aligned.
 */
struct fio_wire_clat_prio {
	uint64_t io_u_plat[FIO_PLAT_NR];
	struct fio_wire_io_stat clat_stat;
	uint32_t ioprio;
	uint8_t pad[4];
} __attribute__((packed));

struct fio_wire_ts_pdu {
	struct fio_wire_ts ts;
	struct fio_wire_gs rs;
	uint8_t pad_tail[4];		/* cmd_ts_pdu is 8-aligned: 184056 bytes */
} __attribute__((packed));

/* ---- checksums and headers ---- */

/* CRC-16/ARC of @len bytes, as fio's fio_crc16(). */
uint16_t rq_fio_crc16(const void *buf, size_t len);

struct fio_net_hdr {
	uint16_t version;
	uint16_t opcode;
	uint32_t flags;
	uint64_t tag;
	uint32_t pdu_len;
	uint16_t cmd_crc16;
	uint16_t pdu_crc16;
};

/* Encode a header for @pdu (its crc too) into @out (FIO_NET_HDR_LEN bytes). */
void rq_fio_hdr_encode(uint8_t *out, uint16_t opcode, uint32_t flags, uint64_t tag,
		       const void *pdu, uint32_t pdu_len);

/*
 * ---- the receive side ----
 *
 * struct rq_fio_rx takes bytes as they arrive (rq_fio_rx_feed) and hands
 * out whole commands, fragments joined.  Every header is checked before
 * its payload is awaited: header crc, version, fragment size, total size,
 * opcode range and fragment continuity; the payload crc when it is in.
 * After an error the stream is out of step and the connection must be
 * dropped: the reassembler stays in its error state.
 */
enum rq_fio_rx_status {
	RQ_FIO_RX_MORE = 0,		/* need more bytes */
	RQ_FIO_RX_CMD = 1,		/* a whole command is ready (rq_fio_rx_cmd) */
	RQ_FIO_RX_BAD_HDR_CRC = -1,
	RQ_FIO_RX_BAD_VERSION = -2,
	RQ_FIO_RX_TOO_BIG = -3,		/* a fragment > 1024 or a command > RQ_FIO_MAX_CMD */
	RQ_FIO_RX_BAD_PDU_CRC = -4,
	RQ_FIO_RX_BAD_OPCODE = -5,
	RQ_FIO_RX_FRAG_MISMATCH = -6,	/* a fragment of another opcode */
	RQ_FIO_RX_NOMEM = -7,
};

struct rq_fio_rx {
	uint8_t hdr[FIO_NET_HDR_LEN];
	size_t hdr_have;		/* header bytes in hdr[] */
	struct fio_net_hdr cur;		/* the fragment being received, decoded */
	size_t frag_have;		/* its payload bytes received */
	bool in_frag;			/* header done, payload pending */
	uint16_t opcode;		/* of the command being joined */
	uint64_t tag;
	uint16_t version;		/* of its first fragment (for the log line) */
	uint8_t *buf;			/* joined payload, +1 byte for a NUL */
	size_t len, cap;
	bool joining;			/* a fragment with F_MORE was seen */
	bool ready;			/* a command is complete: rq_fio_rx_cmd() */
	int error;			/* sticky enum rq_fio_rx_status < 0 */
};

void rq_fio_rx_init(struct rq_fio_rx *rx);
void rq_fio_rx_free(struct rq_fio_rx *rx);
/*
 * Consume up to @len bytes; stops after a whole command (so the caller
 * handles one at a time).  *@used says how many were consumed.  Returns
 * an enum rq_fio_rx_status.
 */
int rq_fio_rx_feed(struct rq_fio_rx *rx, const uint8_t *data, size_t len, size_t *used);
/* true when no partial packet is pending (between commands). */
bool rq_fio_rx_idle(const struct rq_fio_rx *rx);

struct rq_fio_cmd {
	uint16_t opcode;
	uint64_t tag;
	const uint8_t *pdu;		/* NUL-terminated copy, len bytes before the NUL */
	size_t len;
};

/* The ready command; valid until the next rq_fio_rx_feed(). */
void rq_fio_rx_cmd(struct rq_fio_rx *rx, struct rq_fio_cmd *cmd);
const char *rq_fio_rx_strerror(int status);
const char *rq_fio_op_name(unsigned int op);

/* ---- payload decoders: bounds-checked, never past @cmd->len ---- */

/*
 * JOB: the job file text, up to its first NUL or buf_len, whichever comes
 * first.  Returns 0 and sets @text/@len, or -EINVAL when the pdu is short
 * or buf_len points past it.
 */
int rq_fio_job_text(const struct rq_fio_cmd *cmd, const char **text, size_t *len);
/*
 * JOBLINE: call @fn for each argument (NUL-terminated inside the pdu).
 * Returns the number of lines, -EINVAL if any line runs past the pdu or
 * is not terminated, or the first negative value @fn returned.
 */
int rq_fio_jobline_each(const struct rq_fio_cmd *cmd, int (*fn)(const char *arg, void *priv),
			void *priv);
/* LOAD_FILE: the path named, bounded; -EINVAL if malformed. */
int rq_fio_load_file_name(const struct rq_fio_cmd *cmd, char *out, size_t outlen);

#endif /* RQ_FIO_PROTO_H */
