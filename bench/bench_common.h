/* SPDX-License-Identifier: MIT */
/*
 * bench_common.h — timing helpers shared by the benchmarks: a monotonic
 * clock, medians over repeated runs, and the machine line printed above
 * every table. Benchmarks print; they never fail on time.
 */
#ifndef TEMPO_BENCH_COMMON_H
#define TEMPO_BENCH_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

/* FILETIME's 100 ns units as seconds. */
static inline double bench_filetime_s(FILETIME f)
{
    ULARGE_INTEGER u;
    u.LowPart = f.dwLowDateTime;
    u.HighPart = f.dwHighDateTime;
    return (double)u.QuadPart * 1e-7;
}

static inline double bench_now(void)
{
    LARGE_INTEGER c, hz;
    QueryPerformanceCounter(&c);
    QueryPerformanceFrequency(&hz);
    return (double)c.QuadPart / (double)hz.QuadPart;
}

/* As on POSIX below: CPU time, user and kernel, of the process or thread.
 * Windows counts it in scheduler ticks (about 15.6 ms), so only long
 * stretches read meaningfully. */
static inline double bench_cpu_now(void)
{
    FILETIME created, exited, kernel, user;
    if (!GetProcessTimes(GetCurrentProcess(), &created, &exited, &kernel, &user))
        return 0.0;
    return bench_filetime_s(kernel) + bench_filetime_s(user);
}

static inline double bench_thread_cpu_now(void)
{
    FILETIME created, exited, kernel, user;
    if (!GetThreadTimes(GetCurrentThread(), &created, &exited, &kernel, &user))
        return 0.0;
    return bench_filetime_s(kernel) + bench_filetime_s(user);
}
#else
#include <time.h>

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of this process (every thread, user and system), seconds:
 * unlike bench_now it does not count the time other processes of a busy
 * machine held the CPU. A system call, so read it around long stretches. */
static inline double bench_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of the calling thread, seconds: what code between two reads
 * cost when other work of the process (clients, peers) runs in the same
 * thread outside them. A system call, as bench_cpu_now. */
static inline double bench_thread_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
#endif

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of n samples (sorts them). */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Keep the compiler from discarding a computed value. */
static inline void bench_keep(uint64_t v)
{
    static volatile uint64_t sink;
    sink ^= v;
    (void)sink; /* a volatile read: counts as a use for clang */
}

/* One line naming the machine the numbers come from. */
static inline void bench_machine_line(void)
{
    char model[256] = "unknown CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                char *c = strchr(line, ':');
                if (c) {
                    snprintf(model, sizeof model, "%s", c + 2);
                    model[strcspn(model, "\n")] = 0;
                }
                break;
            }
        }
        fclose(f);
    }
    printf("machine: %s\n", model);
}

#endif /* TEMPO_BENCH_COMMON_H */
