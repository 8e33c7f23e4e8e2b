/* SPDX-License-Identifier: MIT */
/*
 * compiler.h - the few compiler and CPU helpers every folder uses:
 * container_of, the cache-line size, likely/unlikely, cpu_relax.
 * Header only; depends on nothing.
 */
#ifndef RQ_COMPILER_H
#define RQ_COMPILER_H

#include <stddef.h>

/* Lines are 64 bytes on every CPU rqlock runs on (x86-64, arm64 Neoverse). */
#define RQ_CACHELINE 64
#define RQ_ALIGNED __attribute__((aligned(RQ_CACHELINE)))

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))
#endif

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

/* One spin-wait hint: PAUSE on x86, YIELD on arm64, nothing elsewhere. */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

#endif /* RQ_COMPILER_H */
