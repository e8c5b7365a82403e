/* SPDX-License-Identifier: MIT */
/*
 * channel.h — one client-server connection after the handshake, either
 * side: its link (sequences, acks, RTT, loss, liveness), its keys, its
 * replay window and the id of its next fragmented message. The server
 * keeps one per client, the client one for the server.
 *
 * Sending: a body of any size up to FRAG_MAX_PAYLOAD goes as one datagram
 * when it fits a fragment's chunk, else as fragments, each with its own
 * sequence; each datagram is sealed when the channel has keys. Receiving
 * is every role's pipeline (net/receive.h), whose reasons the client and
 * the server count: header -> session id -> recover the sequence -> replay
 * window (DUPLICATE, STALE) -> open the seal (FORGED) -> one far ahead is
 * HELD, its body unused -> the body's link prefix read -> the link and
 * the window take the sequence -> the prefix's acks applied. A sealed
 * channel refuses plain datagrams (PLAIN) and a plain one sealed
 * datagrams (SEALED).
 *
 * Nothing here allocates or reads a clock.
 */
#ifndef TEMPO_CS_CHANNEL_H
#define TEMPO_CS_CHANNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tempo/transport.h"
#include "net/link.h"
#include "net/receive.h"
#include "wire/cs_msg.h"
#include "wire/packet.h"
#include "wire/replay_window.h"
#include "wire/seal.h"

typedef struct cs_channel {
    net_link link;
    wire_keys keys;          /* ready when sealed */
    bool sealed;
    tempo_replay replay;     /* the other side's sequences taken */
    uint32_t session_id;
    uint16_t frag_id;        /* the next fragmented message's id */
    tempo_address to;
} cs_channel;

/* Start a channel at now to `to`. keys: NULL (plain) or ready keys
 * (copied). timeout_us: silence before the link times out. */
void cs_channel_init(cs_channel *ch, uint64_t now, const tempo_address *to, uint32_t session_id,
                     const wire_keys *keys, uint64_t timeout_us);
/* Wipe the keys. */
void cs_channel_wipe(cs_channel *ch);

/* The link prefix every body starts with: our acks of its datagrams. */
cs_msg_prefix cs_channel_prefix(const cs_channel *ch);

/* Goodbyes go as this many copies of a BYE (a lost one costs the other
 * side a timeout), whose body is the link prefix alone. */
#define CS_BYE_COPIES 3
void cs_channel_bye_body(const cs_channel *ch, uint8_t body[CS_MSG_PREFIX_SIZE]);

/* Send body[0..size) of `type`: one datagram, or fragments (size up to
 * FRAG_MAX_PAYLOAD). scratch: TEMPO_MAX_DATAGRAM bytes. Returns the bytes
 * put on the wire (> 0), or a negative tempo_result (TEMPO_E_INVALID_ARG
 * for a size that cannot go); a transport failure is counted by the link
 * as sent and lost. */
int cs_channel_send(cs_channel *ch, uint64_t now, const tempo_transport *t, uint8_t type,
                    const uint8_t *body, size_t size, uint8_t *scratch);

/* Take one datagram through the receive pipeline (data is opened in
 * place). TEMPO_DROP_NONE: d->body points into data, d->v.h.type is its
 * type and d->v.h.fragment says the body is a fragment for the caller's
 * reassembler; the link prefix of a whole body has been applied (a
 * fragment's is applied by cs_channel_on_body once whole). Otherwise the
 * reason it was dropped (net/receive.h), for the caller to count. */
tempo_drop_reason cs_channel_receive(cs_channel *ch, uint64_t now, uint8_t *data, size_t size,
                                     net_datagram *d);

/* Apply the link prefix of a whole body (after reassembly). False if it
 * does not read. */
bool cs_channel_on_body(cs_channel *ch, uint64_t now, const uint8_t *body, size_t size);

#endif /* TEMPO_CS_CHANNEL_H */
