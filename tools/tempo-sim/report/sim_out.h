/* SPDX-License-Identifier: MIT */
/*
 * sim_out.h — tempo-sim's one report writer: every mode's terminal text,
 * JSON file, HTML page and CSV file leave through here.
 *
 *   sim_out.c   where each output goes (sim_out_write), the file itself
 *               (sim_out_file), the HTML page of a comparison, the
 *               Markdown-style tables the comparisons print, the verdict
 *               words every page shows
 *   sim_json.c  the JSON syntax (keys in call order, numbers, strings)
 *   sim_svg.c   the SVG layer the charts are drawn with (sim_svg.h)
 *
 * A mode says what it has to say as callbacks over its own results; the
 * writer decides from the options what is written where, so every mode
 * treats --quiet, --json, --report and --csv alike: the text on stdout
 * unless --quiet, then each file asked for, opened, written and closed
 * here, a failure named on stderr ("tempo-sim: cannot write PATH") and
 * turned into the usage exit code, a written report announced on stdout
 * ("report: PATH") unless --quiet. The few modes that do otherwise say
 * so in their sim_out, so the exceptions stand in one place.
 */
#ifndef TEMPO_SIM_OUT_H
#define TEMPO_SIM_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim.h"

/* ---- JSON (sim_json.c) ----------------------------------------------------------- */

/* Minimal JSON writer: keys in order, numbers, strings, null. */
typedef struct sim_json {
    FILE *f;
    int depth;
    bool first[16];
} sim_json;

bool sim_json_open(sim_json *j, const char *path);
void sim_json_close(sim_json *j);
void sim_json_begin_object(sim_json *j, const char *key);
void sim_json_end_object(sim_json *j);
void sim_json_begin_array(sim_json *j, const char *key);
void sim_json_end_array(sim_json *j);
void sim_json_int(sim_json *j, const char *key, int64_t v);
void sim_json_uint(sim_json *j, const char *key, uint64_t v);
void sim_json_double(sim_json *j, const char *key, double v);
void sim_json_bool(sim_json *j, const char *key, bool v);
void sim_json_string(sim_json *j, const char *key, const char *v);
void sim_json_null(sim_json *j, const char *key);
/* A frame, turn or count, or null when it is negative (none). */
void sim_json_index(sim_json *j, const char *key, int64_t v);
/* A text, or null when it is empty (no problem, no failed check). */
void sim_json_text(sim_json *j, const char *key, const char *s);

/* ---- what a mode writes ------------------------------------------------------------ */

/* Each callback writes one output from ctx (the mode's results); NULL: the
 * mode has no such output, and asking for it writes nothing. html and csv
 * return false when the output could not be made (out of memory). */
typedef struct sim_out {
    const void *ctx;
    void (*text)(FILE *f, const void *ctx);     /* the terminal's summary or table */
    void (*json)(sim_json *j, const void *ctx); /* the keys of the JSON file's object */
    bool (*html)(FILE *f, const void *ctx);     /* the whole report page */
    bool (*csv)(FILE *f, const void *ctx);      /* the whole CSV file */
    void (*note)(const void *ctx);              /* after the text, unless quiet: a line on stderr */
    /* Where a mode departs from the rule below, kept as it behaves: the
     * view comparisons (--compare interpolation, reckoning, lagcomp) do
     * not announce their report; interpolation and reckoning keep exit 0
     * when their JSON or report cannot be written, lagcomp when its JSON
     * cannot. All false for every other mode. */
    bool report_unannounced;
    bool json_failure_keeps_exit;
    bool report_failure_keeps_exit;
} sim_out;

/* Write every output the options ask for, in this order: the text (stdout,
 * unless quiet) and the note, --json, --report, --csv. Returns SIM_EXIT_OK, or
 * SIM_EXIT_USAGE if a file could not be written (each named on stderr;
 * see the exceptions in sim_out). */
int sim_out_write(const sim_options *o, const sim_out *w);

/* Write one file: open path, let write fill it, close it. False if the
 * file cannot be opened, write says false, or an I/O error happened. */
bool sim_out_file(const char *path, bool (*write)(FILE *f, const void *ctx), const void *ctx);

/* ---- pieces every page and table shares -------------------------------------------- */

/* A comparison's page shell: what its head and heading hold. The
 * comparisons' pages differ in these, and each keeps its own. */
typedef struct sim_page {
    const char *title;   /* the <title>, and the <h1> unless heading is set */
    const char *heading; /* the <h1>; NULL: the title */
    const char *style;   /* the <style> sheet; NULL: none */
    const char *command; /* the command line, in a <p> under the heading; NULL: none */
    bool no_lang;        /* <html> without lang="en" */
    bool raw_text;       /* the text goes into the <pre> as it is, unescaped */
} sim_page;

/* A comparison's page: the shell page describes, then the comparison's
 * own terminal text in a <pre>; the page's charts follow; end it with
 * sim_out_page_end. */
void sim_out_page_begin(FILE *f, const sim_page *page, void (*text)(FILE *f, const void *ctx),
                        const void *ctx);
void sim_out_page_end(FILE *f);

/* A Markdown-style table's heading row and its |---| rule: columns names,
 * each written between "| " and " |". */
void sim_out_table_head(FILE *f, const char *const *columns, int n);

/* The words and CSS classes of a verdict's kind (sim_verdict_kind: none,
 * meets, misses), the same on every page. */
extern const char *const sim_verdict_word[3];
extern const char *const sim_verdict_class[3];

#endif /* TEMPO_SIM_OUT_H */
