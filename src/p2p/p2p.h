/* SPDX-License-Identifier: MIT */
/*
 * p2p.h — a network session seen whole, for tests that inspect what a peer
 * holds or craft datagrams it would accept: the facade's session object and
 * the network backends' state it points to (tempo_session.net). The library
 * itself includes this only in inspect.c; backends include network.h.
 * Internal: not installed.
 */
#ifndef TEMPO_P2P_P2P_H
#define TEMPO_P2P_P2P_H

#include "p2p/network.h"
#include "session/session.h"

/* The next frame session s (p2p or spectator) wants from peer e. */
int32_t p2p_wanted_from(const tempo_session *s, const p2p_peer *e);

#endif /* TEMPO_P2P_P2P_H */
