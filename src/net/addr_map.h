/* SPDX-License-Identifier: MIT */
/*
 * addr_map.h — which record an address belongs to, in constant time: an
 * open-addressing table (linear probing, deletion by backward shift, so no
 * tombstones) over memory its owner allocated at create, at most half
 * full. Addresses hash under a key the owner draws, so senders who pick
 * their ports cannot predict which of them collide. Two addresses are the same key exactly when tempo_address_equal
 * says so. Nothing allocates; no clock.
 */
#ifndef TEMPO_NET_ADDR_MAP_H
#define TEMPO_NET_ADDR_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tempo/transport.h"

#define ADDR_MAP_KEY_SIZE 16

typedef struct addr_map_entry {
    tempo_address addr;
    int value; /* -1: empty */
} addr_map_entry;

typedef struct addr_map {
    addr_map_entry *e; /* mask + 1 entries, the owner's memory */
    uint32_t mask;
    int count, capacity;
    uint64_t k0, k1; /* the hash key */
} addr_map;

/* Entries of the table for `capacity` addresses (a power of two, at least
 * twice capacity): the owner allocates that many addr_map_entry. */
size_t addr_map_entries(int capacity);
/* An empty map over `memory` (addr_map_entries(capacity) entries). */
void addr_map_init(addr_map *m, addr_map_entry *memory, int capacity,
                   const uint8_t key[ADDR_MAP_KEY_SIZE]);
/* The value stored for `a`, or -1. */
int addr_map_find(const addr_map *m, const tempo_address *a);
/* Store value (>= 0) for `a`. False if `a` is already there or the map
 * holds capacity addresses. */
bool addr_map_add(addr_map *m, const tempo_address *a, int value);
/* Forget `a` (nothing if it is not there). */
void addr_map_remove(addr_map *m, const tempo_address *a);

#endif /* TEMPO_NET_ADDR_MAP_H */
