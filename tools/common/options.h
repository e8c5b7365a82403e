/* SPDX-License-Identifier: MIT */
/*
 * options.h — the command line of tempo's programs, from one table.
 *
 * A program describes its options once, as a table of option_spec (name,
 * kind, allowed range, help text, where the value goes), and options_parse
 * reads argv against it. The same table writes the --help text, so the help
 * and the parser cannot disagree. Every program built on it behaves alike:
 *   - "--name value" and "--name=value" both work; "-h" and "--help" print
 *     the usage on stdout (the caller then exits 0);
 *   - every error goes to stderr as one line naming the option, the value
 *     given and what is allowed ("tempo-arena: --players 0: out of range,
 *     want 1..8"), followed by a hint to run --help; the caller exits 2;
 *   - an option given twice is an error unless it is OPTION_REPEAT (a second
 *     value would otherwise silently win);
 *   - a required option that is missing is named with its range;
 *   - an unknown option is named with the nearest known one, if one is
 *     near ("did you mean --key-file?");
 *   - "--version" prints the program's name and tempo's version (exit 0);
 *   - an old spelling in the command's alias table reads as the option it
 *     was renamed to, and is not shown in --help (docs/TOOLS.md keeps the
 *     one vocabulary every program speaks).
 *
 * Values land in the caller's struct at the spec's offset (offsetof), so a
 * table is a static const array and the struct holds the defaults set
 * before parsing. Portable C11: no getopt, no POSIX.
 */
#ifndef TOOLS_OPTIONS_H
#define TOOLS_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum option_kind {
    OPTION_FLAG,   /* no value; sets a bool to true */
    OPTION_INT,    /* a decimal int in [min, max] */
    OPTION_U64,    /* a uint64_t, decimal or 0x hex, in [min, max] (max 0: no bound) */
    OPTION_REAL,   /* a decimal number (double) in [real_min, real_max] */
    OPTION_TEXT,   /* any non-empty text; stores the argv pointer (const char *) */
    OPTION_CUSTOM  /* the spec's parse function reads the value */
} option_kind;

/* Spec flags. */
#define OPTION_REQUIRED 1u /* must be given */
#define OPTION_REPEAT 2u   /* may be given more than once (CUSTOM only) */
#define OPTION_HIDDEN 4u   /* read, but not shown in --help (an old spelling
                              that is more than a rename) */

/* OPTION_CUSTOM: read `value` into `field`, the caller's struct at the
 * spec's offset (offset 0 gives the whole struct, for an option that fills
 * several fields or appends to an array). On failure return false and write
 * into why[0..why_size) what is wrong and what is allowed; the parser prints
 * it after the option's name and value. */
typedef bool (*option_parse_fn)(void *field, const char *value, char *why, size_t why_size);

typedef struct option_spec {
    const char *name;     /* without the dashes: "players" is --players */
    option_kind kind;
    const char *value;    /* the value's name in the usage ("N", "ADDR"); unused by FLAG */
    size_t offset;        /* offsetof the target field in the caller's struct */
    long long min, max;   /* INT, U64 */
    double real_min, real_max; /* REAL */
    /* What is allowed, as the usage and errors say it. NULL: made from
     * min..max (INT, U64, REAL). Required for CUSTOM. */
    const char *range;
    const char *help;     /* one line, or several separated by '\n' */
    unsigned flags;       /* OPTION_REQUIRED, OPTION_REPEAT */
    option_parse_fn parse; /* CUSTOM only */
} option_spec;

/* An old spelling of an option, kept working after a rename. */
typedef struct option_alias {
    const char *old_name; /* without the dashes */
    const char *name;     /* the option's name now, in the spec table */
} option_alias;

typedef struct option_command {
    const char *program;   /* "tempo-arena" */
    const char *synopsis;  /* what it does, one or more lines */
    const option_spec *specs;
    int count;             /* entries of specs, at most 64 */
    const char *epilogue;  /* printed after the options (exit codes, examples); may be NULL */
    /* Prints more help after the epilogue, for lists known only at run time
     * (the library's link profiles); may be NULL. */
    void (*more_help)(FILE *f);
    const option_alias *aliases; /* old spellings; may be NULL */
    int alias_count;
} option_command;

/* What options_parse found. */
typedef enum option_status {
    OPTIONS_OK = 0,    /* *out filled; run */
    OPTIONS_HELP = 1,  /* --help or --version printed on stdout; exit 0 */
    OPTIONS_USAGE = 2  /* an error was printed on stderr; exit 2 */
} option_status;

/* Parse argv[1..argc) into out (which holds the defaults). given, if not
 * NULL, gets bit i set for every spec i that appeared. */
option_status options_parse(const option_command *cmd, int argc, char **argv, void *out,
                            uint64_t *given);

/* Whether the option `name` (without dashes) is set in a given mask from
 * options_parse (given under its name or an old spelling). False for a
 * name the table does not hold. */
bool options_given(const option_command *cmd, uint64_t given, const char *name);

/* For OPTION_CUSTOM parsers: a list of players "I[,J...]", each below
 * max, none twice, added to *mask. False with why filled otherwise. */
bool options_player_list(const char *value, int max, uint32_t *mask, char *why, size_t why_size);

/* For OPTION_CUSTOM parsers: an input delay "D" in 0..max frames, or
 * "auto" (*automatic set, *delay untouched). False with why filled. */
bool options_input_delay(const char *value, int max, int *delay, bool *automatic, char *why,
                         size_t why_size);

/* For OPTION_CUSTOM: a link profile of the library's simnet (tempo/
 * simnet.h) by name; stores the name (const char *). The error lists the
 * names. */
bool options_parse_profile(void *field, const char *value, char *why, size_t why_size);
/* For more_help: the profiles' names, one line. */
void options_list_profiles(FILE *f);

/* Write the generated usage to f. */
void options_usage(const option_command *cmd, FILE *f);

/* Print "program: <message>" and the --help hint on stderr, for errors the
 * table cannot see (options that contradict each other). Returns
 * OPTIONS_USAGE, so `return options_error(...)` reads naturally. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
option_status options_error(const option_command *cmd, const char *fmt, ...);

#ifdef __cplusplus
}
#endif

#endif /* TOOLS_OPTIONS_H */
