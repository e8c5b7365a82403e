/* SPDX-License-Identifier: MIT */
/*
 * fragment.c — splitting and reassembly (fragment.h).
 *
 * Invariants of a used slot: 2 <= count <= FRAG_MAX_COUNT; `have` has
 * exactly `received` bits, all below count; every held fragment's bytes are
 * in data at index * FRAG_CHUNK; size is nonzero exactly when the last
 * fragment is held, and then (count - 1) * FRAG_CHUNK < size <=
 * FRAG_MAX_PAYLOAD. A slot is freed when it completes, expires or is
 * evicted; its buffer is not cleared (what it held is never read again
 * before fragments overwrite it, since only held indices are delivered).
 */
#include "wire/fragment.h"

#include <string.h>

#include "base/common.h"

int frag_count(size_t size)
{
    if (size <= FRAG_CHUNK || size > FRAG_MAX_PAYLOAD)
        return 0;
    return (int)((size + FRAG_CHUNK - 1) / FRAG_CHUNK);
}

int frag_write(const tempo_packet_header *h, uint16_t message_id, const uint8_t *payload,
               size_t size, int index, uint8_t *buf, size_t capacity)
{
    int count = frag_count(size);
    if (h == NULL || payload == NULL || buf == NULL || count == 0 || index < 0 ||
        index >= count || h->sealed)
        return TEMPO_E_INVALID_ARG;
    size_t off = (size_t)index * FRAG_CHUNK;
    size_t len = size - off < FRAG_CHUNK ? size - off : FRAG_CHUNK;
    size_t total = PACKET_HEADER_SIZE + FRAG_HEADER_SIZE + len;
    tempo_packet_header fh = *h;
    fh.fragment = true;
    int rc = packet_write(&fh, buf, capacity);
    if (rc < 0)
        return rc;
    if (capacity < total)
        return TEMPO_E_FULL;
    uint8_t *b = buf + PACKET_HEADER_SIZE;
    b[0] = (uint8_t)message_id;
    b[1] = (uint8_t)(message_id >> 8);
    b[2] = (uint8_t)index;
    b[3] = (uint8_t)count;
    memcpy(b + FRAG_HEADER_SIZE, payload + off, len);
    return (int)total;
}

size_t frag_memory_size(int slots)
{
    return slots < 1 || slots > FRAG_MAX_SLOTS ? 0 : (size_t)slots * FRAG_MAX_PAYLOAD;
}

int frag_init(tempo_frag_assembler *a, int slots, uint64_t timeout_us, uint8_t *memory,
              size_t memory_size)
{
    if (a == NULL || memory == NULL || slots < 1 || slots > FRAG_MAX_SLOTS || timeout_us == 0 ||
        memory_size < frag_memory_size(slots))
        return TEMPO_E_INVALID_ARG;
    memset(a, 0, sizeof *a);
    a->slots = slots;
    a->timeout_us = timeout_us;
    a->memory = memory;
    for (int i = 0; i < slots; i++)
        a->slot[i].data = memory + (size_t)i * FRAG_MAX_PAYLOAD;
    return TEMPO_OK;
}

int frag_create(tempo_frag_assembler *a, int slots, uint64_t timeout_us,
                const tempo_allocator *alloc)
{
    size_t bytes = frag_memory_size(slots);
    if (a == NULL || bytes == 0 || timeout_us == 0)
        return TEMPO_E_INVALID_ARG;
    uint8_t *memory = tempo__calloc(alloc, 1, bytes);
    if (memory == NULL)
        return TEMPO_E_NO_MEMORY;
    int rc = frag_init(a, slots, timeout_us, memory, bytes);
    TEMPO_ASSERT(rc == TEMPO_OK);
    a->alloc = alloc;
    a->owned = true;
    return rc;
}

void frag_destroy(tempo_frag_assembler *a)
{
    if (a == NULL)
        return;
    if (a->owned)
        tempo__free(a->alloc, a->memory);
    memset(a, 0, sizeof *a);
}

static bool expired(const tempo_frag_assembler *a, const frag_slot *s, uint64_t now_us)
{
    /* a clock that stepped back makes the slot younger, never older */
    return now_us >= s->started_us && now_us - s->started_us >= a->timeout_us;
}

int frag_expire(tempo_frag_assembler *a, uint64_t now_us)
{
    int n = 0;
    for (int i = 0; a != NULL && i < a->slots; i++) {
        if (a->slot[i].used && expired(a, &a->slot[i], now_us)) {
            a->slot[i].used = false;
            n++;
        }
    }
    return n;
}

int frag_pending(const tempo_frag_assembler *a)
{
    int n = 0;
    for (int i = 0; a != NULL && i < a->slots; i++)
        n += a->slot[i].used;
    return n;
}

/* id a is newer than id b, wrapping (RFC 1982 on 16 bits). */
static bool id_newer(uint16_t a, uint16_t b)
{
    return (uint16_t)(a - b) != 0 && (uint16_t)(a - b) < 0x8000u;
}

/* The slot for message `id`: its own, a free one, or the oldest evicted
 * for a newer message; NULL when every slot holds a newer message. */
static frag_slot *slot_for(tempo_frag_assembler *a, uint16_t id, bool *fresh)
{
    frag_slot *free_slot = NULL, *oldest = NULL;
    for (int i = 0; i < a->slots; i++) {
        frag_slot *s = &a->slot[i];
        if (s->used && s->id == id) {
            *fresh = false;
            return s;
        }
        if (!s->used && free_slot == NULL)
            free_slot = s;
        if (s->used && (oldest == NULL || s->started_us < oldest->started_us))
            oldest = s;
    }
    *fresh = true;
    if (free_slot != NULL)
        return free_slot;
    return id_newer(id, oldest->id) ? oldest : NULL;
}

static int refuse(tempo_drop_reason *reason, tempo_drop_reason why)
{
    *reason = why;
    return TEMPO_E_MALFORMED;
}

int frag_receive(tempo_frag_assembler *a, uint64_t now_us, uint8_t type, const uint8_t *body,
                 size_t body_size, tempo_frag_message *out, tempo_drop_reason *reason)
{
    tempo_drop_reason unused;
    if (reason == NULL)
        reason = &unused;
    *reason = TEMPO_DROP_NONE;
    if (a == NULL || out == NULL || (body == NULL && body_size != 0) || a->slots == 0)
        return TEMPO_E_INVALID_ARG;
    frag_expire(a, now_us);
    /* the fragment alone, before any slot is touched */
    if (body_size < FRAG_HEADER_SIZE + 1 || body_size > FRAG_HEADER_SIZE + FRAG_CHUNK ||
        type == 0 || type > PACKET_MAX_TYPE)
        return refuse(reason, TEMPO_DROP_FRAG_BAD);
    uint16_t id = (uint16_t)(body[0] | body[1] << 8);
    int index = body[2], count = body[3];
    size_t len = body_size - FRAG_HEADER_SIZE;
    bool last = index == count - 1;
    if (count < 2 || count > FRAG_MAX_COUNT || index >= count || (!last && len != FRAG_CHUNK) ||
        (last && (size_t)index * FRAG_CHUNK + len > FRAG_MAX_PAYLOAD))
        return refuse(reason, TEMPO_DROP_FRAG_BAD);
    bool fresh;
    frag_slot *s = slot_for(a, id, &fresh);
    if (s == NULL)
        return refuse(reason, TEMPO_DROP_FRAG_BUSY);
    if (fresh) {
        s->used = true;
        s->id = id;
        s->type = type;
        s->count = (uint8_t)count;
        s->received = 0;
        s->have = 0;
        s->size = 0;
        s->started_us = now_us;
    } else if (s->type != type || s->count != count) {
        return refuse(reason, TEMPO_DROP_FRAG_BAD);
    } else if ((s->have >> index) & 1u) {
        return refuse(reason, TEMPO_DROP_FRAG_DUPLICATE);
    }
    memcpy(s->data + (size_t)index * FRAG_CHUNK, body + FRAG_HEADER_SIZE, len);
    s->have |= (uint64_t)1 << index;
    s->received++;
    if (last)
        s->size = (size_t)index * FRAG_CHUNK + len;
    if (s->received < s->count)
        return 0;
    s->used = false;
    out->type = s->type;
    out->id = s->id;
    out->data = s->data;
    out->size = s->size;
    return 1;
}
