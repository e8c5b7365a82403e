/* SPDX-License-Identifier: MIT */
/*
 * cmocka.h (shim) — the part of cmocka's API that tempo's tests use, for the
 * Windows cross build only.
 *
 * Debian packages cmocka for Linux but not for mingw-w64, and this build
 * brings in nothing but Debian packages, so the Windows test programs are
 * compiled against this header instead (tests/CMakeLists.txt adds its folder
 * to the include path only when no cmocka library is found for the target).
 * Linux and macOS builds use the real cmocka.
 *
 * What it does, as cmocka does: runs each test of a group in order; a failed
 * assert prints both values and where, and ends that test through longjmp;
 * skip() ends it as skipped; blocks from test_malloc still held when a test
 * ends fail it as a leak, and test_free of a block it did not hand out fails
 * it too. Output follows cmocka's lines ("[ RUN      ]", "[       OK ]",
 * "[  FAILED  ]", "[  PASSED  ] N test(s).") and the group returns the number
 * of failed tests. What it does not: catch crashes (a crash ends the program,
 * and its exit code fails the run), mocks, expectations, per-test setup.
 *
 * One test program is one translation unit including this header, so its
 * state lives in static variables here.
 */
#ifndef TEMPO_CMOCKA_SHIM_H
#define TEMPO_CMOCKA_SHIM_H

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*CMUnitTestFunction)(void **state);
typedef int (*CMFixtureFunction)(void **state);

struct CMUnitTest {
    const char *name;
    CMUnitTestFunction test_func;
    CMFixtureFunction setup_func;
    CMFixtureFunction teardown_func;
    void *initial_state;
};

#define cmocka_unit_test(f) {#f, f, NULL, NULL, NULL}

/* ---- the running test's state ---- */

enum { CMS_RUNNING, CMS_FAILED, CMS_SKIPPED };

typedef struct cms_block { /* header before each test_malloc block */
    struct cms_block *next;
    size_t size;
    const char *file;
    int line;
    uint32_t magic;
} cms_block;
#define CMS_MAGIC 0x7e3a5c19u

static jmp_buf cms_jump;
static int cms_state;
static cms_block *cms_blocks;

/* Ends the running test: `state` says how. */
_Noreturn static inline void cms_end(int state)
{
    cms_state = state;
    longjmp(cms_jump, 1);
}

#if defined(__MINGW_PRINTF_FORMAT)
#define CMS_PRINTF(a, b) __attribute__((format(__MINGW_PRINTF_FORMAT, a, b)))
#elif defined(__GNUC__)
#define CMS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CMS_PRINTF(a, b)
#endif

static inline void print_message(const char *fmt, ...) CMS_PRINTF(1, 2);
static inline void print_message(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fflush(stdout);
}

static inline void print_error(const char *fmt, ...) CMS_PRINTF(1, 2);
static inline void print_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
}


_Noreturn static inline void cms_fail(const char *file, int line, const char *fmt, ...)
    CMS_PRINTF(3, 4);
_Noreturn static inline void cms_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n%s:%d: error: Failure!\n", file, line);
    fflush(stderr);
    cms_end(CMS_FAILED);
}

/* ---- asserts ---- */

#define fail() cms_fail(__FILE__, __LINE__, "%s", "fail()")
#define fail_msg(...) cms_fail(__FILE__, __LINE__, __VA_ARGS__)
#define skip() cms_end(CMS_SKIPPED)

#define assert_true(c) \
    ((c) ? (void)0 : cms_fail(__FILE__, __LINE__, "%s", #c))
#define assert_false(c) \
    (!(c) ? (void)0 : cms_fail(__FILE__, __LINE__, "%s", #c))
#define assert_non_null(p) \
    ((p) != NULL ? (void)0 : cms_fail(__FILE__, __LINE__, "%s is NULL", #p))
#define assert_null(p) \
    ((p) == NULL ? (void)0 : cms_fail(__FILE__, __LINE__, "%s is not NULL", #p))

/* cmocka compares integers as its largest unsigned type; so does this, and
 * prints both as signed and as hex so negative codes read naturally. */
static inline void cms_int(uintmax_t a, uintmax_t b, bool want_equal, const char *file, int line)
{
    if ((a == b) == want_equal)
        return;
    cms_fail(file, line, "%" PRIdMAX " (%#" PRIxMAX ") %s %" PRIdMAX " (%#" PRIxMAX ")",
             (intmax_t)a, a, want_equal ? "!=" : "==", (intmax_t)b, b);
}
#define assert_int_equal(a, b) \
    cms_int((uintmax_t)(a), (uintmax_t)(b), true, __FILE__, __LINE__)
#define assert_int_not_equal(a, b) \
    cms_int((uintmax_t)(a), (uintmax_t)(b), false, __FILE__, __LINE__)

static inline void cms_range(uintmax_t v, uintmax_t lo, uintmax_t hi, const char *file, int line)
{
    if (v >= lo && v <= hi)
        return;
    cms_fail(file, line, "%" PRIdMAX " is not within the range [%" PRIdMAX ", %" PRIdMAX "]",
             (intmax_t)v, (intmax_t)lo, (intmax_t)hi);
}
/* As in cmocka, the bounds compare unsigned: keep them on one side of zero. */
#define assert_in_range(v, lo, hi) \
    cms_range((uintmax_t)(v), (uintmax_t)(lo), (uintmax_t)(hi), __FILE__, __LINE__)

static inline void cms_string(const char *a, const char *b, bool want_equal, const char *file,
                              int line)
{
    bool equal = a && b ? strcmp(a, b) == 0 : a == b;
    if (equal == want_equal)
        return;
    cms_fail(file, line, "\"%s\" %s \"%s\"", a ? a : "(null)", want_equal ? "!=" : "==",
             b ? b : "(null)");
}
#define assert_string_equal(a, b) cms_string((a), (b), true, __FILE__, __LINE__)
#define assert_string_not_equal(a, b) cms_string((a), (b), false, __FILE__, __LINE__)

static inline void cms_memory(const void *a, const void *b, size_t size, const char *file,
                              int line)
{
    const unsigned char *x = a, *y = b;
    size_t differ = 0, first = 0;
    for (size_t i = size; i-- > 0;)
        if (x[i] != y[i]) {
            differ++;
            first = i;
        }
    if (differ)
        cms_fail(file, line, "%zu of %zu bytes differ; the first at offset %zu: %#x != %#x",
                 differ, size, first, x[first], y[first]);
}
#define assert_memory_equal(a, b, size) cms_memory((a), (b), (size), __FILE__, __LINE__)

static inline void cms_memory_differ(const void *a, const void *b, size_t size, const char *file,
                                     int line)
{
    if (memcmp(a, b, size) == 0)
        cms_fail(file, line, "%zu bytes are equal, and should not be", size);
}
#define assert_memory_not_equal(a, b, size) \
    cms_memory_differ((a), (b), (size), __FILE__, __LINE__)

/* ---- allocation that checks for leaks and bad frees ---- */

static inline void *cms_malloc(size_t size, const char *file, int line)
{
    cms_block *b = malloc(sizeof *b + size);
    if (!b)
        return NULL;
    b->next = cms_blocks;
    b->size = size;
    b->file = file;
    b->line = line;
    b->magic = CMS_MAGIC;
    cms_blocks = b;
    return b + 1;
}

static inline void cms_free(void *p, const char *file, int line)
{
    if (!p)
        return;
    cms_block *b = (cms_block *)p - 1;
    for (cms_block **at = &cms_blocks; *at; at = &(*at)->next) {
        if (*at == b && b->magic == CMS_MAGIC) {
            *at = b->next;
            b->magic = 0;
            free(b);
            return;
        }
    }
    cms_fail(file, line, "test_free of %p, which test_malloc did not hand out", p);
}
#define test_malloc(size) cms_malloc((size), __FILE__, __LINE__)
#define test_free(p) cms_free((p), __FILE__, __LINE__)

/* ---- the runner ---- */

static inline int cms_run_group(const char *group, const struct CMUnitTest *tests, size_t count)
{
    size_t failed = 0, skipped = 0;
    printf("[==========] %s: Running %zu test(s).\n", group, count);
    for (size_t i = 0; i < count; i++) {
        const struct CMUnitTest *t = &tests[i];
        printf("[ RUN      ] %s\n", t->name);
        fflush(stdout);
        void *state = t->initial_state;
        cms_state = CMS_RUNNING;
        cms_blocks = NULL;
        if (setjmp(cms_jump) == 0)
            t->test_func(&state);
        if (cms_state == CMS_RUNNING && cms_blocks) {
            size_t n = 0;
            for (cms_block *b = cms_blocks; b; b = b->next, n++)
                fprintf(stderr, "%s:%d: error: %zu bytes from test_malloc not freed\n",
                        b->file, b->line, b->size);
            fprintf(stderr, "%zu block(s) leaked\n", n);
            cms_state = CMS_FAILED;
        }
        while (cms_blocks) { /* a failed test leaves its blocks behind */
            cms_block *next = cms_blocks->next;
            free(cms_blocks);
            cms_blocks = next;
        }
        if (cms_state == CMS_FAILED) {
            failed++;
            printf("[  FAILED  ] %s\n", t->name);
        } else if (cms_state == CMS_SKIPPED) {
            skipped++;
            printf("[  SKIPPED ] %s\n", t->name);
        } else {
            printf("[       OK ] %s\n", t->name);
        }
        fflush(stdout);
    }
    printf("[==========] %s: %zu test(s) run.\n", group, count);
    printf("[  PASSED  ] %zu test(s).\n", count - failed - skipped);
    if (skipped)
        printf("[  SKIPPED ] %zu test(s).\n", skipped);
    if (failed)
        printf("[  FAILED  ] %zu test(s).\n", failed);
    fflush(stdout);
    return (int)failed;
}

/* Group setup and teardown are not supported: tempo's tests pass NULL. */
#define cmocka_run_group_tests(tests, setup, teardown)                                     \
    ((void)sizeof(setup), (void)sizeof(teardown),                                          \
     cms_run_group(#tests, (tests), sizeof(tests) / sizeof((tests)[0])))

#endif /* TEMPO_CMOCKA_SHIM_H */
