/* SPDX-License-Identifier: MIT */
/*
 * drop.c — names of the drop reasons (drop.h), as stats and logs print them.
 */
#include "wire/drop.h"

const char *tempo_drop_reason_name(tempo_drop_reason r)
{
    switch (r) {
    case TEMPO_DROP_NONE: return "none";
    case TEMPO_DROP_TOO_SHORT: return "too_short";
    case TEMPO_DROP_TOO_LONG: return "too_long";
    case TEMPO_DROP_BAD_MAGIC: return "bad_magic";
    case TEMPO_DROP_BAD_VERSION: return "bad_version";
    case TEMPO_DROP_BAD_TYPE: return "bad_type";
    case TEMPO_DROP_SEALED: return "sealed";
    case TEMPO_DROP_FRAGMENT: return "fragment";
    case TEMPO_DROP_TRUNCATED: return "truncated";
    case TEMPO_DROP_BAD_VALUE: return "bad_value";
    case TEMPO_DROP_NO_REFERENCE: return "no_reference";
    case TEMPO_DROP_TRAILING: return "trailing";
    case TEMPO_DROP_DUPLICATE: return "duplicate";
    case TEMPO_DROP_STALE: return "stale";
    case TEMPO_DROP_FRAG_BAD: return "frag_bad";
    case TEMPO_DROP_FRAG_DUPLICATE: return "frag_duplicate";
    case TEMPO_DROP_FRAG_BUSY: return "frag_busy";
    case TEMPO_DROP_FORGED: return "forged";
    case TEMPO_DROP_UNKNOWN: return "unknown_sender";
    case TEMPO_DROP_SESSION: return "session";
    case TEMPO_DROP_PLAIN: return "plain";
    case TEMPO_DROP_CLOSED: return "closed";
    case TEMPO_DROP_HELD: return "held";
    case TEMPO_DROP_EARLY: return "early";
    default: return "unknown";
    }
}
