/* SPDX-License-Identifier: MIT */
/*
 * fragment.h — payloads larger than a datagram: split into fragments on
 * the way out, reassembled on the way in (docs/PROTOCOL.md section 4).
 *
 * A fragment is a datagram whose header has the fragment flag and the type
 * of the whole message; its body is
 *
 *   bytes 0-1  message id, little endian (the sender's counter of fragmented
 *              messages to this receiver, +1 per message, wrapping)
 *   byte 2     index, 0 .. count - 1
 *   byte 3     count, 2 .. FRAG_MAX_COUNT
 *   bytes 4..  the payload bytes [index * FRAG_CHUNK, ...): exactly
 *              FRAG_CHUNK of them except in the last fragment (1 .. FRAG_CHUNK)
 *
 * so a fragment datagram is at most 8 + 4 + 1152 = 1164 bytes, 1180 sealed.
 * A payload that fits one chunk is never fragmented (count >= 2).
 *
 * The reassembler holds at most `slots` partial messages, each in a
 * FRAG_MAX_PAYLOAD buffer fixed at init: memory is bounded per link and
 * nothing is allocated per datagram. A partial message expires once it is
 * `timeout_us` old (time is always the caller's argument). When every slot
 * is busy, a fragment of a message newer than the oldest partial (by 16-bit
 * serial arithmetic on ids) evicts it; an older one is dropped.
 *
 * Every header field is checked against the slot it would join: a count,
 * type or chunk size that disagrees, an index out of range, a total above
 * FRAG_MAX_PAYLOAD are FRAG_BAD; an index already held is FRAG_DUPLICATE.
 */
#ifndef TEMPO_WIRE_FRAGMENT_H
#define TEMPO_WIRE_FRAGMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tempo/base.h"
#include "wire/drop.h"
#include "wire/packet.h"

#define FRAG_HEADER_SIZE 4
#define FRAG_CHUNK 1152                   /* payload bytes per fragment */
#define FRAG_MAX_PAYLOAD 65536            /* 64 KiB */
#define FRAG_MAX_COUNT ((FRAG_MAX_PAYLOAD + FRAG_CHUNK - 1) / FRAG_CHUNK) /* 57 */
#define FRAG_MAX_SLOTS 8

/* Fragments a payload of `size` bytes takes: 2 .. FRAG_MAX_COUNT, or 0 when
 * it needs none (size <= FRAG_CHUNK) or cannot be sent (size above
 * FRAG_MAX_PAYLOAD). */
int frag_count(size_t size);

/* Write fragment `index` of `payload` (size bytes) as a whole datagram into
 * buf: the header h with its fragment flag set (h->sealed must be false:
 * sealing appends the tag afterwards, and FRAG_CHUNK leaves room for it),
 * then the fragment body. Returns the datagram size, or TEMPO_E_INVALID_ARG
 * (NULL, frag_count(size) == 0, index out of range, a bad header),
 * TEMPO_E_FULL (capacity too small). */
int frag_write(const tempo_packet_header *h, uint16_t message_id, const uint8_t *payload,
               size_t size, int index, uint8_t *buf, size_t capacity);

typedef struct frag_slot {
    uint8_t *data;        /* FRAG_MAX_PAYLOAD bytes */
    bool used;
    uint16_t id;
    uint8_t type;
    uint8_t count;
    uint8_t received;     /* fragments held */
    uint64_t have;        /* bit i: fragment i held (FRAG_MAX_COUNT <= 64) */
    size_t size;          /* total size, known once the last fragment is held */
    uint64_t started_us;  /* arrival of its first fragment */
} frag_slot;

typedef struct tempo_frag_assembler {
    frag_slot slot[FRAG_MAX_SLOTS];
    int slots;
    uint64_t timeout_us;
    uint8_t *memory;      /* slots * FRAG_MAX_PAYLOAD bytes */
    const tempo_allocator *alloc; /* non-NULL when frag_create allocated memory */
    bool owned;
} tempo_frag_assembler;

/* A reassembled message: valid until the next call on the assembler. */
typedef struct tempo_frag_message {
    uint8_t type;
    uint16_t id;
    const uint8_t *data;
    size_t size;
} tempo_frag_message;

/* Bytes of memory `slots` partial messages need. */
size_t frag_memory_size(int slots);

/* Set up over caller memory (frag_memory_size(slots) bytes, any alignment).
 * slots 1..FRAG_MAX_SLOTS, timeout_us > 0. TEMPO_OK or TEMPO_E_INVALID_ARG. */
int frag_init(tempo_frag_assembler *a, int slots, uint64_t timeout_us, uint8_t *memory,
              size_t memory_size);

/* The same, allocating the memory once through alloc (NULL: malloc).
 * TEMPO_E_NO_MEMORY if that fails. Free with frag_destroy. */
int frag_create(tempo_frag_assembler *a, int slots, uint64_t timeout_us,
                const tempo_allocator *alloc);
void frag_destroy(tempo_frag_assembler *a);

/* A fragment arrived at now_us: `body` (body_size bytes) of a datagram
 * whose header said fragment, with type `type`. Partial messages older than
 * the timeout expire first. Returns 1 with *out filled when this fragment
 * completed a message, 0 when it was stored, TEMPO_E_MALFORMED with *reason
 * (FRAG_BAD, FRAG_DUPLICATE, FRAG_BUSY), TEMPO_E_INVALID_ARG for NULLs. */
int frag_receive(tempo_frag_assembler *a, uint64_t now_us, uint8_t type, const uint8_t *body,
                 size_t body_size, tempo_frag_message *out, tempo_drop_reason *reason);

/* Drop every partial message at least timeout_us old at now_us; returns how
 * many. frag_receive does this itself; a receiver with nothing arriving
 * may call it to free the memory's contents sooner. */
int frag_expire(tempo_frag_assembler *a, uint64_t now_us);

/* Partial messages held. */
int frag_pending(const tempo_frag_assembler *a);

#endif /* TEMPO_WIRE_FRAGMENT_H */
