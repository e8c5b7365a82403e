/* SPDX-License-Identifier: MIT */
/*
 * sim_metrics.c — the measurement vocabulary's one implementation
 * (sim_metrics.h). Each function is the arithmetic every mode printed
 * before it was shared, in the same order, so the figures are the same to
 * the last bit whichever mode computes them.
 */
#include <math.h>
#include <stdlib.h>

#include "sim_metrics.h"

void sim_stat_add(sim_stat *s, double v)
{
    s->n++;
    s->sum += v;
    if (v > s->max)
        s->max = v;
}

void sim_stat_merge(sim_stat *into, const sim_stat *from)
{
    into->n += from->n;
    into->sum += from->sum;
    if (from->max > into->max)
        into->max = from->max;
}

double sim_mean(double sum, uint64_t n, double empty)
{
    return n ? sum / (double)n : empty;
}

double sim_stat_mean(const sim_stat *s, double empty)
{
    return sim_mean(s->sum, s->n, empty);
}

double sim_per_s(double count, double seconds)
{
    return seconds > 0 ? count / seconds : 0.0;
}

double sim_per_min(double count, double seconds)
{
    return seconds > 0 ? count * 60.0 / seconds : 0.0;
}

double sim_per_min_vt(uint64_t count, uint64_t from_vt, uint64_t to_vt)
{
    return to_vt > from_vt ? (double)count * 60e6 / (double)(to_vt - from_vt) : 0.0;
}

double sim_kbps(uint64_t bytes, double seconds)
{
    return seconds > 0 ? (double)bytes * 8.0 / 1000.0 / seconds : 0.0;
}

double sim_pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

int sim_pct_rounded(uint64_t part, uint64_t whole)
{
    return whole > 0 ? (int)floor(100.0 * (double)part / (double)whole + 0.5) : 0;
}

static int by_value(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

int sim_sorted_finite(const float *v, int from, int to, float *buf)
{
    int n = 0;
    for (int i = from; v != NULL && i < to; i++)
        if (isfinite(v[i]))
            buf[n++] = v[i];
    qsort(buf, (size_t)n, sizeof *buf, by_value);
    return n;
}

double sim_quantile(const float *sorted, int n, double q)
{
    int k = (int)ceil(q * n) - 1;
    return sorted[k < 0 ? 0 : k >= n ? n - 1 : k];
}

double sim_shown(double x, int decimals)
{
    double scale = pow(10.0, decimals);
    return floor(x * scale + 0.5) / scale;
}
