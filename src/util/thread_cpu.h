/* SPDX-License-Identifier: GPL-3.0-or-later */
/* thread_cpu.h: the calling thread's CPU time, for the per-stage figures
 * backup prints. It is a system call (no vDSO for the thread clock, about
 * 0.5 us here): callers read it per block or per thread, not per chunk. */
#ifndef DESTOR_THREAD_CPU_H
#define DESTOR_THREAD_CPU_H

#include <time.h>

static inline double thread_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
