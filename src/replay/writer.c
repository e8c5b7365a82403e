/* SPDX-License-Identifier: MIT */
/*
 * writer.c — the streaming replay writer (replay.h, docs/REPLAY.md).
 *
 * Frames are coded into the current inputs chunk as they come and the chunk
 * is written when full, so memory is one chunk's worst case, sized at
 * create. Checksums and states are offered by the game while their frames
 * may still be predicted; an offer waits, the newest one for a frame
 * winning, until every frame before it is in the file (the state is then
 * final: confirmed inputs alone made it), and is committed then. Committed
 * checksums are gathered into one chunk per inputs chunk; a committed state
 * is written at once.
 *
 * Invariants: frames are appended in order and never change; committed
 * check frames and states strictly increase; after the first failure
 * (`error`) nothing more is written and every call returns that failure.
 */
#include "replay/writer.h"

#include <string.h>

/* ---- output ---------------------------------------------------------------- */

static void emit(tempo_replay_writer *w, const uint8_t *data, size_t n)
{
    if (w->error != TEMPO_OK)
        return;
    if (w->write(w->write_ctx, data, n) != 0) {
        w->error = TEMPO_E_IO;
        return;
    }
    w->bytes += n;
}

/* Frame buf as a chunk (type, size, payload already at buf + 5), checksum
 * it and write it. Every chunk but the end joins the trailer chain. */
static void write_chunk(tempo_replay_writer *w, uint8_t *buf, int type, size_t payload)
{
    buf[0] = (uint8_t)type;
    rp_put32(buf + 1, (uint32_t)payload);
    uint64_t sum = tempo_checksum(buf, RP_CHUNK_HEAD + payload);
    rp_put64(buf + RP_CHUNK_HEAD + payload, sum);
    emit(w, buf, RP_CHUNK_MIN + payload);
    if (type != RP_END)
        w->chain = replay__chain(w->chain, sum);
}

static void flush_sums(tempo_replay_writer *w)
{
    if (w->nsums == 0)
        return;
    rp_put16(w->sums + RP_CHUNK_HEAD, (uint32_t)w->nsums);
    write_chunk(w, w->sums, RP_CHECKSUMS, 2 + (size_t)w->nsums * RP_SUM_ENTRY);
    w->nsums = 0;
}

static void start_chunk(tempo_replay_writer *w)
{
    size_t head = RP_CHUNK_HEAD + RP_INPUTS_HEAD;
    tempo_bitwriter_init(&w->bw, w->chunk + head, w->chunk_cap - head - RP_CHUNK_TAIL);
    w->chunk_count = 0;
    w->run = 0;
    /* Each chunk codes its first frame against zero inputs, all CONFIRMED,
     * so a reader can start decoding at any chunk. */
    memset(w->ref_in, 0, sizeof w->ref_in);
    memset(w->ref_st, TEMPO_INPUT_CONFIRMED, sizeof w->ref_st);
}

static void flush_inputs(tempo_replay_writer *w)
{
    if (w->chunk_count > 0) {
        if (w->run > 0)
            tempo_bitwriter_uvarint(&w->bw, (uint32_t)w->run, RP_VARINT_RUN);
        TEMPO_ASSERT(!w->bw.failed);
        rp_put32(w->chunk + RP_CHUNK_HEAD, (uint32_t)w->chunk_first);
        rp_put16(w->chunk + RP_CHUNK_HEAD + 4, (uint32_t)w->chunk_count);
        write_chunk(w, w->chunk, RP_INPUTS,
                    RP_INPUTS_HEAD + tempo_bitwriter_bytes_written(&w->bw));
        start_chunk(w);
    }
    flush_sums(w);
}

/* ---- checksums and states -------------------------------------------------- */

static void commit_sum(tempo_replay_writer *w, int32_t frame, uint64_t sum)
{
    uint8_t *e = w->sums + RP_CHUNK_HEAD + 2 + (size_t)w->nsums * RP_SUM_ENTRY;
    rp_put32(e, (uint32_t)frame);
    rp_put64(e + 4, sum);
    w->last_sum = frame;
    if (++w->nsums == SUMS_PER_CHUNK)
        flush_sums(w);
}

static uint8_t *slot(const tempo_replay_writer *w, int i)
{
    return w->slots + (size_t)i * w->slot_cap;
}

static void write_state(tempo_replay_writer *w, int i, int32_t frame, size_t size)
{
    uint8_t *b = slot(w, i);
    rp_put32(b + RP_CHUNK_HEAD, (uint32_t)frame);
    write_chunk(w, b, RP_STATE, RP_STATE_HEAD + size);
    w->last_state = frame;
}

/* Commit, oldest first, every waiting offer whose state is now final. */
static void commit_final(tempo_replay_writer *w)
{
    for (;;) {
        int best = -1;
        for (int i = 0; i < w->npend; i++)
            if (w->pend[i].frame <= w->end && (best < 0 || w->pend[i].frame < w->pend[best].frame))
                best = i;
        if (best < 0)
            break;
        commit_sum(w, w->pend[best].frame, w->pend[best].sum);
        w->pend[best] = w->pend[--w->npend];
    }
    for (;;) {
        int best = -1;
        for (int i = 0; i < w->nslots; i++)
            if (w->slot_frame[i] >= 0 && w->slot_frame[i] <= w->end &&
                (best < 0 || w->slot_frame[i] < w->slot_frame[best]))
                best = i;
        if (best < 0)
            break;
        write_state(w, best, w->slot_frame[best], w->slot_size[best]);
        w->slot_frame[best] = -1;
    }
}

/* ---- frames ---------------------------------------------------------------- */

void replay__writer_append(tempo_replay_writer *w, const uint8_t *in, const uint8_t *st)
{
    if (w->chunk_count == 0)
        w->chunk_first = w->end;
    if (replay__frame_equal(in, st, w->ref_in, w->ref_st, w->np, w->is)) {
        w->run++;
    } else {
        tempo_bitwriter_uvarint(&w->bw, (uint32_t)w->run, RP_VARINT_RUN);
        w->run = 0;
        replay__put_frame(&w->bw, w->ref_in, w->ref_st, in, st, w->np, w->is);
        memcpy(w->ref_in, in, (size_t)w->np * (size_t)w->is);
        memcpy(w->ref_st, st, (size_t)w->np);
    }
    w->end++;
    if (++w->chunk_count == w->fpc)
        flush_inputs(w);
    commit_final(w);
}

tempo_result replay__writer_usable(const tempo_replay_writer *w)
{
    if (w->error != TEMPO_OK)
        return w->error;
    return w->finished ? TEMPO_E_STATE : TEMPO_OK;
}

tempo_result tempo_replay_writer_add_frame(tempo_replay_writer *w, int32_t frame,
                                           const void *inputs, size_t size, const uint8_t *status)
{
    if (w == NULL || inputs == NULL || status == NULL)
        return TEMPO_E_INVALID_ARG;
    tempo_result r = replay__writer_usable(w);
    if (r != TEMPO_OK)
        return r;
    if (size != (size_t)w->np * (size_t)w->is)
        return TEMPO_E_INVALID_ARG;
    const uint8_t *in = inputs;
    for (int p = 0; p < w->np; p++) {
        if (status[p] == TEMPO_INPUT_CONFIRMED)
            continue;
        if (status[p] != TEMPO_INPUT_DISCONNECTED)
            return TEMPO_E_INVALID_ARG;
        for (int b = 0; b < w->is; b++)
            if (in[(size_t)p * (size_t)w->is + (size_t)b] != 0)
                return TEMPO_E_INVALID_ARG;
    }
    if (frame != w->end || w->end == INT32_MAX)
        return TEMPO_E_FRAME;
    replay__writer_append(w, in, status);
    return w->error;
}

int tempo_replay_writer_checksum(tempo_replay_writer *w, int32_t frame, uint64_t checksum)
{
    if (w == NULL)
        return TEMPO_E_INVALID_ARG;
    tempo_result r = replay__writer_usable(w);
    if (r != TEMPO_OK)
        return r;
    if (!replay__is_check_frame(&w->set, frame) || frame <= w->last_sum)
        return 0;
    if (frame <= w->end) {
        commit_sum(w, frame, checksum);
        return w->error != TEMPO_OK ? w->error : 1;
    }
    for (int i = 0; i < w->npend; i++) {
        if (w->pend[i].frame == frame) {
            w->pend[i].sum = checksum;
            return 1;
        }
    }
    if (w->npend == PENDING_SUMS)
        return TEMPO_E_FULL;
    w->pend[w->npend].frame = frame;
    w->pend[w->npend].sum = checksum;
    w->npend++;
    return 1;
}

int tempo_replay_writer_state(tempo_replay_writer *w, int32_t frame, const void *data, size_t size)
{
    if (w == NULL || data == NULL)
        return TEMPO_E_INVALID_ARG;
    tempo_result r = replay__writer_usable(w);
    if (r != TEMPO_OK)
        return r;
    if (size == 0 || size > w->set.max_state_size)
        return TEMPO_E_INVALID_ARG;
    if (!replay__is_state_mark(&w->set, frame) || frame <= w->last_state)
        return 0;
    int i = -1;
    if (frame <= w->end) {
        i = w->nslots; /* final: through the spare slot, written now */
    } else {
        for (int k = 0; k < w->nslots && i < 0; k++)
            if (w->slot_frame[k] == frame)
                i = k;
        for (int k = 0; k < w->nslots && i < 0; k++)
            if (w->slot_frame[k] < 0)
                i = k;
        if (i < 0)
            return TEMPO_E_FULL;
    }
    memcpy(slot(w, i) + RP_CHUNK_HEAD + RP_STATE_HEAD, data, size);
    if (i == w->nslots) {
        write_state(w, i, frame, size);
        return w->error != TEMPO_OK ? w->error : 1;
    }
    w->slot_frame[i] = frame;
    w->slot_size[i] = size;
    return 1;
}

tempo_result tempo_replay_writer_finish(tempo_replay_writer *w)
{
    if (w == NULL)
        return TEMPO_E_INVALID_ARG;
    tempo_result r = replay__writer_usable(w);
    if (r != TEMPO_OK)
        return r;
    flush_inputs(w);
    uint8_t end[RP_CHUNK_MIN + RP_END_SIZE];
    rp_put32(end + RP_CHUNK_HEAD, (uint32_t)(w->end - w->set.start_frame));
    rp_put64(end + RP_CHUNK_HEAD + 4, w->chain);
    write_chunk(w, end, RP_END, RP_END_SIZE);
    w->finished = true;
    return w->error;
}

int32_t tempo_replay_writer_end(const tempo_replay_writer *w)
{
    return w != NULL ? w->end : TEMPO_E_INVALID_ARG;
}

uint64_t tempo_replay_writer_bytes(const tempo_replay_writer *w)
{
    return w != NULL ? w->bytes : 0;
}

/* ---- create ---------------------------------------------------------------- */

void tempo_replay_writer_config_default(tempo_replay_writer_config *cfg,
                                        const tempo_config *session_cfg)
{
    if (cfg == NULL)
        return;
    tempo_config def;
    if (session_cfg == NULL) {
        tempo_config_default(&def);
        session_cfg = &def;
    }
    memset(cfg, 0, sizeof *cfg);
    cfg->settings.num_players = session_cfg->num_players;
    cfg->settings.input_size = session_cfg->input_size;
    cfg->settings.frames_per_second = session_cfg->frames_per_second;
    cfg->settings.start_frame = session_cfg->start_frame;
    cfg->settings.desync_interval = session_cfg->desync_interval;
    cfg->frames_per_chunk = 256;
    cfg->allocator = session_cfg->allocator;
}

void tempo_replay_writer_destroy(tempo_replay_writer *w)
{
    if (w == NULL)
        return;
    tempo_allocator a = w->alloc;
    tempo__free(&a, w->chunk);
    tempo__free(&a, w->slots);
    tempo__free(&a, w->slot_frame);
    tempo__free(&a, w->slot_size);
    tempo__free(&a, w);
}

/* Write the header (REPLAY.md, "Header") through the chunk buffer. */
static void write_header(tempo_replay_writer *w, const tempo_replay_settings *s)
{
    uint8_t *h = w->chunk;
    memset(h, 0, RP_HEADER_FIXED);
    memcpy(h, replay__magic, RP_MAGIC_SIZE);
    rp_put16(h + RP_OFF_VERSION, TEMPO_REPLAY_VERSION);
    h[RP_OFF_PLAYERS] = (uint8_t)s->num_players;
    h[RP_OFF_INPUT_SIZE] = (uint8_t)s->input_size;
    rp_put16(h + RP_OFF_FPS, (uint32_t)s->frames_per_second);
    rp_put16(h + RP_OFF_CHUNK_FRAMES, (uint32_t)w->fpc);
    rp_put32(h + RP_OFF_START, (uint32_t)s->start_frame);
    rp_put32(h + RP_OFF_DESYNC, (uint32_t)s->desync_interval);
    rp_put32(h + RP_OFF_STATE_INTERVAL, (uint32_t)s->state_interval);
    rp_put32(h + RP_OFF_STATE_MAX, (uint32_t)s->max_state_size);
    rp_put16(h + RP_OFF_SETTINGS_SIZE, (uint32_t)s->settings_size);
    rp_put64(h + RP_OFF_SETTINGS_HASH, w->set.settings_hash);
    rp_put64(h + RP_OFF_CONFIG_HASH, w->set.config_hash);
    if (s->settings_size > 0)
        memcpy(h + RP_HEADER_FIXED, s->settings, s->settings_size);
    size_t n = RP_HEADER_FIXED + s->settings_size;
    w->chain = tempo_checksum(h, n);
    rp_put64(h + n, w->chain);
    emit(w, h, n + 8);
}

tempo_result tempo_replay_writer_create(const tempo_replay_writer_config *cfg,
                                        tempo_replay_writer **out)
{
    if (out == NULL)
        return TEMPO_E_INVALID_ARG;
    *out = NULL;
    if (cfg == NULL || cfg->write == NULL || !replay__settings_valid(&cfg->settings) ||
        cfg->frames_per_chunk < 1 || cfg->frames_per_chunk > TEMPO_REPLAY_MAX_CHUNK_FRAMES ||
        (cfg->allocator.alloc == NULL) != (cfg->allocator.free == NULL))
        return TEMPO_E_INVALID_ARG;
    const tempo_replay_settings *s = &cfg->settings;
    tempo_replay_writer *w = tempo__calloc(&cfg->allocator, 1, sizeof *w);
    if (w == NULL)
        return TEMPO_E_NO_MEMORY;
    w->alloc = cfg->allocator;
    w->set = *s;
    w->set.settings_hash = tempo_checksum(s->settings, s->settings_size);
    w->set.config_hash = tempo_replay_config_hash(s);
    w->set.settings = NULL;
    w->write = cfg->write;
    w->write_ctx = cfg->write_ctx;
    w->np = s->num_players;
    w->is = s->input_size;
    w->fpc = cfg->frames_per_chunk;
    w->end = s->start_frame;
    w->last_sum = -1;
    w->last_state = -1;

    size_t bits = replay__chunk_max_bits(w->np, w->is, w->fpc);
    w->chunk_cap = RP_CHUNK_MIN + RP_INPUTS_HEAD + (bits + 7) / 8;
    size_t header = RP_HEADER_FIXED + TEMPO_REPLAY_MAX_SETTINGS + 8;
    w->chunk = tempo__alloc(&w->alloc, w->chunk_cap > header ? w->chunk_cap : header);
    if (s->state_interval > 0) {
        /* Marks waiting for confirmation lie within the prediction window
         * (plus the frames of a tick) ahead of what was fed. */
        int span = TEMPO_MAX_PREDICTION + 8;
        w->nslots = tempo__min_i(span, span / s->state_interval + 2);
        w->slot_cap = RP_CHUNK_MIN + RP_STATE_HEAD + s->max_state_size;
        w->slots = tempo__calloc(&w->alloc, (size_t)w->nslots + 1, w->slot_cap);
        w->slot_frame = tempo__calloc(&w->alloc, (size_t)w->nslots, sizeof *w->slot_frame);
        w->slot_size = tempo__calloc(&w->alloc, (size_t)w->nslots, sizeof *w->slot_size);
        if (w->slots == NULL || w->slot_frame == NULL || w->slot_size == NULL) {
            tempo_replay_writer_destroy(w);
            return TEMPO_E_NO_MEMORY;
        }
        for (int i = 0; i < w->nslots; i++)
            w->slot_frame[i] = -1;
    }
    if (w->chunk == NULL) {
        tempo_replay_writer_destroy(w);
        return TEMPO_E_NO_MEMORY;
    }
    write_header(w, s);
    if (w->error != TEMPO_OK) {
        tempo_replay_writer_destroy(w);
        return TEMPO_E_IO;
    }
    start_chunk(w);
    *out = w;
    return TEMPO_OK;
}
