/* SPDX-License-Identifier: MIT */
/*
 * test_options.c — the command-line parser every program shares
 * (tools/common/options.h): values in range land in the struct, errors
 * exit 2 with one line naming the option, old spellings still read as the
 * option they became and stay out of --help, --version answers, and a
 * mistyped option is answered with the nearest real one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#ifdef _WIN32
#include <io.h>
#else
#include <unistd.h>
#endif

#include "options.h"
#include "tempo/base.h"

typedef struct opts {
    int port;
    const char *key_file;
    bool quiet;
    int frames;
    bool headless;
} opts;

/* The hidden --both-frames N sets frames and headless together. */
static bool parse_both(void *field, const char *value, char *why, size_t why_size)
{
    opts *o = field;
    int n = atoi(value);
    if (n < 1) {
        snprintf(why, why_size, "want 1 or more");
        return false;
    }
    o->frames = n;
    o->headless = true;
    return true;
}

#define FIELD(f) offsetof(opts, f)
static const option_spec specs[] = {
    {.name = "port", .kind = OPTION_INT, .value = "P", .offset = FIELD(port), .min = 1, .max = 65535,
     .help = "the port"},
    {.name = "key-file", .kind = OPTION_TEXT, .value = "F", .offset = FIELD(key_file),
     .help = "the key"},
    {.name = "quiet", .kind = OPTION_FLAG, .offset = FIELD(quiet), .help = "say less"},
    {.name = "frames", .kind = OPTION_INT, .value = "N", .offset = FIELD(frames), .min = 1,
     .max = 1000, .help = "frames"},
    {.name = "both-frames", .kind = OPTION_CUSTOM, .value = "N", .parse = parse_both,
     .range = "1 or more", .flags = OPTION_HIDDEN, .help = "old: headless frames"},
};
static const option_alias aliases[] = {{"private-key-file", "key-file"}};
static const option_command cmd = {
    .program = "prog",
    .synopsis = "  a test program",
    .specs = specs,
    .count = (int)(sizeof specs / sizeof specs[0]),
    .aliases = aliases,
    .alias_count = 1,
};

/* Run the parser with argv (NULL-terminated), stdout and stderr caught. */
typedef struct run_result {
    option_status st;
    opts o;
    uint64_t given;
    char out[4096], err[4096];
} run_result;

static void run(run_result *r, const char *const *args)
{
    memset(r, 0, sizeof *r);
    char *argv[16];
    int argc = 0;
    argv[argc++] = (char *)"prog";
    for (; *args; args++)
        argv[argc++] = (char *)*args;
    fflush(stdout);
    fflush(stderr);
    FILE *out = tmpfile(), *err = tmpfile();
    assert_non_null(out);
    assert_non_null(err);
    int saved_out = dup(fileno(stdout)), saved_err = dup(fileno(stderr));
    assert_true(saved_out >= 0 && saved_err >= 0);
    dup2(fileno(out), fileno(stdout));
    dup2(fileno(err), fileno(stderr));
    r->st = options_parse(&cmd, argc, argv, &r->o, &r->given);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, fileno(stdout));
    dup2(saved_err, fileno(stderr));
    close(saved_out);
    close(saved_err);
    rewind(out);
    rewind(err);
    size_t n = fread(r->out, 1, sizeof r->out - 1, out);
    r->out[n] = '\0';
    n = fread(r->err, 1, sizeof r->err - 1, err);
    r->err[n] = '\0';
    fclose(out);
    fclose(err);
}

static void test_values_in_range_land_in_the_struct(void **state)
{
    (void)state;
    run_result *r = calloc(1, sizeof *r);
    const char *args[] = {"--port", "7000", "--key-file=k", "--quiet", NULL};
    run(r, args);
    assert_int_equal(r->st, OPTIONS_OK);
    assert_int_equal(r->o.port, 7000);
    assert_string_equal(r->o.key_file, "k");
    assert_true(r->o.quiet);
    assert_true(options_given(&cmd, r->given, "port"));
    assert_false(options_given(&cmd, r->given, "frames"));
    free(r);
}

static void test_an_old_spelling_reads_as_the_new_option_and_counts_as_given(void **state)
{
    (void)state;
    run_result *r = calloc(1, sizeof *r);
    const char *args[] = {"--private-key-file", "k", NULL};
    run(r, args);
    assert_int_equal(r->st, OPTIONS_OK);
    assert_string_equal(r->o.key_file, "k");
    assert_true(options_given(&cmd, r->given, "key-file"));
    /* the old and the new spelling together are one option given twice */
    const char *twice[] = {"--private-key-file", "k", "--key-file", "j", NULL};
    run(r, twice);
    assert_int_equal(r->st, OPTIONS_USAGE);
    assert_non_null(strstr(r->err, "--key-file given twice"));
    free(r);
}

static void test_help_lists_neither_old_spellings_nor_hidden_options(void **state)
{
    (void)state;
    run_result *r = calloc(1, sizeof *r);
    const char *args[] = {"--help", NULL};
    run(r, args);
    assert_int_equal(r->st, OPTIONS_HELP);
    assert_non_null(strstr(r->out, "--key-file F"));
    assert_non_null(strstr(r->out, "--version"));
    assert_null(strstr(r->out, "private-key-file"));
    assert_null(strstr(r->out, "both-frames"));
    /* a hidden option still works */
    const char *hidden[] = {"--both-frames", "30", NULL};
    run(r, hidden);
    assert_int_equal(r->st, OPTIONS_OK);
    assert_int_equal(r->o.frames, 30);
    assert_true(r->o.headless);
    free(r);
}

static void test_version_prints_the_program_and_tempos_version(void **state)
{
    (void)state;
    run_result *r = calloc(1, sizeof *r);
    const char *args[] = {"--version", NULL};
    run(r, args);
    assert_int_equal(r->st, OPTIONS_HELP);
    char want[64];
    snprintf(want, sizeof want, "prog (tempo %d.%d.%d)\n", TEMPO_VERSION_MAJOR, TEMPO_VERSION_MINOR,
             TEMPO_VERSION_PATCH);
    assert_string_equal(r->out, want);
    free(r);
}

static void test_a_mistyped_option_is_answered_with_the_nearest(void **state)
{
    (void)state;
    run_result *r = calloc(1, sizeof *r);
    const char *typo[] = {"--prot", "1", NULL};
    run(r, typo);
    assert_int_equal(r->st, OPTIONS_USAGE);
    assert_non_null(strstr(r->err, "prog: unknown option --prot; did you mean --port?"));
    assert_non_null(strstr(r->err, "run 'prog --help'"));
    const char *prefix[] = {"--key", "k", NULL};
    run(r, prefix);
    assert_non_null(strstr(r->err, "did you mean --key-file?"));
    const char *far[] = {"--connect", "h:1", NULL};
    run(r, far);
    assert_int_equal(r->st, OPTIONS_USAGE);
    assert_non_null(strstr(r->err, "unknown option --connect\n"));
    /* a hidden option is never offered */
    const char *near_hidden[] = {"--both-frame", "1", NULL};
    run(r, near_hidden);
    assert_null(strstr(r->err, "both-frames?"));
    free(r);
}

static void test_a_value_out_of_range_names_the_option_and_the_range(void **state)
{
    (void)state;
    run_result *r = calloc(1, sizeof *r);
    const char *args[] = {"--port", "70000", NULL};
    run(r, args);
    assert_int_equal(r->st, OPTIONS_USAGE);
    assert_non_null(strstr(r->err, "prog: --port 70000: out of range, want 1..65535"));
    assert_int_equal(r->o.port, 0); /* untouched */
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_in_range_land_in_the_struct),
        cmocka_unit_test(test_an_old_spelling_reads_as_the_new_option_and_counts_as_given),
        cmocka_unit_test(test_help_lists_neither_old_spellings_nor_hidden_options),
        cmocka_unit_test(test_version_prints_the_program_and_tempos_version),
        cmocka_unit_test(test_a_mistyped_option_is_answered_with_the_nearest),
        cmocka_unit_test(test_a_value_out_of_range_names_the_option_and_the_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
