/* SPDX-License-Identifier: MIT */
/*
 * test_sim_report.c — tempo-sim's match report (HTML) and CSV export, built
 * from synthetic timelines: page structure, every chart with data, nothing
 * loaded from the network, escaping, decimation of long matches, each chart's
 * verdict against its "good" line, spectators only where they have data,
 * each figure said once, CSV shape.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_timeline.h"
#include "sim_verdict.h"
#include "tempo/tempo.h"

#define OUT(name) TEMPO_BINARY_DIR "/test_sim_report_" name

static const char *const chart_ids[] = {
    "chart-skew", "chart-delay", "chart-depth", "chart-rate", "chart-link", "chart-payload",
};

/* ---------------------------------------------------------------- fixtures */

/* A match of `peers` peers (the last a spectator when there are three or
 * more), sampled every `dt`: sine-ish skew, input delay in steps, a blackout
 * from 20 to 24 s, a gap in peer 1's series from 40 to 42 s, markers. */
static void build_timeline(sim_timeline *t, int peers, int count, double dt)
{
    assert_true(sim_timeline_init(t, peers, count, dt));
    for (int p = 0; p < peers; p++) {
        snprintf(t->peer_names[p], sizeof t->peer_names[p], "%c-%s", 'A' + p,
                 p % 2 ? "mobile" : "fibre");
        t->is_spectator[p] = peers >= 3 && p == peers - 1;
    }
    for (int i = 0; i < count; i++) {
        double s = i * dt;
        bool blackout = s >= 20.0 && s < 24.0;
        for (int p = 0; p < peers; p++) {
            sim_peer_series *ps = &t->peer[p];
            bool gap = p == 1 && s >= 40.0 && s < 42.0;
            ps->frame_skew[i] = gap ? NAN : (float)(0.35 + 0.25 * sin(s * 0.7 + p) + (blackout ? 2.5 : 0.0));
            ps->input_delay[i] = gap ? NAN : (float)(2 + (s > 30.0) + (p == 0 && s > 50.0) - (s > 70.0));
            ps->rollbacks_per_s[i] = (float)(6.0 + 4.0 * sin(s * 0.3 + p) + (blackout ? 20.0 : 0.0));
            ps->stalls_per_s[i] = (float)(blackout ? 8.0 : (i % 97 == 0 ? 1.0 : 0.0));
            ps->payload_bytes_per_s[i] = (float)(1800.0 + 300.0 * sin(s * 0.2 + p) + (s > 24.0 && s < 26.0 ? 4000.0 : 0.0));
            ps->frame_advantage[i] = (float)(0.5 * sin(s));
            for (int q = 0; q < peers; q++) {
                if (q == p)
                    continue;
                t->rtt_ms[p][q][i] = blackout ? NAN : (float)(30.0 + 15.0 * (p + q) + 4.0 * sin(s * 3.0 + q));
                t->loss[p][q][i] = blackout ? 1.0f : (float)(0.01 + 0.01 * sin(s + p));
            }
        }
    }
    t->count = count;
    for (int p = 0; p < peers; p++) {
        if (t->is_spectator[p])
            continue;
        for (int d = 0; d < 12; d++)
            t->depth_hist[p][d] = (uint64_t)(4000.0 / pow(2.0, d) * (1.0 + 0.3 * p));
    }
    sim_timeline_mark(t, 12.0, SIM_MARK_HICCUP, 1 % peers, "froze 300 ms");
    sim_timeline_mark(t, 24.0, SIM_MARK_BLACKOUT_END, -1, NULL);  /* out of order on purpose */
    sim_timeline_mark(t, 20.0, SIM_MARK_BLACKOUT_START, -1, "all links");
    sim_timeline_mark(t, 30.0, SIM_MARK_INPUT_DELAY, 0, "2 -> 3");
    sim_timeline_mark(t, 50.0, SIM_MARK_DESYNC, 0, "frame 3000");
    sim_timeline_mark(t, 55.0, SIM_MARK_DISCONNECT, peers - 1, "timeout");
    for (double s = 0.5; s < count * dt; s += 0.5)
        sim_timeline_mark(t, s, SIM_MARK_DESYNC_CHECK, -1, NULL);
}

static const sim_report_meta test_meta = {
    .title = "4 peers, transatlantic + mobile, 80 s",
    .scenario = "peers 4\nlink A-B transatlantic\nblackout 20s..24s\n",
    .command = "tempo-sim --peers 4 --scenario mixed.txt --report out.html",
    .summary_html = "<table><tr><th>metric</th><th>value</th></tr><tr><td>rollbacks</td><td>42</td></tr></table>",
    .converged = true,
    .desyncs = 1,
};

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long size = ftell(f);
    assert_true(size >= 0);
    rewind(f);
    char *text = malloc((size_t)size + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
    text[size] = '\0';
    fclose(f);
#ifdef _WIN32 /* the tools write text mode: lines end in CRLF there */
    char *to = text;
    for (const char *from = text; *from; from++)
        if (!(from[0] == '\r' && from[1] == '\n'))
            *to++ = *from;
    *to = '\0';
#endif
    return text;
}

static char *write_report(const sim_timeline *t, const sim_report_meta *meta, const char *path)
{
    assert_int_equal(sim_report_write(t, meta, path), 0);
    return read_text(path);
}

/* ---------------------------------------------------------------- HTML checks */

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool is_void_element(const char *name)
{
    static const char *const v[] = {"meta", "br", "hr", "img", "input", "link", "col", "wbr", "area", "base", "source"};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        if (strcmp(name, v[i]) == 0)
            return true;
    }
    return false;
}

/* Every opened element is closed in order (void and self-closed ones aside);
 * the contents of <script> and <style> are skipped; a '<' in text fails. */
static void assert_well_formed(const char *html)
{
    char stack[64][16];
    int depth = 0;
    const char *p = html;
    while ((p = strchr(p, '<')) != NULL) {
        if (starts_with(p, "<!--")) {
            p = strstr(p, "-->");
            assert_non_null(p);
            continue;
        }
        if (starts_with(p, "<!")) {
            p = strchr(p, '>');
            assert_non_null(p);
            continue;
        }
        bool closing = p[1] == '/';
        const char *name = p + 1 + closing;
        size_t len = strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-");
        if (len == 0 || len >= sizeof stack[0])
            fail_msg("not a tag at offset %ld: %.40s", (long)(p - html), p);
        const char *q = name + len;
        char quote = 0;
        for (; *q != '\0' && (quote != 0 || *q != '>'); q++) {
            if (quote != 0) {
                if (*q == quote)
                    quote = 0;
            } else if (*q == '"' || *q == '\'') {
                quote = *q;
            } else if (*q == '<') {
                fail_msg("'<' inside a tag at offset %ld", (long)(q - html));
            }
        }
        assert_int_equal(*q, '>');
        char tag[16];
        memcpy(tag, name, len);
        tag[len] = '\0';
        if (closing) {
            if (depth == 0 || strcmp(stack[depth - 1], tag) != 0)
                fail_msg("</%s> closes <%s> at offset %ld", tag, depth > 0 ? stack[depth - 1] : "(nothing)",
                         (long)(p - html));
            depth--;
        } else if (q[-1] != '/' && !is_void_element(tag)) {
            assert_true(depth < 64);
            strcpy(stack[depth++], tag);
            if (strcmp(tag, "script") == 0 || strcmp(tag, "style") == 0) {
                char end[24];
                snprintf(end, sizeof end, "</%s", tag);
                q = strstr(q, end);
                assert_non_null(q);
                p = q;
                continue;
            }
        }
        p = q + 1;
    }
    if (depth != 0)
        fail_msg("<%s> is never closed (%d open)", stack[depth - 1], depth);
}

/* The text of the <svg> with `id` (a fresh string), or NULL. */
static char *chart_svg(const char *html, const char *id)
{
    char attr[64];
    snprintf(attr, sizeof attr, "id=\"%s\"", id);
    const char *at = strstr(html, attr);
    if (at == NULL)
        return NULL;
    const char *start = at;
    while (start > html && !starts_with(start, "<svg"))
        start--;
    const char *end = strstr(at, "</svg>");
    assert_non_null(end);
    size_t n = (size_t)(end - start);
    char *s = malloc(n + 1);
    assert_non_null(s);
    memcpy(s, start, n);
    s[n] = '\0';
    return s;
}

/* Points in each <path class="series"> of an SVG: the largest and the number of paths. */
static int series_points(const char *svg, int *paths)
{
    int most = 0;
    *paths = 0;
    for (const char *p = svg; (p = strstr(p, "<path class=\"series\"")) != NULL; p++) {
        const char *d = strstr(p, " d=\"");
        assert_non_null(d);
        int points = 0;
        for (d += 4; *d != '"'; d++)
            points += *d == ',';
        most = points > most ? points : most;
        (*paths)++;
    }
    return most;
}

static int count_of(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* ---------------------------------------------------------------- tests */

static void test_report_is_well_formed(void **state)
{
    (void)state;
    sim_timeline t;
    build_timeline(&t, 4, 800, 0.1);
    char *html = write_report(&t, &test_meta, OUT("main.html"));
    assert_well_formed(html);
    assert_true(starts_with(html, "<!DOCTYPE html>"));
    free(html);
    sim_timeline_free(&t);
}

static void test_report_has_every_chart_with_data(void **state)
{
    (void)state;
    sim_timeline t;
    build_timeline(&t, 4, 800, 0.1);
    char *html = write_report(&t, &test_meta, OUT("charts.html"));
    for (size_t i = 0; i < sizeof chart_ids / sizeof chart_ids[0]; i++) {
        char *svg = chart_svg(html, chart_ids[i]);
        if (svg == NULL)
            fail_msg("no <svg id=\"%s\">", chart_ids[i]);
        if (strcmp(chart_ids[i], "chart-depth") == 0) {
            /* three players with twelve depths each; the spectator has none */
            assert_int_equal(count_of(svg, "<rect class=\"bar\""), 3 * 12);
        } else {
            /* input delay is a step line: only its changes are drawn */
            int want = strcmp(chart_ids[i], "chart-delay") == 0 ? 6 : 50;
            int paths, most = series_points(svg, &paths);
            if (most < want)
                fail_msg("%s: its longest line has %d points", chart_ids[i], most);
            /* skew and input delay: the three players; rollbacks and stalls:
             * a lane each per player; payload: every peer; links: RTT and
             * loss of each ordered pair */
            int lines = strcmp(chart_ids[i], "chart-rate") == 0 ? 6
                      : strcmp(chart_ids[i], "chart-payload") == 0 ? 4
                      : strcmp(chart_ids[i], "chart-link") == 0 ? 24 : 3;
            if (paths != lines)
                fail_msg("%s: %d lines, want %d", chart_ids[i], paths, lines);
        }
        assert_non_null(strstr(svg, "<text class=\"tick\""));   /* tick labels */
        assert_non_null(strstr(svg, "<text class=\"unit\""));   /* axis titles */
        free(svg);
    }
    /* every marker kind is drawn on the time charts, with a blackout band */
    char *skew = chart_svg(html, "chart-skew");
    assert_non_null(strstr(skew, "class=\"m-hiccup\""));
    assert_non_null(strstr(skew, "class=\"m-desync\""));
    assert_non_null(strstr(skew, "class=\"m-disc\""));
    assert_non_null(strstr(skew, "class=\"m-delay\""));
    assert_non_null(strstr(skew, "blackout 20.00&#8211;24.00 s"));
    assert_true(count_of(skew, "<line class=\"check\"") >= 100);
    free(skew);
    /* the per-chart headings, the "what good looks like" lines and a verdict each */
    assert_int_equal(count_of(html, "<p class=\"good\">"), 6);
    assert_int_equal(count_of(html, "<p class=\"verdict "), 6);
    free(html);
    sim_timeline_free(&t);
}

static void test_report_loads_nothing_from_the_network(void **state)
{
    (void)state;
    sim_timeline t;
    build_timeline(&t, 3, 500, 0.2);
    char *html = write_report(&t, &test_meta, OUT("offline.html"));
    int urls = 0;
    for (const char *p = html; (p = strstr(p, "http")) != NULL; p++) {
        if (!starts_with(p, "http://") && !starts_with(p, "https://"))
            continue;
        urls++;
        if (p - html < 7 || strncmp(p - 7, "xmlns=\"", 7) != 0)
            fail_msg("a URL outside xmlns: %.60s", p);
    }
    assert_int_equal(urls, 6);  /* one namespace per chart */
    assert_null(strstr(html, " src="));
    assert_null(strstr(html, "url("));
    assert_null(strstr(html, "@import"));
    assert_null(strstr(html, "<link"));
    free(html);
    sim_timeline_free(&t);
}

static void test_report_escapes_every_text(void **state)
{
    (void)state;
    sim_timeline t;
    build_timeline(&t, 2, 100, 0.1);
    snprintf(t.peer_names[0], sizeof t.peer_names[0], "<i>Bob & \"Co\"");
    sim_timeline_mark(&t, 3.0, SIM_MARK_HICCUP, 0, "</title><b>x");
    sim_report_meta meta = test_meta;
    meta.title = "<script>alert(1)</script>";
    meta.scenario = "</pre></details><h1>boom";
    meta.command = "tempo-sim --name '<x>' && echo";
    char *html = write_report(&t, &meta, OUT("escape.html"));
    assert_well_formed(html);
    assert_null(strstr(html, "<i>Bob"));
    assert_null(strstr(html, "<script>alert"));
    assert_null(strstr(html, "<h1>boom"));
    assert_null(strstr(html, "</title><b>"));
    assert_non_null(strstr(html, "&lt;i&gt;Bob &amp; &quot;Co&quot;"));
    assert_non_null(strstr(html, "--name &#39;&lt;x&gt;&#39; &amp;&amp; echo"));
    free(html);
    sim_timeline_free(&t);
}

static void test_report_draws_long_matches_with_bounded_points(void **state)
{
    (void)state;
    sim_timeline t;
    build_timeline(&t, SIM_MAX_PEERS, 60000, 0.01);   /* 10 minutes at 100 Hz, 9 peers */
    t.peer[0].frame_skew[33333] = 40.0f;               /* one sample spikes */
    assert_int_equal(t.num_markers, 6);               /* 1199 passed checks are counted, not marked */
    char *html = write_report(&t, &test_meta, OUT("long.html"));
    assert_well_formed(html);
    assert_non_null(strstr(html, "1199 desync checks passed"));
    for (size_t i = 0; i < sizeof chart_ids / sizeof chart_ids[0]; i++) {
        char *svg = chart_svg(html, chart_ids[i]);
        assert_non_null(svg);
        int paths, most = series_points(svg, &paths);
        if (most > SIM_REPORT_MAX_POINTS)
            fail_msg("%s: a line with %d points", chart_ids[i], most);
        free(svg);
    }
    /* the spike sets the scale: the skew axis reaches 40 frames */
    char *skew = chart_svg(html, "chart-skew");
    assert_non_null(strstr(skew, ">40</text>"));
    free(skew);
    free(html);
    sim_timeline_free(&t);
}

static void test_report_handles_empty_and_flat_timelines(void **state)
{
    (void)state;
    sim_timeline t;
    assert_true(sim_timeline_init(&t, 1, 10, 0.1));    /* no samples, no markers */
    char *html = write_report(&t, NULL, OUT("empty.html"));
    assert_well_formed(html);
    for (size_t i = 0; i < sizeof chart_ids / sizeof chart_ids[0]; i++)
        assert_non_null(strstr(html, chart_ids[i]));
    assert_null(strstr(html, "nan"));
    assert_null(strstr(html, "inf"));
    free(html);

    for (int i = 0; i < 10; i++) {                       /* every value 0 */
        t.peer[0].frame_skew[i] = 0.0f;
        t.peer[0].input_delay[i] = 0.0f;
        t.peer[0].payload_bytes_per_s[i] = 0.0f;
    }
    t.count = 10;
    html = write_report(&t, NULL, OUT("zero.html"));
    assert_well_formed(html);
    assert_null(strstr(html, "nan"));
    assert_null(strstr(html, "inf"));
    char *skew = chart_svg(html, "chart-skew");
    int paths;
    assert_true(series_points(skew, &paths) >= 2);
    assert_int_equal(paths, 1);
    free(skew);
    free(html);
    sim_timeline_free(&t);
}

static void test_report_survives_an_inconsistent_timeline(void **state)
{
    (void)state;
    sim_timeline t;
    build_timeline(&t, 3, 200, 0.1);
    t.count = t.capacity + 500;                   /* more than was allocated */
    t.interval_s = NAN;
    memset(t.peer_names[1], 'x', sizeof t.peer_names[1]);   /* no terminator */
    sim_timeline_mark(&t, 5.0, SIM_MARK_HICCUP, 42, "no such peer");
    sim_timeline_mark(&t, 6.0, 99, 0, "no such kind");
    sim_timeline_mark(&t, NAN, SIM_MARK_DESYNC, 0, "no time");
    sim_timeline_mark(&t, 7.0, SIM_MARK_BLACKOUT_START, 2, "never ends");
    char *html = write_report(&t, NULL, OUT("inconsistent.html"));
    assert_well_formed(html);
    assert_null(strstr(html, "nan"));
    assert_null(strstr(html, "inf"));
    assert_null(strstr(html, "no such kind"));
    assert_non_null(strstr(html, "no such peer"));
    assert_non_null(strstr(html, "never ends"));
    assert_non_null(strstr(html, "peer 1"));      /* the unterminated name is replaced */
    t.count = 200;
    free(html);
    sim_timeline_free(&t);
}

static void test_report_write_fails_on_unwritable_path(void **state)
{
    (void)state;
    sim_timeline t;
    build_timeline(&t, 2, 10, 0.1);
    assert_int_equal(sim_report_write(&t, NULL, TEMPO_BINARY_DIR "/no/such/dir/r.html"), -1);
    assert_int_equal(sim_csv_write(&t, TEMPO_BINARY_DIR "/no/such/dir/r.csv"), -1);
    assert_int_equal(sim_report_write(NULL, NULL, OUT("x.html")), -1);
    sim_timeline_free(&t);
}

/* Fields of one CSV line (a line ends at '\n'). */
static int csv_fields(const char *line)
{
    int n = 1;
    for (; *line != '\n' && *line != '\0'; line++)
        n += *line == ',';
    return n;
}

static void test_csv_has_a_column_per_series_and_a_row_per_sample(void **state)
{
    (void)state;
    const int peers = 4, count = 500;
    sim_timeline t;
    build_timeline(&t, peers, count, 0.1);
    assert_int_equal(sim_csv_write(&t, OUT("main.csv")), 0);
    char *csv = read_text(OUT("main.csv"));
    int columns = 1 + peers * 6 + peers * (peers - 1) * 2 + 1;
    assert_true(starts_with(csv, "t_s,peer0_frame_skew,peer0_input_delay,"));
    assert_non_null(strstr(csv, ",link0_1_rtt_ms,link0_1_loss,"));
    assert_non_null(strstr(csv, ",link3_2_loss,desync_checks_passed\n"));
    int rows = 0;
    for (const char *line = csv; *line != '\0'; rows++) {
        assert_int_equal(csv_fields(line), columns);
        line = strchr(line, '\n');
        assert_non_null(line);
        line++;
    }
    assert_int_equal(rows, count + 1);
    /* at 41 s peer 1's series are NAN: empty fields, never "nan" */
    assert_null(strstr(csv, "nan"));
    const char *row = strstr(csv, "\n41.000000,");
    assert_non_null(row);
    const char *field = row + 1;
    for (int c = 0; c < 1 + 6; c++)          /* skip t_s and peer 0 */
        field = strchr(field, ',') + 1;
    assert_int_equal(*field, ',');            /* peer1_frame_skew is empty */
    const char *end = strchr(row + 1, '\n');
    assert_true(end[-1] == '1' && end[-2] == ',');  /* the check passed at 41 s */
    free(csv);
    sim_timeline_free(&t);
}

/* A random series: runs of equal values, NAN runs, spikes. */
static void random_series(float *v, int count, uint32_t seed)
{
    tempo_rng rng;
    tempo_rng_seed(&rng, seed, 1);
    float level = 0.0f;
    for (int i = 0; i < count;) {
        int run = 1 + (int)tempo_rng_below(&rng, 200);
        uint32_t what = tempo_rng_below(&rng, 10);
        for (int k = 0; k < run && i < count; k++, i++) {
            if (what == 0)
                v[i] = NAN;
            else if (what < 4)
                v[i] = level;                            /* flat run */
            else
                v[i] = level + (float)tempo_rng_below(&rng, 1000) / 100.0f;
        }
        level = (float)tempo_rng_below(&rng, 50);
        if (tempo_rng_below(&rng, 50) == 0 && count > 0)
            v[tempo_rng_below(&rng, (uint32_t)count)] = 1000.0f + (float)tempo_rng_below(&rng, 1000);
    }
}

static void test_decimate_keeps_bounds_peaks_and_gaps(void **state)
{
    (void)state;
    enum { MAX = 300 };
    int out[MAX];
    for (uint32_t seed = 1; seed <= 200; seed++) {
        tempo_rng rng;
        tempo_rng_seed(&rng, seed, 7);
        int count = 1 + (int)tempo_rng_below(&rng, seed % 4 == 0 ? 250 : 40000);
        float *v = malloc((size_t)count * sizeof *v);
        assert_non_null(v);
        random_series(v, count, seed);
        int n = sim_report_decimate(v, count, MAX, out);
        assert_true(n >= 1 && n <= MAX);
        float lo = INFINITY, hi = -INFINITY, klo = INFINITY, khi = -INFINITY;
        for (int i = 0; i < count; i++) {
            if (isfinite(v[i])) {
                lo = v[i] < lo ? v[i] : lo;
                hi = v[i] > hi ? v[i] : hi;
            }
        }
        bool kept_gap = false, has_gap = false;
        for (int k = 0; k < n; k++) {
            assert_true(out[k] >= 0 && out[k] < count);
            if (k > 0)
                assert_true(out[k] > out[k - 1]);
            float x = v[out[k]];
            kept_gap = kept_gap || !isfinite(x);
            if (isfinite(x)) {
                klo = x < klo ? x : klo;
                khi = x > khi ? x : khi;
            }
        }
        for (int i = 0; i < count; i++)
            has_gap = has_gap || !isfinite(v[i]);
        assert_true(kept_gap == has_gap);
        if (isfinite(hi)) {                       /* peaks and troughs survive */
            assert_true(khi == hi);
            assert_true(klo == lo);
        }
        /* a gap as long as two buckets always shows */
        int span = 2 * (count / (MAX / 3) + 1);
        for (int i = 0; i < count;) {
            if (isfinite(v[i])) {
                i++;
                continue;
            }
            int j = i;
            while (j < count && !isfinite(v[j]))
                j++;
            if (j - i >= span) {
                bool shown = false;
                for (int k = 0; k < n; k++)
                    shown = shown || (out[k] >= i && out[k] < j);
                assert_true(shown);
            }
            i = j;
        }
        free(v);
    }
}

static void test_decimate_keeps_every_change_of_a_short_series(void **state)
{
    (void)state;
    float v[] = {1, 1, 1, 2, 2, NAN, NAN, 3, 3, 3, 3, 0, 0};
    int out[16];
    int n = sim_report_decimate(v, 13, 16, out);
    const int want[] = {0, 2, 3, 4, 5, 7, 10, 11, 12};
    assert_int_equal(n, (int)(sizeof want / sizeof want[0]));
    for (int k = 0; k < n; k++)
        assert_int_equal(out[k], want[k]);
    assert_int_equal(sim_report_decimate(NULL, 13, 16, out), 0);
    assert_int_equal(sim_report_decimate(v, 0, 16, out), 0);
}

static void test_timeline_init_fills_nan_and_rejects_bad_arguments(void **state)
{
    (void)state;
    sim_timeline t;
    assert_false(sim_timeline_init(&t, 0, 10, 0.1));
    assert_false(sim_timeline_init(&t, SIM_MAX_PEERS + 1, 10, 0.1));
    assert_false(sim_timeline_init(&t, 2, 0, 0.1));
    assert_false(sim_timeline_init(&t, 2, 10, 0.0));
    assert_false(sim_timeline_init(NULL, 2, 10, 0.1));
    assert_true(sim_timeline_init(&t, 3, 10, 0.1));
    assert_int_equal(t.count, 0);
    assert_true(isnan(t.peer[2].payload_bytes_per_s[9]));
    assert_true(isnan(t.rtt_ms[0][2][5]));
    assert_true(isnan(t.loss[2][1][0]));
    assert_null(t.rtt_ms[1][1]);
    assert_null(t.peer[3].frame_skew);
    sim_timeline_free(&t);
    sim_timeline_free(&t);                    /* freeing twice is harmless */
    assert_null(t.peer[0].frame_skew);
}

static void test_timeline_mark_ignores_markers_past_capacity(void **state)
{
    (void)state;
    sim_timeline t;
    assert_true(sim_timeline_init(&t, 2, 4, 0.5));
    for (int i = 0; i < SIM_MAX_MARKERS + 10; i++)
        sim_timeline_mark(&t, i * 0.1, SIM_MARK_HICCUP, 1, "a label longer than the forty-seven bytes a marker keeps");
    assert_int_equal(t.num_markers, SIM_MAX_MARKERS);
    assert_int_equal(strlen(t.markers[0].label), sizeof t.markers[0].label - 1);
    assert_int_equal(t.markers[SIM_MAX_MARKERS - 1].kind, SIM_MARK_HICCUP);
    sim_timeline_mark(NULL, 1.0, SIM_MARK_HICCUP, 0, NULL);
    sim_timeline_free(&t);
}

static void test_timeline_counts_desync_checks_per_sample(void **state)
{
    (void)state;
    sim_timeline t;
    assert_true(sim_timeline_init(&t, 2, 100, 0.1));
    for (int i = 0; i < 5000; i++)                /* far more than markers[] holds */
        sim_timeline_mark(&t, (i % 100) * 0.1 + 0.04, SIM_MARK_DESYNC_CHECK, -1, NULL);
    assert_int_equal(t.num_markers, 0);
    for (int i = 0; i < 100; i++)
        assert_int_equal(t.checks_passed[i], 50);
    sim_timeline_mark(&t, 9.96, SIM_MARK_DESYNC_CHECK, -1, NULL);  /* nearest sample is 100: outside */
    sim_timeline_mark(&t, -1.0, SIM_MARK_DESYNC_CHECK, -1, NULL);
    sim_timeline_mark(&t, NAN, SIM_MARK_DESYNC_CHECK, -1, NULL);
    sim_timeline_mark(&t, 0.06, SIM_MARK_DESYNC_CHECK, -1, NULL);  /* nearest is sample 1 */
    assert_int_equal(t.checks_passed[99], 50);
    assert_int_equal(t.checks_passed[0], 50);
    assert_int_equal(t.checks_passed[1], 51);
    sim_timeline_mark(&t, 2.0, SIM_MARK_DESYNC, 0, "frame 120");  /* other kinds still land */
    assert_int_equal(t.num_markers, 1);
    sim_timeline_free(&t);
}

/* A timeline that meets every chart's good line: low flat skew, steady
 * input delay, shallow rollbacks, no stalls, clean links, small payload. */
static void build_good_timeline(sim_timeline *t, int count, double dt)
{
    assert_true(sim_timeline_init(t, 3, count, dt));
    t->is_spectator[2] = true;
    for (int i = 0; i < count; i++) {
        for (int p = 0; p < 3; p++) {
            sim_peer_series *ps = &t->peer[p];
            ps->frame_skew[i] = p == 2 ? NAN : (float)(0.3 + 0.1 * sin(i * 0.1 + p));
            ps->input_delay[i] = p == 2 ? NAN : 2.0f;
            ps->rollbacks_per_s[i] = p == 2 ? 0.0f : (float)(5.0 + (i % 3));
            ps->stalls_per_s[i] = i % 50 == 0 && p != 2 ? 4.0f : 0.0f;
            ps->payload_bytes_per_s[i] = (float)(p == 2 ? 300.0 : 2000.0 + 50.0 * sin(i * 0.3));
            for (int q = 0; q < 3; q++) {
                if (q == p || (p == 2 && q == 1) || (q == 2 && p == 1))
                    continue;
                t->rtt_ms[p][q][i] = (float)(40.0 + 2.0 * sin(i * 0.7));
                t->loss[p][q][i] = 0.0f;
            }
        }
    }
    t->count = count;
    for (int p = 0; p < 2; p++)
        for (int d = 0; d < 6; d++)
            t->depth_hist[p][d] = d <= 3 ? 500 : 10;
}

static void test_verdicts_meet_when_the_data_is_inside_every_good_line(void **state)
{
    (void)state;
    sim_timeline t;
    build_good_timeline(&t, 600, 0.1);
    sim_verdict v[SIM_CHARTS];
    sim_verdicts_judge(&t, t.peers, t.count, v);
    for (int c = 0; c < SIM_CHARTS; c++) {
        if (v[c].kind != SIM_VERDICT_MEETS)
            fail_msg("chart %d: %s", c, v[c].numbers);
        assert_true(strlen(v[c].good) > 20);
    }
    char *html = write_report(&t, &test_meta, OUT("good.html"));
    assert_well_formed(html);
    assert_null(strstr(html, "misses"));
    assert_non_null(strstr(html, "6 of 6 charts meet their good line"));
    assert_int_equal(count_of(html, "<span class=\"badge ok\">meets</span>"), SIM_CHARTS);
    free(html);
    sim_timeline_free(&t);
}

static void test_verdicts_miss_and_say_by_how_much(void **state)
{
    (void)state;
    sim_timeline t;
    build_good_timeline(&t, 600, 0.1);
    /* peer 1: skew over a frame in 60 of 600 samples (90% under), input
     * delay flapping 10 times in a minute, 80% shallow rollbacks, stalls
     * twice a second, 3% loss towards peer 0, a payload burst at the end */
    for (int i = 0; i < 60; i++)
        t.peer[1].frame_skew[100 + i] = 1.5f;
    for (int i = 0; i < 600; i++) {
        t.peer[1].input_delay[i] = (float)(2 + (i / 60) % 2);
        t.peer[1].stalls_per_s[i] = 2.0f;
        t.loss[1][0][i] = 0.03f;
    }
    for (int i = 550; i < 600; i++)
        t.peer[0].payload_bytes_per_s[i] = 6000.0f;
    for (int d = 4; d < 6; d++)
        t.depth_hist[1][d] = 250;
    sim_verdict v[SIM_CHARTS];
    sim_verdicts_judge(&t, t.peers, t.count, v);
    for (int c = 0; c < SIM_CHARTS; c++)
        if (v[c].kind != SIM_VERDICT_MISSES)
            fail_msg("chart %d should miss: %s", c, v[c].numbers);
    assert_non_null(strstr(v[SIM_CHART_SKEW].numbers, "peer 1: at or under 1 frame in 90% of its samples"));
    assert_non_null(strstr(v[SIM_CHART_SKEW].numbers, "peak 1.50 frames (peer 1)"));
    assert_non_null(strstr(v[SIM_CHART_DELAY].numbers, "peer 1 changed its input delay the most: 9 times"));
    assert_non_null(strstr(v[SIM_CHART_DEPTH].numbers, "peer 1: 80% of its rollbacks"));
    assert_non_null(strstr(v[SIM_CHART_RATE].numbers, "peer 1 stalls the most: 2.00 a second"));
    assert_non_null(strstr(v[SIM_CHART_LINK].numbers, "peer 1 \xE2\x86\x92 peer 0 loses the most: 3.0%"));
    assert_non_null(strstr(v[SIM_CHART_PAYLOAD].numbers, "at most 3.0\xC3\x97 the median"));
    char *html = write_report(&t, &test_meta, OUT("misses.html"));
    assert_non_null(strstr(html, "6 of 6 charts miss their good line"));
    assert_null(strstr(html, "<span class=\"badge ok\">meets</span>"));
    assert_int_equal(count_of(html, "<span class=\"badge bad\">misses</span>"), SIM_CHARTS);
    free(html);
    sim_timeline_free(&t);
}

static void test_verdict_rounds_as_it_prints(void **state)
{
    (void)state;
    sim_timeline t;
    build_good_timeline(&t, 1000, 0.1);
    /* 949 of 1000 under a frame prints as 95%: it meets, as printed */
    for (int i = 0; i < 51; i++)
        t.peer[0].frame_skew[i * 19] = 1.2f;
    sim_verdict v[SIM_CHARTS];
    sim_verdicts_judge(&t, t.peers, t.count, v);
    assert_int_equal(v[SIM_CHART_SKEW].kind, SIM_VERDICT_MEETS);
    assert_non_null(strstr(v[SIM_CHART_SKEW].numbers, "in 95% of its samples"));
    t.peer[0].frame_skew[1] = 1.2f;       /* 948: 94.8% prints 95% too */
    t.peer[0].frame_skew[2] = 1.2f;
    t.peer[0].frame_skew[3] = 1.2f;       /* 946: 94.6% still 95% */
    t.peer[0].frame_skew[4] = 1.2f;       /* 945: 94.5% rounds up, 95% */
    t.peer[0].frame_skew[5] = 1.2f;       /* 944: 94%, misses */
    sim_verdicts_judge(&t, t.peers, t.count, v);
    assert_int_equal(v[SIM_CHART_SKEW].kind, SIM_VERDICT_MISSES);
    assert_non_null(strstr(v[SIM_CHART_SKEW].numbers, "in 94% of its samples"));
    sim_timeline_free(&t);
}

static void test_spectators_get_no_empty_charts(void **state)
{
    (void)state;
    sim_timeline t;
    build_timeline(&t, 4, 400, 0.1);      /* peer 3 is a spectator */
    char *html = write_report(&t, &test_meta, OUT("spectator.html"));
    static const char *const players_only[] = {"chart-skew", "chart-delay", "chart-depth", "chart-rate"};
    for (size_t i = 0; i < sizeof players_only / sizeof players_only[0]; i++) {
        char *svg = chart_svg(html, players_only[i]);
        assert_non_null(svg);
        /* no legend item, line or panel of its own (a marker about it may name it) */
        if (strstr(svg, ">D-mobile (spectator)</text>") != NULL ||
            strstr(svg, "<title>D-mobile (spectator)</title>") != NULL)
            fail_msg("%s draws the spectator", players_only[i]);
        free(svg);
    }
    char *payload = chart_svg(html, "chart-payload");
    assert_non_null(strstr(payload, "<title>D-mobile (spectator)</title>"));   /* it sends: drawn */
    free(payload);
    free(html);
    sim_timeline_free(&t);
}

/* No tooltip says the same words twice: a marker's peer comes from the
 * marker, not from its label as well. */
static void test_tooltips_say_each_thing_once(void **state)
{
    (void)state;
    sim_timeline t;
    build_timeline(&t, 3, 300, 0.1);
    snprintf(t.peer_names[2], sizeof t.peer_names[2], "spectator 0");
    sim_timeline_mark(&t, 5.0, SIM_MARK_INPUT_DELAY, 1, "now 4 frames");
    char *html = write_report(&t, &test_meta, OUT("tooltips.html"));
    assert_non_null(strstr(html, "<title>5.00 s: input delay change, B-mobile: now 4 frames</title>"));
    assert_null(strstr(html, "spectator 0 (spectator)"));
    for (const char *p = html; (p = strstr(p, "<title>")) != NULL; p++) {
        const char *end = strstr(p, "</title>");
        assert_non_null(end);
        for (int q = 0; q < t.peers; q++) {
            const char *first = strstr(p, t.peer_names[q]);
            if (first != NULL && first < end) {
                const char *again = strstr(first + 1, t.peer_names[q]);
                if (again != NULL && again < end)
                    fail_msg("%.*s", (int)(end - p), p);
            }
        }
    }
    free(html);
    sim_timeline_free(&t);
}

/* Given the simulator's own table and match length, the page prints those
 * and no second table of its own, so no figure shows two values. */
static void test_each_figure_is_printed_once(void **state)
{
    (void)state;
    sim_timeline t;
    build_timeline(&t, 2, 651, 0.1);      /* last sample at 65.0 s */
    sim_report_meta meta = test_meta;
    meta.match_s = 65.26;
    char *html = write_report(&t, &meta, OUT("figures.html"));
    assert_int_equal(count_of(html, "<table"), 1);
    assert_non_null(strstr(html, "65.3 s of match time"));
    assert_null(strstr(html, "65.0 s"));
    free(html);
    html = write_report(&t, NULL, OUT("figures_alone.html"));
    assert_int_equal(count_of(html, "<table"), 1);      /* its own, computed from the timeline */
    assert_non_null(strstr(html, "65.0 s of match time"));
    free(html);
    sim_timeline_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_is_well_formed),
        cmocka_unit_test(test_report_has_every_chart_with_data),
        cmocka_unit_test(test_report_loads_nothing_from_the_network),
        cmocka_unit_test(test_report_escapes_every_text),
        cmocka_unit_test(test_report_draws_long_matches_with_bounded_points),
        cmocka_unit_test(test_report_handles_empty_and_flat_timelines),
        cmocka_unit_test(test_report_survives_an_inconsistent_timeline),
        cmocka_unit_test(test_report_write_fails_on_unwritable_path),
        cmocka_unit_test(test_verdicts_meet_when_the_data_is_inside_every_good_line),
        cmocka_unit_test(test_verdicts_miss_and_say_by_how_much),
        cmocka_unit_test(test_verdict_rounds_as_it_prints),
        cmocka_unit_test(test_spectators_get_no_empty_charts),
        cmocka_unit_test(test_tooltips_say_each_thing_once),
        cmocka_unit_test(test_each_figure_is_printed_once),
        cmocka_unit_test(test_csv_has_a_column_per_series_and_a_row_per_sample),
        cmocka_unit_test(test_decimate_keeps_bounds_peaks_and_gaps),
        cmocka_unit_test(test_decimate_keeps_every_change_of_a_short_series),
        cmocka_unit_test(test_timeline_init_fills_nan_and_rejects_bad_arguments),
        cmocka_unit_test(test_timeline_mark_ignores_markers_past_capacity),
        cmocka_unit_test(test_timeline_counts_desync_checks_per_sample),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
