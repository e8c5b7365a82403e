/* SPDX-License-Identifier: MIT */
/*
 * sim_json.c — a small streaming JSON writer for tempo-sim's --json output.
 * Keys are written in call order; nesting depth is bounded by sim_json.first.
 */
#include "sim_out.h"

#include <inttypes.h>
#include <math.h>

bool sim_json_open(sim_json *j, const char *path)
{
    j->f = fopen(path, "w");
    j->depth = 0;
    j->first[0] = true;
    if (!j->f)
        return false;
    fputc('{', j->f);
    return true;
}

void sim_json_close(sim_json *j)
{
    if (!j->f)
        return;
    fputs("\n}\n", j->f);
    fclose(j->f);
    j->f = NULL;
}

static void string_body(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* Separator, indentation and key (key NULL inside arrays). */
static void prefix(sim_json *j, const char *key)
{
    if (!j->first[j->depth])
        fputc(',', j->f);
    j->first[j->depth] = false;
    fprintf(j->f, "\n%*s", 2 * (j->depth + 1), "");
    if (key) {
        string_body(j->f, key);
        fputs(": ", j->f);
    }
}

static void open_nested(sim_json *j, const char *key, char c)
{
    prefix(j, key);
    fputc(c, j->f);
    if (j->depth < 15)
        j->depth++;
    j->first[j->depth] = true;
}

static void close_nested(sim_json *j, char c)
{
    bool empty = j->first[j->depth];
    if (j->depth > 0)
        j->depth--;
    if (!empty)
        fprintf(j->f, "\n%*s", 2 * (j->depth + 1), "");
    fputc(c, j->f);
}

void sim_json_begin_object(sim_json *j, const char *key) { open_nested(j, key, '{'); }
void sim_json_end_object(sim_json *j) { close_nested(j, '}'); }
void sim_json_begin_array(sim_json *j, const char *key) { open_nested(j, key, '['); }
void sim_json_end_array(sim_json *j) { close_nested(j, ']'); }

void sim_json_int(sim_json *j, const char *key, int64_t v)
{
    prefix(j, key);
    fprintf(j->f, "%" PRId64, v);
}

void sim_json_uint(sim_json *j, const char *key, uint64_t v)
{
    prefix(j, key);
    fprintf(j->f, "%" PRIu64, v);
}

void sim_json_double(sim_json *j, const char *key, double v)
{
    prefix(j, key);
    if (isfinite(v))
        fprintf(j->f, "%.6g", v);
    else
        fputs("null", j->f);
}

void sim_json_bool(sim_json *j, const char *key, bool v)
{
    prefix(j, key);
    fputs(v ? "true" : "false", j->f);
}

void sim_json_string(sim_json *j, const char *key, const char *v)
{
    prefix(j, key);
    string_body(j->f, v);
}

void sim_json_null(sim_json *j, const char *key)
{
    prefix(j, key);
    fputs("null", j->f);
}

void sim_json_index(sim_json *j, const char *key, int64_t v)
{
    if (v >= 0)
        sim_json_int(j, key, v);
    else
        sim_json_null(j, key);
}

void sim_json_text(sim_json *j, const char *key, const char *s)
{
    if (s[0])
        sim_json_string(j, key, s);
    else
        sim_json_null(j, key);
}
