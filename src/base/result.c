/* SPDX-License-Identifier: MIT */
/*
 * result.c — result codes as names and sentences, and the version linked.
 * Both come from lists in tempo/base.h, so they cannot drift from the enum.
 */
#include "base/common.h"

uint32_t tempo_version(void) { return TEMPO_VERSION_NUMBER; }

#define TEMPO_STR2_(x) #x
#define TEMPO_STR_(x) TEMPO_STR2_(x)
const char *tempo_version_string(void)
{
    return TEMPO_STR_(TEMPO_VERSION_MAJOR) "." TEMPO_STR_(TEMPO_VERSION_MINOR) "." TEMPO_STR_(
        TEMPO_VERSION_PATCH);
}

const char *tempo_strerror(int r)
{
    switch (r) {
#define TEMPO_RESULT_TEXT_(name, value, text) \
    case value: return text;
        TEMPO_RESULT_LIST(TEMPO_RESULT_TEXT_)
#undef TEMPO_RESULT_TEXT_
    default: return "unknown result";
    }
}

const char *tempo_result_name(int r)
{
    switch (r) {
#define TEMPO_RESULT_NAME_(name, value, text) \
    case value: return "TEMPO_" #name;
        TEMPO_RESULT_LIST(TEMPO_RESULT_NAME_)
#undef TEMPO_RESULT_NAME_
    default: return "TEMPO_UNKNOWN";
    }
}
