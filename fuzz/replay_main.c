/* SPDX-License-Identifier: MIT */
/*
 * replay_main.c — main() for builds without libFuzzer:
 *
 *   fuzz_<t>_replay [--mutate RUNS SEED SECONDS] PATH...
 *
 * runs the linked fuzz target once over every file named, and over every
 * file in each directory named. With --mutate it then runs the target over
 * RUNS inputs made from those files by random mutations (bit flips,
 * interesting values, inserted, erased and repeated bytes, splices of two
 * inputs: the kinds libFuzzer's default mutators apply), drawn from SEED, or
 * until SECONDS of processor time have gone, whichever comes first. A seed
 * gives the same sequence of inputs every time. On a crash (a broken
 * property aborts) the input being run is written to <program>.crash in the
 * working folder, to be replayed alone.
 *
 * Exits 1 if a path cannot be read or nothing was replayed (an empty corpus
 * is a broken setup, not a pass).
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#ifndef _WIN32
#include <fcntl.h>
#include <unistd.h>
#endif

#include "fuzz_target.h"

#define MAX_INPUT (1u << 20)
#define MAX_KEPT 4096            /* corpus inputs kept for mutation */
#define MAX_MUTATED (1u << 16)   /* bytes of a mutated input */

static uint8_t **kept;
static size_t *kept_size;
static int nkept;

/* The input being run, for the crash handler. */
static const uint8_t *volatile current;
static volatile size_t current_size;
static char crash_path[4096];

#ifndef _WIN32
static void on_crash(int sig)
{
    int fd = open(crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0 && current != NULL) {
        ssize_t w = write(fd, (const void *)current, current_size);
        (void)w;
    }
    if (fd >= 0)
        close(fd);
    static const char msg[] = "replay: the crashing input is in ";
    ssize_t w = write(2, msg, sizeof msg - 1);
    w = write(2, crash_path, strlen(crash_path));
    w = write(2, "\n", 1);
    (void)w;
    signal(sig, SIG_DFL);
    raise(sig);
}
#endif

/* The target gets a block of exactly n bytes, so ASan sees a read past it. */
static void run(const uint8_t *data, size_t n)
{
    uint8_t *input = n ? malloc(n) : NULL;
    if (n && input == NULL)
        return;
    if (n)
        memcpy(input, data, n);
    current = input;
    current_size = n;
    (void)LLVMFuzzerTestOneInput(input, n);
    current = NULL;
    free(input);
}

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return -1;
    uint8_t *data = malloc(MAX_INPUT);
    size_t n = data ? fread(data, 1, MAX_INPUT, f) : 0;
    int bad = data == NULL || ferror(f);
    fclose(f);
    if (!bad)
        run(data, n);
    if (!bad && nkept < MAX_KEPT && n <= MAX_MUTATED) {
        uint8_t *copy = malloc(n ? n : 1);
        if (copy != NULL) {
            memcpy(copy, data, n);
            kept[nkept] = copy;
            kept_size[nkept++] = n;
        }
    }
    free(data);
    return bad ? -1 : 0;
}

/* splitmix64: the mutation stream, one per seed */
static uint64_t rng_state;

static uint64_t next(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static size_t below(size_t n)
{
    return n ? (size_t)(next() % n) : 0;
}

/* One mutation of buf[0..*n), capacity MAX_MUTATED. */
static void mutate_once(uint8_t *buf, size_t *n)
{
    static const uint32_t interesting[] = {0,    1,      0x7F,   0x80,       0xFF,      0x100,
                                           0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF, 0x80000000u,
                                           0xFFFFFFFFu, 2, 16, 64, 255};
    switch (next() % 8) {
    case 0: /* flip a bit */
        if (*n)
            buf[below(*n)] ^= (uint8_t)(1u << below(8));
        break;
    case 1: /* a random byte */
        if (*n)
            buf[below(*n)] = (uint8_t)next();
        break;
    case 2: { /* an interesting value, 1, 2 or 4 bytes little endian */
        size_t w = (size_t)1 << below(3);
        if (*n >= w) {
            size_t at = below(*n - w + 1);
            uint32_t v = interesting[below(sizeof interesting / sizeof *interesting)];
            for (size_t i = 0; i < w; i++)
                buf[at + i] = (uint8_t)(v >> (8 * i));
        }
        break;
    }
    case 3: { /* insert random bytes */
        size_t k = 1 + below(8);
        if (*n + k <= MAX_MUTATED) {
            size_t at = below(*n + 1);
            memmove(buf + at + k, buf + at, *n - at);
            for (size_t i = 0; i < k; i++)
                buf[at + i] = (uint8_t)next();
            *n += k;
        }
        break;
    }
    case 4: { /* erase a range */
        if (*n) {
            size_t at = below(*n), k = 1 + below(*n - at < 16 ? *n - at : 16);
            memmove(buf + at, buf + at + k, *n - at - k);
            *n -= k;
        }
        break;
    }
    case 5: { /* repeat a range */
        if (*n) {
            size_t at = below(*n), k = 1 + below(*n - at < 32 ? *n - at : 32);
            if (*n + k <= MAX_MUTATED) {
                memmove(buf + at + k, buf + at, *n - at);
                *n += k;
            }
        }
        break;
    }
    case 6: { /* splice: the tail from another input */
        int o = (int)below((size_t)nkept);
        size_t from = below(kept_size[o] + 1), at = below(*n + 1);
        size_t k = kept_size[o] - from;
        if (at + k > MAX_MUTATED)
            k = MAX_MUTATED - at;
        memcpy(buf + at, kept[o] + from, k);
        *n = at + k;
        break;
    }
    default: /* cut the end */
        *n = below(*n + 1);
        break;
    }
}

static long mutate(long runs, uint64_t seed, double seconds)
{
    uint8_t *buf = malloc(MAX_MUTATED);
    if (buf == NULL || nkept == 0) {
        free(buf);
        return 0;
    }
    rng_state = seed;
    clock_t start = clock();
    long done = 0;
    for (; done < runs; done++) {
        if ((done & 63) == 0 && (double)(clock() - start) >= seconds * CLOCKS_PER_SEC)
            break;
        int o = (int)below((size_t)nkept);
        size_t n = kept_size[o];
        memcpy(buf, kept[o], n);
        for (size_t m = 1 + below(4); m > 0; m--)
            mutate_once(buf, &n);
        run(buf, n);
    }
    free(buf);
    return done;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    long runs = 0;
    uint64_t seed = 0;
    double seconds = 0;
    int first = 1;
    if (argc >= 5 && strcmp(argv[1], "--mutate") == 0) {
        char *end1, *end2, *end3;
        runs = strtol(argv[2], &end1, 10);
        seed = strtoull(argv[3], &end2, 10);
        seconds = strtod(argv[4], &end3);
        if (*end1 || *end2 || *end3 || runs < 0 || seconds < 0) {
            fprintf(stderr, "replay: --mutate RUNS SEED SECONDS\n");
            return 1;
        }
        first = 5;
    }
    kept = malloc(MAX_KEPT * sizeof *kept);
    kept_size = malloc(MAX_KEPT * sizeof *kept_size);
    if (kept == NULL || kept_size == NULL)
        return 1;
    const char *program = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    snprintf(crash_path, sizeof crash_path, "%s.crash", program);
#ifndef _WIN32
    signal(SIGABRT, on_crash);
    signal(SIGSEGV, on_crash);
    signal(SIGBUS, on_crash);
    signal(SIGFPE, on_crash);
#endif
    int files = 0;
    for (int i = first; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: cannot read %s\n", argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (run_file(argv[i]) != 0)
                return 1;
            files++;
            continue;
        }
        /* in name order, so a seed mutates the same inputs everywhere */
        DIR *d = opendir(argv[i]);
        if (d == NULL)
            return 1;
        char **names = NULL;
        int nnames = 0, cap = 0;
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            if (e->d_name[0] == '.')
                continue;
            if (nnames == cap) {
                cap = cap ? 2 * cap : 64;
                char **more = realloc(names, (size_t)cap * sizeof *names);
                if (more == NULL)
                    return 1;
                names = more;
            }
            if ((names[nnames] = malloc(strlen(e->d_name) + 1)) == NULL)
                return 1;
            strcpy(names[nnames++], e->d_name);
        }
        closedir(d);
        if (nnames > 1)
            qsort(names, (size_t)nnames, sizeof *names, by_name);
        int bad = 0;
        for (int k = 0; k < nnames; k++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], names[k]);
            if (!bad && run_file(path) != 0)
                bad = 1;
            free(names[k]);
            files++;
        }
        free(names);
        if (bad)
            return 1;
    }
    long mutated = files > 0 && runs > 0 ? mutate(runs, seed, seconds) : 0;
    printf("replay: %d inputs", files);
    if (runs > 0)
        printf(", %ld mutated (seed %llu)", mutated, (unsigned long long)seed);
    printf(", no failure\n");
    for (int i = 0; i < nkept; i++)
        free(kept[i]);
    free(kept);
    free(kept_size);
    return files > 0 ? 0 : 1;
}
