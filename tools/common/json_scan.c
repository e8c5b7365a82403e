/* SPDX-License-Identifier: MIT */
/*
 * json_scan.c — the bounded JSON reader (json_scan.h).
 *
 * Invariant: every accessor is only ever given spans inside a document
 * json_scan_parse accepted, so a string always has its closing quote, a
 * container its matching bracket, an escape its digits; the accessors
 * walk with that knowledge and never look past the span's end.
 */
#include "json_scan.h"

#include <string.h>

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static size_t skip_ws(const char *s, size_t i, size_t n)
{
    while (i < n && is_ws(s[i]))
        i++;
    return i;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* ---- the check -------------------------------------------------------------- */

/* s[*i] is '"': move past the closing quote; false on a raw control
 * character, a bad escape or no closing quote. */
static bool check_string(const char *s, size_t n, size_t *i)
{
    size_t k = *i + 1;
    while (k < n) {
        unsigned char c = (unsigned char)s[k];
        if (c == '"') {
            *i = k + 1;
            return true;
        }
        if (c < 0x20)
            return false;
        if (c != '\\') {
            k++;
            continue;
        }
        if (k + 1 >= n)
            return false;
        char e = s[k + 1];
        if (e == 'u') {
            if (k + 5 >= n)
                return false;
            for (int d = 2; d < 6; d++)
                if (hex_digit(s[k + (size_t)d]) < 0)
                    return false;
            k += 6;
        } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' ||
                   e == 'r' || e == 't') {
            k += 2;
        } else {
            return false;
        }
    }
    return false;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
static bool check_number(const char *s, size_t n, size_t *i)
{
    size_t k = *i;
    if (k < n && s[k] == '-')
        k++;
    if (k >= n || !is_digit(s[k]))
        return false;
    if (s[k] == '0')
        k++;
    else
        while (k < n && is_digit(s[k]))
            k++;
    if (k < n && s[k] == '.') {
        k++;
        if (k >= n || !is_digit(s[k]))
            return false;
        while (k < n && is_digit(s[k]))
            k++;
    }
    if (k < n && (s[k] == 'e' || s[k] == 'E')) {
        k++;
        if (k < n && (s[k] == '+' || s[k] == '-'))
            k++;
        if (k >= n || !is_digit(s[k]))
            return false;
        while (k < n && is_digit(s[k]))
            k++;
    }
    *i = k;
    return true;
}

static bool check_word(const char *s, size_t n, size_t *i, const char *word)
{
    size_t len = strlen(word);
    if (n - *i < len || memcmp(s + *i, word, len) != 0)
        return false;
    *i += len;
    return true;
}

static json_type type_at(char c)
{
    switch (c) {
    case '{':
        return JSON_OBJECT;
    case '[':
        return JSON_ARRAY;
    case '"':
        return JSON_STRING;
    case 't':
        return JSON_TRUE;
    case 'f':
        return JSON_FALSE;
    case 'n':
        return JSON_NULL;
    default:
        return c == '-' || is_digit(c) ? JSON_NUMBER : JSON_NONE;
    }
}

bool json_scan_parse(const char *s, size_t n, json_value *root)
{
    if (root)
        *root = (json_value){NULL, 0, JSON_NONE};
    if (!s || !root)
        return false;
    char stack[JSON_SCAN_MAX_DEPTH]; /* '{' or '[' per open container */
    int depth = 0;
    size_t i = skip_ws(s, 0, n), start = i;
    bool want_key = false; /* inside an object, before a member's name */
    for (;;) {
        /* a value (or an object's key, then ':' and a value) */
        i = skip_ws(s, i, n);
        if (i >= n)
            return false;
        if (want_key) {
            if (s[i] != '"' || !check_string(s, n, &i))
                return false;
            i = skip_ws(s, i, n);
            if (i >= n || s[i] != ':')
                return false;
            i = skip_ws(s, i + 1, n);
            if (i >= n)
                return false;
            want_key = false;
        }
        char c = s[i];
        bool ok = true;
        if (c == '{' || c == '[') {
            if (depth == JSON_SCAN_MAX_DEPTH)
                return false;
            stack[depth++] = c;
            i = skip_ws(s, i + 1, n);
            if (i < n && s[i] == (c == '{' ? '}' : ']')) {
                depth--; /* empty: the value is complete */
                i++;
            } else {
                want_key = c == '{';
                continue;
            }
        } else if (c == '"') {
            ok = check_string(s, n, &i);
        } else if (c == '-' || is_digit(c)) {
            ok = check_number(s, n, &i);
        } else if (c == 't') {
            ok = check_word(s, n, &i, "true");
        } else if (c == 'f') {
            ok = check_word(s, n, &i, "false");
        } else if (c == 'n') {
            ok = check_word(s, n, &i, "null");
        } else {
            ok = false;
        }
        if (!ok)
            return false;
        /* after a complete value: close containers, or a comma for the next */
        for (;;) {
            if (depth == 0) {
                size_t end = i;
                if (skip_ws(s, i, n) != n)
                    return false;
                *root = (json_value){s + start, end - start, type_at(s[start])};
                return true;
            }
            i = skip_ws(s, i, n);
            if (i >= n)
                return false;
            char top = stack[depth - 1];
            if (s[i] == ',') {
                i++;
                want_key = top == '{';
                break;
            }
            if (s[i] != (top == '{' ? '}' : ']'))
                return false;
            depth--;
            i++;
        }
    }
}

/* ---- reading a checked document ---------------------------------------------- */

/* The index just past the value starting at p[i] (checked JSON). */
static size_t skip_value(const char *p, size_t i, size_t end)
{
    char c = p[i];
    if (c == '"') {
        for (i++; i < end && p[i] != '"'; i++)
            if (p[i] == '\\')
                i++;
        return i + 1;
    }
    if (c == '{' || c == '[') {
        int depth = 0;
        for (; i < end; i++) {
            char d = p[i];
            if (d == '"') {
                i = skip_value(p, i, end) - 1;
            } else if (d == '{' || d == '[') {
                depth++;
            } else if (d == '}' || d == ']') {
                if (--depth == 0)
                    return i + 1;
            }
        }
        return end;
    }
    while (i < end && !is_ws(p[i]) && p[i] != ',' && p[i] != '}' && p[i] != ']')
        i++;
    return i;
}

static json_value value_at(const char *p, size_t i, size_t end)
{
    size_t e = skip_value(p, i, end);
    return (json_value){p + i, e - i, type_at(p[i])};
}

bool json_scan_next(const json_value *c, size_t *pos, json_value *key, json_value *value)
{
    if (!c || !pos || !value || (c->type != JSON_OBJECT && c->type != JSON_ARRAY) || c->n < 2)
        return false;
    const char *p = c->p;
    size_t end = c->n - 1; /* the closing bracket */
    size_t i = *pos == 0 ? 1 : *pos;
    if (i >= end)
        return false;
    i = skip_ws(p, i, end);
    if (i < end && p[i] == ',')
        i = skip_ws(p, i + 1, end);
    if (i >= end)
        return false;
    json_value k = {NULL, 0, JSON_NONE};
    if (c->type == JSON_OBJECT) {
        k = value_at(p, i, end);
        i = skip_ws(p, i + k.n, end);
        i = skip_ws(p, i + 1, end); /* the ':' */
    }
    *value = value_at(p, i, end);
    if (key)
        *key = k;
    *pos = i + value->n;
    return true;
}

/* The next decoded character of the string body at p[*i] as UTF-8 into
 * out (1..4 bytes), or 0 at the closing quote. Lone surrogates become
 * U+FFFD. */
static int decode_char(const char *p, size_t *i, unsigned char out[4])
{
    char c = p[*i];
    if (c == '"')
        return 0;
    if (c != '\\') {
        out[0] = (unsigned char)c;
        (*i)++;
        return 1;
    }
    char e = p[*i + 1];
    *i += 2;
    switch (e) {
    case 'b':
        out[0] = '\b';
        return 1;
    case 'f':
        out[0] = '\f';
        return 1;
    case 'n':
        out[0] = '\n';
        return 1;
    case 'r':
        out[0] = '\r';
        return 1;
    case 't':
        out[0] = '\t';
        return 1;
    case 'u':
        break;
    default: /* '"', '\\', '/' */
        out[0] = (unsigned char)e;
        return 1;
    }
    unsigned cp = 0;
    for (int d = 0; d < 4; d++)
        cp = cp << 4 | (unsigned)hex_digit(p[*i + (size_t)d]);
    *i += 4;
    if (cp >= 0xd800 && cp <= 0xdbff && p[*i] == '\\' && p[*i + 1] == 'u') {
        unsigned lo = 0;
        for (int d = 0; d < 4; d++)
            lo = lo << 4 | (unsigned)hex_digit(p[*i + 2 + (size_t)d]);
        if (lo >= 0xdc00 && lo <= 0xdfff) {
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            *i += 6;
        }
    }
    if (cp >= 0xd800 && cp <= 0xdfff)
        cp = 0xfffd;
    if (cp < 0x80) {
        out[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (unsigned char)(0xc0 | cp >> 6);
        out[1] = (unsigned char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (unsigned char)(0xe0 | cp >> 12);
        out[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
        out[2] = (unsigned char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (unsigned char)(0xf0 | cp >> 18);
    out[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
    out[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
    out[3] = (unsigned char)(0x80 | (cp & 0x3f));
    return 4;
}

bool json_scan_string(const json_value *v, char *buf, size_t cap)
{
    if (!buf || cap == 0)
        return false;
    buf[0] = '\0';
    if (!v || v->type != JSON_STRING)
        return false;
    size_t i = 1, len = 0;
    unsigned char ch[4];
    int k;
    while ((k = decode_char(v->p, &i, ch)) > 0) {
        if (len + (size_t)k >= cap || (k == 1 && ch[0] == 0)) {
            buf[0] = '\0';
            return false;
        }
        memcpy(buf + len, ch, (size_t)k);
        len += (size_t)k;
    }
    buf[len] = '\0';
    return true;
}

bool json_scan_string_is(const json_value *v, const char *s)
{
    if (!v || !s || v->type != JSON_STRING)
        return false;
    size_t i = 1, at = 0, want = strlen(s);
    unsigned char ch[4];
    int k;
    while ((k = decode_char(v->p, &i, ch)) > 0) {
        if (want - at < (size_t)k || memcmp(s + at, ch, (size_t)k) != 0)
            return false;
        at += (size_t)k;
    }
    return at == want;
}

bool json_scan_member(const json_value *obj, const char *key, json_value *out)
{
    if (out)
        *out = (json_value){NULL, 0, JSON_NONE};
    if (!obj || !key || !out || obj->type != JSON_OBJECT)
        return false;
    size_t pos = 0;
    json_value k, v;
    while (json_scan_next(obj, &pos, &k, &v))
        if (json_scan_string_is(&k, key)) {
            *out = v;
            return true;
        }
    return false;
}

bool json_scan_path(const json_value *obj, const char *path, json_value *out)
{
    if (out)
        *out = (json_value){NULL, 0, JSON_NONE};
    if (!obj || !path || !out)
        return false;
    json_value at = *obj;
    char name[128];
    while (*path) {
        const char *dot = strchr(path, '.');
        size_t len = dot ? (size_t)(dot - path) : strlen(path);
        if (len == 0 || len >= sizeof name)
            return false;
        memcpy(name, path, len);
        name[len] = '\0';
        json_value next;
        if (!json_scan_member(&at, name, &next))
            return false;
        at = next;
        path += len + (dot ? 1 : 0);
    }
    *out = at;
    return true;
}

bool json_scan_int(const json_value *v, long long *out)
{
    if (!v || !out)
        return false;
    const char *p = v->p;
    size_t n = v->n;
    if (v->type == JSON_STRING) {
        p++;
        n -= 2;
    } else if (v->type != JSON_NUMBER) {
        return false;
    }
    size_t i = 0;
    bool neg = n > 0 && p[0] == '-';
    i += neg;
    if (i >= n || (p[i] == '0' && n - i > 1))
        return false;
    const unsigned long long limit = 1ull << 53;
    unsigned long long x = 0;
    for (; i < n; i++) {
        if (!is_digit(p[i]))
            return false;
        x = x * 10u + (unsigned long long)(p[i] - '0');
        if (x > limit)
            return false;
    }
    *out = neg ? -(long long)x : (long long)x;
    return true;
}
