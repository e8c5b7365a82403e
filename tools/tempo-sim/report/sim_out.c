/* SPDX-License-Identifier: MIT */
/*
 * sim_out.c — where every mode's outputs go (sim_out.h): the terminal,
 * the JSON file, the HTML report, the CSV file, with one rule for what
 * --quiet silences, what a failed write says and which exit code it gives.
 * Also the pieces the modes' pages and tables share, so that no mode keeps
 * a copy of its own: a comparison's page shell, the Markdown-style table
 * heading, the verdict words.
 */
#include <stdlib.h>

#include "sim_out.h"
#include "sim_svg.h"

const char *const sim_verdict_word[3] = {"no verdict", "meets", "misses"};
const char *const sim_verdict_class[3] = {"none", "ok", "bad"};

bool sim_out_file(const char *path, bool (*write)(FILE *f, const void *ctx), const void *ctx)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    bool ok = write(f, ctx);
    ok = !ferror(f) && ok;
    return fclose(f) == 0 && ok;
}

static bool write_json(const char *path, const sim_out *w)
{
    sim_json j;
    if (!sim_json_open(&j, path))
        return false;
    w->json(&j, w->ctx);
    sim_json_close(&j);
    return true;
}

static int cannot_write(const char *path)
{
    fprintf(stderr, "tempo-sim: cannot write %s\n", path);
    return SIM_EXIT_USAGE;
}

int sim_out_write(const sim_options *o, const sim_out *w)
{
    int code = SIM_EXIT_OK;
    if (!o->quiet && w->text)
        w->text(stdout, w->ctx);
    if (!o->quiet && w->note)
        w->note(w->ctx);
    if (o->json_path && w->json && !write_json(o->json_path, w)) {
        int failed = cannot_write(o->json_path);
        if (!w->json_failure_keeps_exit)
            code = failed;
    }
    if (o->report_path && w->html) {
        if (!sim_out_file(o->report_path, w->html, w->ctx)) {
            int failed = cannot_write(o->report_path);
            if (!w->report_failure_keeps_exit)
                code = failed;
        } else if (!o->quiet && !w->report_unannounced) {
            printf("report: %s\n", o->report_path);
        }
    }
    if (o->csv_path && w->csv && !sim_out_file(o->csv_path, w->csv, w->ctx))
        code = cannot_write(o->csv_path);
    return code;
}

void sim_out_page_begin(FILE *f, const sim_page *page, void (*text)(FILE *f, const void *ctx),
                        const void *ctx)
{
    fputs(page->no_lang ? "<!DOCTYPE html>\n<html>" : "<!DOCTYPE html>\n<html lang=\"en\">", f);
    fputs("<head><meta charset=\"utf-8\"><title>", f);
    sim_svg_escape(f, page->title);
    fputs("</title>", f);
    if (page->style) {
        fputs("<style>", f);
        fputs(page->style, f);
        fputs("</style>", f);
    }
    fputs("</head><body>\n<h1>", f);
    sim_svg_escape(f, page->heading ? page->heading : page->title);
    fputs("</h1>\n", f);
    if (page->command) {
        fputs("<p>", f);
        sim_svg_escape(f, page->command);
        fputs("</p>\n", f);
    }
    fputs("<pre>", f);
    if (page->raw_text) {
        text(f, ctx);
    } else {
        char *buf = NULL;
        size_t size = 0;
        FILE *m = open_memstream(&buf, &size);
        if (m) {
            text(m, ctx);
            if (fclose(m) == 0)
                sim_svg_escape(f, buf);
            free(buf);
        }
    }
    fputs("</pre>\n", f);
}

void sim_out_page_end(FILE *f)
{
    fputs("</body></html>\n", f);
}

void sim_out_table_head(FILE *f, const char *const *columns, int n)
{
    fputc('|', f);
    for (int k = 0; k < n; k++)
        fprintf(f, " %s |", columns[k]);
    fputs("\n|", f);
    for (int k = 0; k < n; k++)
        fputs("---|", f);
    fputc('\n', f);
}
