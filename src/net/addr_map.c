/* SPDX-License-Identifier: MIT */
/*
 * addr_map.c — the address table (net/addr_map.h). A key is hashed over
 * the bytes tempo_address_equal compares (family, port, and the address
 * bytes the family uses), so equal addresses always share a home slot.
 * The hash is keyed with 128 random bits (splitmix64's finaliser, not a
 * PRF: only admitted addresses enter the table, so clustering them takes
 * admitted connections, and costs probes, nothing else). Invariant: between an entry's home slot and the slot it sits in there
 * is no empty slot (what linear probing's lookup relies on); removal
 * keeps it by moving later entries of the run back.
 */
#include "net/addr_map.h"

#include <string.h>

/* A 64-bit finaliser (the xor-shift-multiply rounds of splitmix64). */
static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint32_t slot_of(const addr_map *m, const tempo_address *a)
{
    uint8_t b[16] = {0};
    size_t len = 0;
    if (a->family == TEMPO_ADDRESS_IPV4)
        len = 4;
    else if (a->family == TEMPO_ADDRESS_IPV6)
        len = 16;
    else if (a->family == TEMPO_ADDRESS_OPAQUE)
        len = a->id_size <= 16 ? a->id_size : 16;
    memcpy(b, a->bytes, len);
    uint64_t w0, w1;
    memcpy(&w0, b, 8);
    memcpy(&w1, b + 8, 8);
    uint64_t tag = (uint64_t)a->family | (uint64_t)a->port << 8 |
                   (uint64_t)(a->family == TEMPO_ADDRESS_OPAQUE ? a->id_size : 0) << 24;
    uint64_t h = mix(m->k0 ^ w0);
    h = mix(h ^ w1 ^ m->k1);
    h = mix(h ^ tag);
    return (uint32_t)h & m->mask;
}

size_t addr_map_entries(int capacity)
{
    size_t n = 4;
    while (n < 2 * (size_t)(capacity > 0 ? capacity : 1))
        n *= 2;
    return n;
}

void addr_map_init(addr_map *m, addr_map_entry *memory, int capacity,
                   const uint8_t key[ADDR_MAP_KEY_SIZE])
{
    size_t n = addr_map_entries(capacity);
    m->e = memory;
    m->mask = (uint32_t)(n - 1);
    m->count = 0;
    m->capacity = capacity;
    memcpy(&m->k0, key, 8);
    memcpy(&m->k1, key + 8, 8);
    for (size_t i = 0; i < n; i++) {
        memset(&m->e[i].addr, 0, sizeof m->e[i].addr);
        m->e[i].value = -1;
    }
}

/* The slot holding `a`, or the empty slot ending its run. */
static uint32_t probe(const addr_map *m, const tempo_address *a)
{
    uint32_t i = slot_of(m, a);
    while (m->e[i].value >= 0 && !tempo_address_equal(&m->e[i].addr, a))
        i = (i + 1) & m->mask;
    return i;
}

int addr_map_find(const addr_map *m, const tempo_address *a)
{
    return m->e[probe(m, a)].value;
}

bool addr_map_add(addr_map *m, const tempo_address *a, int value)
{
    if (value < 0 || m->count >= m->capacity)
        return false;
    uint32_t i = probe(m, a);
    if (m->e[i].value >= 0)
        return false;
    m->e[i].addr = *a;
    m->e[i].value = value;
    m->count++;
    return true;
}

void addr_map_remove(addr_map *m, const tempo_address *a)
{
    uint32_t i = probe(m, a);
    if (m->e[i].value < 0)
        return;
    m->count--;
    for (uint32_t j = i;;) {
        m->e[i].value = -1;
        for (;;) {
            j = (j + 1) & m->mask;
            if (m->e[j].value < 0)
                return;
            uint32_t k = slot_of(m, &m->e[j].addr);
            /* j stays unless its home k lies cyclically outside (i, j] */
            if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
                continue;
            break;
        }
        m->e[i] = m->e[j];
        i = j;
    }
}
