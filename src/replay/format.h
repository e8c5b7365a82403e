/* SPDX-License-Identifier: MIT */
/*
 * format.h — the replay file's layout (docs/REPLAY.md), shared by the
 * writer and the reader: offsets, chunk types, little-endian helpers, and
 * the coding of one frame against the frame before it.
 *
 * Invariant of the frame coding: it is canonical. Each frame has exactly
 * one spelling (runs are maximal, a changed frame changes something for
 * every player it names, the delta form is the shorter one, a tie going to
 * the bytes), so a reader can refuse any other spelling as malformed.
 */
#ifndef TEMPO_REPLAY_FORMAT_H
#define TEMPO_REPLAY_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/common.h"
#include "tempo/replay.h"
#include "wire/bitpack.h"
#include "wire/bytes.h"

/* Header: fixed fields, then the settings blob, then its checksum. */
#define RP_MAGIC_SIZE 8
#define RP_HEADER_FIXED 52 /* bytes before the settings blob */
#define RP_OFF_VERSION 8
#define RP_OFF_PLAYERS 10
#define RP_OFF_INPUT_SIZE 11
#define RP_OFF_FPS 12
#define RP_OFF_CHUNK_FRAMES 14
#define RP_OFF_START 16
#define RP_OFF_DESYNC 20
#define RP_OFF_STATE_INTERVAL 24
#define RP_OFF_STATE_MAX 28
#define RP_OFF_SETTINGS_SIZE 32
#define RP_OFF_FLAGS 34
#define RP_OFF_SETTINGS_HASH 36
#define RP_OFF_CONFIG_HASH 44

/* A chunk: type (1 byte), payload size (4), payload, checksum (8) of the
 * type, size and payload. */
#define RP_CHUNK_HEAD 5
#define RP_CHUNK_TAIL 8
#define RP_CHUNK_MIN (RP_CHUNK_HEAD + RP_CHUNK_TAIL)

enum {
    RP_INPUTS = 1,    /* u32 first frame, u16 count, the frames' bits */
    RP_CHECKSUMS = 2, /* u16 count, count * (u32 frame, u64 checksum) */
    RP_STATE = 3,     /* u32 frame, the state's bytes */
    RP_END = 4,       /* u32 frame count, u64 chain */
    RP_OPTIONAL = 0x80 /* types from here up: skipped by readers that do not know them */
};

#define RP_INPUTS_HEAD 6
#define RP_STATE_HEAD 4
#define RP_END_SIZE 12
#define RP_SUM_ENTRY 12
#define RP_VARINT_RUN 3   /* group width of a run length */
#define RP_VARINT_FLIPS 2 /* group width of a sparse delta's flip count - 1 */

extern const uint8_t replay__magic[RP_MAGIC_SIZE];

/* The file's little-endian fields (wire/bytes.h), 16-bit ones widened. */
static inline void rp_put16(uint8_t *p, uint32_t v) { wire_put16(p, (uint16_t)v); }
static inline void rp_put32(uint8_t *p, uint32_t v) { wire_put32(p, v); }
static inline void rp_put64(uint8_t *p, uint64_t v) { wire_put64(p, v); }
static inline uint32_t rp_get16(const uint8_t *p) { return wire_get16(p); }
static inline uint32_t rp_get32(const uint8_t *p) { return wire_get32(p); }
static inline uint64_t rp_get64(const uint8_t *p) { return wire_get64(p); }

/* The trailer chain: link = tempo_checksum(le64(chain) || le64(chunk sum)). */
uint64_t replay__chain(uint64_t chain, uint64_t chunk_sum);

/* True if `frame` may carry a checksum, or a state, under these settings. */
bool replay__is_check_frame(const tempo_replay_settings *s, int32_t frame);
bool replay__is_state_mark(const tempo_replay_settings *s, int32_t frame);

/* The settings' ranges (tempo_replay_settings), shared by writer and reader. */
bool replay__settings_valid(const tempo_replay_settings *s);

/* Frame coding. A frame is num_players inputs of input_size bytes and
 * num_players status bytes (0 CONFIRMED, 2 DISCONNECTED). */
bool replay__frame_equal(const uint8_t *a_in, const uint8_t *a_st, const uint8_t *b_in,
                         const uint8_t *b_st, int np, int is);
/* Write a changed frame (cur differs from prev): the player mask, then per
 * named player its status toggle, its input-changed bit and delta. */
void replay__put_frame(tempo_bitwriter *w, const uint8_t *prev_in, const uint8_t *prev_st,
                       const uint8_t *in, const uint8_t *st, int np, int is);
/* Read a changed frame into in/st, which hold the previous frame on entry.
 * False (reader poisoned) on a non-canonical or out-of-range coding, or a
 * DISCONNECTED player whose input is not zero. */
bool replay__get_frame(tempo_bitreader *r, uint8_t *in, uint8_t *st, int np, int is);
/* Upper bound on the bits of an inputs chunk of `frames` frames. */
size_t replay__chunk_max_bits(int np, int is, int frames);

#endif /* TEMPO_REPLAY_FORMAT_H */
