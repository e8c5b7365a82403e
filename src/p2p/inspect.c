/* SPDX-License-Identifier: MIT */
/*
 * inspect.c — what tests may ask of a session's insides (p2p.h), beyond the
 * fields they read: the library itself never calls it.
 */
#include "p2p/p2p.h"

int32_t p2p_wanted_from(const tempo_session *s, const p2p_peer *e)
{
    return p2p_wanted(s->net, e);
}
