/* SPDX-License-Identifier: MIT */
/*
 * json_scan.h — a small, bounded reader of one JSON document held in a
 * buffer, enough for what tempo's programs read from local services (the
 * GameServer object of Agones' SDK server and its watch stream).
 *
 * json_scan_parse checks the whole document once against the JSON grammar
 * (RFC 8259): strict syntax, no trailing bytes, no raw control characters
 * in strings, escapes checked, nesting at most JSON_SCAN_MAX_DEPTH deep,
 * without recursion. A document that passes is then read in place: a
 * json_value is a span of the caller's buffer, never a copy, and the
 * accessors below trust the check, so they need no error paths of their
 * own beyond "not there" and "does not fit". Nothing allocates; the cost
 * of every call is bounded by the document's length.
 *
 * Strings are copied out with json_scan_string, which decodes the escapes
 * (\uXXXX pairs to UTF-8) into the caller's buffer and refuses a string
 * that does not fit or holds a NUL, so a value read is always a complete
 * C string.
 */
#ifndef TOOLS_JSON_SCAN_H
#define TOOLS_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define JSON_SCAN_MAX_DEPTH 64

typedef enum json_type {
    JSON_NONE = 0, /* no value (a member not found) */
    JSON_OBJECT,
    JSON_ARRAY,
    JSON_STRING,
    JSON_NUMBER,
    JSON_TRUE,
    JSON_FALSE,
    JSON_NULL
} json_type;

/* A value inside a checked document: its first byte and its length (a
 * string with its quotes, an object with its braces). */
typedef struct json_value {
    const char *p;
    size_t n;
    json_type type;
} json_value;

/* Check text[0..n) as one JSON document (whitespace around it allowed)
 * and point *root at its value. False if it is not valid JSON or nests
 * deeper than JSON_SCAN_MAX_DEPTH; *root is then JSON_NONE. */
bool json_scan_parse(const char *text, size_t n, json_value *root);

/* The member `key` of object obj (the first with that name), or false
 * (out set to JSON_NONE) if obj is not an object or has no such member.
 * Keys compare after decoding their escapes. */
bool json_scan_member(const json_value *obj, const char *key, json_value *out);

/* Follow a path of member names separated by '.' from obj ("status.state");
 * false as json_scan_member if any step is missing. */
bool json_scan_path(const json_value *obj, const char *path, json_value *out);

/* Walk an object's members or an array's elements: start with *pos = 0;
 * each call fills the next (key is JSON_NONE for an array element) and
 * returns true, or false at the end. */
bool json_scan_next(const json_value *container, size_t *pos, json_value *key, json_value *value);

/* Decode string v into buf[0..cap) with its terminating NUL. False (buf
 * empty) if v is not a string, holds a NUL (\u0000) or does not fit. */
bool json_scan_string(const json_value *v, char *buf, size_t cap);

/* Whether string v decodes to exactly s. */
bool json_scan_string_is(const json_value *v, const char *s);

/* A number that is a whole decimal integer in [-2^53, 2^53] (no fraction
 * or exponent), or a string holding one (the protobuf JSON mapping writes
 * 64-bit integers as strings). False otherwise. */
bool json_scan_int(const json_value *v, long long *out);

#ifdef __cplusplus
}
#endif

#endif /* TOOLS_JSON_SCAN_H */
