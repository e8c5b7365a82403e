/* SPDX-License-Identifier: MIT */
/*
 * options.c — argv against an option table (see options.h for the rules).
 *
 * Invariant: a field of the caller's struct is written only after its value
 * was read whole and found in range, so on OPTIONS_USAGE every field holds
 * either its default or a valid value; and each error is printed exactly
 * once, by the function that found it.
 */
#include "options.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tempo/base.h"
#include "tempo/simnet.h"

#define USAGE_COLUMN 26 /* where help text starts in the usage */
#define USAGE_WIDTH 79  /* the longest usage line, when the texts allow */

static void hint(const option_command *cmd)
{
    fprintf(stderr, "run '%s --help' for the options\n", cmd->program);
}

option_status options_error(const option_command *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", cmd->program);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    hint(cmd);
    return OPTIONS_USAGE;
}

/* The allowed values of s as text: its own range, or min..max. */
static const char *range_text(const option_spec *s, char *buf, size_t size)
{
    if (s->range)
        return s->range;
    switch (s->kind) {
    case OPTION_INT:
        snprintf(buf, size, "%lld..%lld", s->min, s->max);
        break;
    case OPTION_U64:
        if (s->max > 0)
            snprintf(buf, size, "%lld..%lld", s->min, s->max);
        else
            snprintf(buf, size, "%lld or more", s->min);
        break;
    case OPTION_REAL:
        snprintf(buf, size, "%g..%g", s->real_min, s->real_max);
        break;
    default:
        snprintf(buf, size, "%s", s->value ? s->value : "a value");
        break;
    }
    return buf;
}

static const option_spec *find(const option_command *cmd, const char *name, size_t len)
{
    for (int i = 0; i < cmd->count; i++)
        if (strlen(cmd->specs[i].name) == len && memcmp(cmd->specs[i].name, name, len) == 0)
            return &cmd->specs[i];
    return NULL;
}

/* The spec an old spelling stands for, or NULL. */
static const option_spec *find_alias(const option_command *cmd, const char *name, size_t len)
{
    for (int i = 0; i < cmd->alias_count; i++) {
        const option_alias *a = &cmd->aliases[i];
        if (strlen(a->old_name) == len && memcmp(a->old_name, name, len) == 0)
            return find(cmd, a->name, strlen(a->name));
    }
    return NULL;
}

/* Edits (insert, delete, replace) between a[0..n) and b, at most 3 counted. */
static int distance(const char *a, size_t n, const char *b)
{
    size_t m = strlen(b);
    if (n > 40 || m > 40)
        return 3;
    int row[41];
    for (size_t j = 0; j <= m; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= n; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= m; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[m] < 3 ? row[m] : 3;
}

/* The option a mistyped name most likely meant: one it begins or ends, or
 * within two edits of it; NULL if none is near. */
static const char *nearest(const option_command *cmd, const char *name, size_t len)
{
    const char *best = NULL;
    int best_d = 3;
    for (int i = 0; i < cmd->count; i++) {
        const char *n = cmd->specs[i].name;
        size_t nl = strlen(n);
        int d = distance(name, len, n);
        if (d == 3 && len >= 3 && nl > len &&
            (memcmp(n, name, len) == 0 || memcmp(n + nl - len, name, len) == 0))
            d = 2; /* --key for --key-file, --file for --key-file */
        if (!(cmd->specs[i].flags & OPTION_HIDDEN) && d < best_d) {
            best = n;
            best_d = d;
        }
    }
    return best;
}

static option_status bad_value(const option_command *cmd, const option_spec *s, const char *value,
                               const char *what)
{
    char buf[96];
    return options_error(cmd, "--%s %s: %s, want %s", s->name, value, what,
                         range_text(s, buf, sizeof buf));
}

/* Read one value into the field of s; prints the error itself. */
static option_status store(const option_command *cmd, const option_spec *s, const char *value,
                           void *out)
{
    char *field = (char *)out + s->offset;
    char *end;
    errno = 0;
    switch (s->kind) {
    case OPTION_FLAG:
        *(bool *)(void *)field = true;
        return OPTIONS_OK;
    case OPTION_INT: {
        long long v = strtoll(value, &end, 10);
        if (end == value || *end)
            return bad_value(cmd, s, value, "not a whole number");
        if (errno == ERANGE || v < s->min || v > s->max)
            return bad_value(cmd, s, value, "out of range");
        *(int *)(void *)field = (int)v;
        return OPTIONS_OK;
    }
    case OPTION_U64: {
        /* Decimal, or hex after 0x; never octal (a leading 0 means nothing). */
        bool hex = value[0] == '0' && (value[1] == 'x' || value[1] == 'X');
        unsigned long long v = strtoull(value, &end, hex ? 16 : 10);
        if (end == value || *end || value[0] == '-' || value[0] == '+' || value[0] == ' ')
            return bad_value(cmd, s, value, "not a whole number");
        if (errno == ERANGE || v < (unsigned long long)s->min ||
            (s->max > 0 && v > (unsigned long long)s->max))
            return bad_value(cmd, s, value, "out of range");
        *(uint64_t *)(void *)field = (uint64_t)v;
        return OPTIONS_OK;
    }
    case OPTION_REAL: {
        double v = strtod(value, &end);
        if (end == value || *end || !isfinite(v))
            return bad_value(cmd, s, value, "not a number");
        if (v < s->real_min || v > s->real_max)
            return bad_value(cmd, s, value, "out of range");
        *(double *)(void *)field = v;
        return OPTIONS_OK;
    }
    case OPTION_TEXT:
        if (!*value)
            return bad_value(cmd, s, "''", "empty");
        *(const char **)(void *)field = value;
        return OPTIONS_OK;
    case OPTION_CUSTOM: {
        char why[160] = "";
        if (s->parse(field, value, why, sizeof why))
            return OPTIONS_OK;
        if (!why[0]) {
            char buf[96];
            snprintf(why, sizeof why, "want %s", range_text(s, buf, sizeof buf));
        }
        return options_error(cmd, "--%s %s: %s", s->name, value, why);
    }
    }
    return options_error(cmd, "--%s: the program's option table is wrong", s->name);
}

option_status options_parse(const option_command *cmd, int argc, char **argv, void *out,
                            uint64_t *given_out)
{
    uint64_t given = 0;
    if (cmd->count < 0 || cmd->count > 64) /* the given mask has 64 bits */
        return options_error(cmd, "the program's option table is too long");
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            options_usage(cmd, stdout);
            return OPTIONS_HELP;
        }
        if (strcmp(arg, "--version") == 0) {
            printf("%s (tempo %d.%d.%d)\n", cmd->program, TEMPO_VERSION_MAJOR, TEMPO_VERSION_MINOR,
                   TEMPO_VERSION_PATCH);
            return OPTIONS_HELP;
        }
        if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0')
            return options_error(cmd, "unexpected argument '%s' (options start with --)", arg);
        const char *name = arg + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const option_spec *s = find(cmd, name, len);
        if (!s)
            s = find_alias(cmd, name, len);
        if (!s) {
            const char *near = nearest(cmd, name, len);
            if (near)
                return options_error(cmd, "unknown option --%.*s; did you mean --%s?", (int)len, name,
                                     near);
            return options_error(cmd, "unknown option --%.*s", (int)len, name);
        }
        uint64_t bit = (uint64_t)1 << (s - cmd->specs);
        if ((given & bit) && !(s->flags & OPTION_REPEAT))
            return options_error(cmd, "--%s given twice", s->name);
        given |= bit;
        const char *value = NULL;
        if (s->kind == OPTION_FLAG) {
            if (eq)
                return options_error(cmd, "--%s takes no value (given '%s')", s->name, eq + 1);
        } else if (eq) {
            value = eq + 1;
        } else if (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) {
            value = argv[++i];
        } else {
            char buf[96];
            return options_error(cmd, "--%s needs a value (%s: %s)", s->name,
                                 s->value ? s->value : "VALUE", range_text(s, buf, sizeof buf));
        }
        option_status st = store(cmd, s, value, out);
        if (st != OPTIONS_OK)
            return st;
    }
    for (int i = 0; i < cmd->count; i++) {
        const option_spec *s = &cmd->specs[i];
        if ((s->flags & OPTION_REQUIRED) && !(given & ((uint64_t)1 << i))) {
            char buf[96];
            return options_error(cmd, "--%s is required (%s: %s)", s->name,
                                 s->value ? s->value : "VALUE", range_text(s, buf, sizeof buf));
        }
    }
    if (given_out)
        *given_out = given;
    return OPTIONS_OK;
}

bool options_player_list(const char *value, int max, uint32_t *mask, char *why, size_t why_size)
{
    for (const char *p = value;;) {
        char *end;
        long k = strtol(p, &end, 10);
        if (end == p || k < 0 || k >= max || (*end && *end != ',')) {
            snprintf(why, why_size, "want a player number 0..%d, or several separated by commas",
                     max - 1);
            return false;
        }
        if (*mask >> k & 1u) {
            snprintf(why, why_size, "player %ld is named twice", k);
            return false;
        }
        *mask |= 1u << k;
        if (!*end)
            return true;
        p = end + 1;
    }
}

bool options_input_delay(const char *value, int max, int *delay, bool *automatic, char *why,
                         size_t why_size)
{
    if (strcmp(value, "auto") == 0) {
        *automatic = true;
        return true;
    }
    char *end;
    long d = strtol(value, &end, 10);
    if (end == value || *end || d < 0 || d > max) {
        snprintf(why, why_size, "want 0..%d frames, or auto", max);
        return false;
    }
    *delay = (int)d;
    return true;
}

bool options_parse_profile(void *field, const char *value, char *why, size_t why_size)
{
    tempo_link_params p;
    if (tempo_link_profile(value, &p) == TEMPO_OK) {
        *(const char **)field = value;
        return true;
    }
    size_t len = (size_t)snprintf(why, why_size, "unknown profile, want one of");
    for (const char *const *n = tempo_link_profile_names(); *n && len < why_size; n++)
        len += (size_t)snprintf(why + len, why_size - len, " %s", *n);
    return false;
}

void options_list_profiles(FILE *f)
{
    fprintf(f, "profiles (docs/SIMNET.md has their numbers):\n ");
    for (const char *const *n = tempo_link_profile_names(); *n; n++)
        fprintf(f, " %s", *n);
    fprintf(f, "\n");
}

bool options_given(const option_command *cmd, uint64_t given, const char *name)
{
    const option_spec *s = find(cmd, name, strlen(name));
    return s && (given >> (s - cmd->specs)) & 1u;
}

/* The help text of s, each line after the first indented to the column,
 * then what is allowed and whether it is required: at the end of the last
 * line when it fits in USAGE_WIDTH, else on a line of its own. */
static void usage_help(const option_spec *s, FILE *f)
{
    const char *last = s->help;
    for (const char *p = s->help; *p; p++) {
        fputc(*p, f);
        if (*p == '\n') {
            fprintf(f, "%*s", USAGE_COLUMN, "");
            last = p + 1;
        }
    }
    char buf[96], note[160] = "";
    bool show_range = s->kind != OPTION_FLAG && s->kind != OPTION_TEXT;
    bool required = (s->flags & OPTION_REQUIRED) != 0;
    if (show_range || required)
        snprintf(note, sizeof note, "(%s%s%s)", show_range ? range_text(s, buf, sizeof buf) : "",
                 show_range && required ? "; " : "", required ? "required" : "");
    if (note[0] && USAGE_COLUMN + strlen(last) + 1 + strlen(note) > USAGE_WIDTH)
        fprintf(f, "\n%*s%s", USAGE_COLUMN, "", note);
    else if (note[0])
        fprintf(f, " %s", note);
    fputc('\n', f);
}

void options_usage(const option_command *cmd, FILE *f)
{
    fprintf(f, "usage: %s [options]\n%s\n\noptions:\n", cmd->program, cmd->synopsis);
    for (int i = 0; i < cmd->count; i++) {
        const option_spec *s = &cmd->specs[i];
        if (s->flags & OPTION_HIDDEN)
            continue;
        int n = fprintf(f, "  --%s", s->name);
        if (s->kind != OPTION_FLAG)
            n += fprintf(f, " %s", s->value ? s->value : "VALUE");
        if (n >= USAGE_COLUMN - 1)
            fprintf(f, "\n%*s", USAGE_COLUMN, "");
        else
            fprintf(f, "%*s", USAGE_COLUMN - n, "");
        usage_help(s, f);
    }
    fprintf(f, "  --version%*sprint the program's version and exit\n", USAGE_COLUMN - 11, "");
    fprintf(f, "  -h, --help%*sprint this help and exit\n", USAGE_COLUMN - 12, "");
    if (cmd->epilogue)
        fprintf(f, "\n%s", cmd->epilogue);
    if (cmd->more_help)
        cmd->more_help(f);
}
