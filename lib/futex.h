/* SPDX-License-Identifier: MIT */
/*
 * futex.h - the two futex calls rqlock makes (private futexes only).
 */
#ifndef RQ_FUTEX_H
#define RQ_FUTEX_H

#include <linux/futex.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Sleep while *@w == @val, at most @ns (0: no limit), or until woken. */
static inline void rq_futex_wait(_Atomic uint32_t *w, uint32_t val, long ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000L, .tv_nsec = ns % 1000000000L };

	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, val, ns ? &ts : NULL, NULL, 0);
}

/* Wake one sleeper on @w. */
static inline void rq_futex_wake(_Atomic uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

#endif /* RQ_FUTEX_H */
