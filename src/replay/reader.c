/* SPDX-License-Identifier: MIT */
/*
 * reader.c — the replay reader (replay.h, docs/REPLAY.md).
 *
 * The file is hostile. Opening it makes two passes: the first walks the
 * chunk framing only (every length against what is left, every chunk's
 * checksum, the trailer chain) and counts chunks, so the index is
 * allocated once at its exact size; the second parses every payload and
 * decodes every frame, checking each value against the header's settings.
 * After a successful open every later read decodes bytes that already
 * decoded once, so reads fail only on the caller's arguments.
 *
 * Reads keep a cursor (the next frame, its chunk and bit position, the
 * frame before it), so playing frames in order decodes each once; another
 * frame restarts at its chunk, whose coding starts from zero inputs.
 */
#include "replay/format.h"

#include <string.h>

typedef struct rp_inputs {
    int32_t first;
    int32_t count;
    size_t offset; /* of the coded bits */
    size_t size;
} rp_inputs;

typedef struct rp_state {
    int32_t frame;
    size_t offset;
    size_t size;
} rp_state;

struct tempo_replay {
    tempo_allocator alloc;
    const uint8_t *data;
    size_t size;
    tempo_replay_settings set;
    int32_t end;
    int ninputs, nsums, nstates;
    rp_inputs *inputs;
    int32_t *sum_frame;
    uint64_t *sum;
    rp_state *states;

    /* the cursor: frame `next` is decoded next, from chunk `chunk` */
    int chunk;
    int32_t next;
    int coded;     /* frames of the chunk decoded */
    int run_left;  /* frames of the current run still to hand out */
    bool need_run; /* a run length comes next */
    tempo_bitreader br;
    uint8_t in[TEMPO_MAX_PLAYERS * TEMPO_MAX_INPUT_SIZE]; /* frame next - 1 */
    uint8_t st[TEMPO_MAX_PLAYERS];
};

/* ---- frame decoding --------------------------------------------------------- */

static void seek_chunk(tempo_replay *r, int c)
{
    r->chunk = c;
    r->next = r->inputs[c].first;
    r->coded = 0;
    r->run_left = 0;
    r->need_run = true;
    tempo_bitreader_init(&r->br, r->data + r->inputs[c].offset, r->inputs[c].size);
    memset(r->in, 0, sizeof r->in);
    memset(r->st, TEMPO_INPUT_CONFIRMED, sizeof r->st);
}

/* Decode frame r->next into r->in/r->st (moving to the next chunk when the
 * current one is done). False on a coding error. */
static bool decode_next(tempo_replay *r)
{
    const rp_inputs *c = &r->inputs[r->chunk];
    if (r->coded == c->count) {
        if (r->chunk + 1 >= r->ninputs)
            return false;
        seek_chunk(r, r->chunk + 1);
        c = &r->inputs[r->chunk];
    }
    int np = r->set.num_players, is = r->set.input_size;
    if (r->need_run) {
        uint32_t run;
        if (!tempo_bitreader_uvarint(&r->br, RP_VARINT_RUN, &run))
            return false;
        if (run > (uint32_t)(c->count - r->coded))
            return false;
        r->run_left = (int)run;
        r->need_run = false;
    }
    if (r->run_left > 0) {
        r->run_left--;
    } else {
        if (!replay__get_frame(&r->br, r->in, r->st, np, is))
            return false;
        r->need_run = true;
    }
    r->coded++;
    r->next++;
    if (r->coded == c->count) {
        /* the chunk ends here: a run not handed out or bits left over
         * would be another spelling of the same frames */
        if (r->run_left != 0 || !tempo_bitreader_at_end(&r->br) || r->br.error != TEMPO_BITREAD_OK)
            return false;
    }
    return true;
}

/* The inputs chunk holding frame f (first <= f < end). */
static int find_chunk(const tempo_replay *r, int32_t f)
{
    int lo = 0, hi = r->ninputs - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (r->inputs[mid].first <= f)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* ---- open --------------------------------------------------------------------- */

/* The settings of the header at d (size bytes, at least its fixed part),
 * or an error. *header_end: where the chunks start. */
static tempo_result parse_header(const uint8_t *d, size_t size, tempo_replay_settings *s,
                                 size_t *header_end)
{
    size_t n = size < RP_MAGIC_SIZE ? size : RP_MAGIC_SIZE;
    if (memcmp(d, replay__magic, n) != 0)
        return TEMPO_E_FOREIGN;
    if (size < RP_OFF_VERSION + 2)
        return TEMPO_E_TRUNCATED;
    if (rp_get16(d + RP_OFF_VERSION) != TEMPO_REPLAY_VERSION)
        return TEMPO_E_VERSION;
    if (size < RP_HEADER_FIXED)
        return TEMPO_E_TRUNCATED;
    size_t settings = rp_get16(d + RP_OFF_SETTINGS_SIZE);
    if (settings > TEMPO_REPLAY_MAX_SETTINGS)
        return TEMPO_E_MALFORMED;
    size_t body = RP_HEADER_FIXED + settings;
    if (size - RP_HEADER_FIXED < settings + 8)
        return TEMPO_E_TRUNCATED;
    if (tempo_checksum(d, body) != rp_get64(d + body))
        return TEMPO_E_MALFORMED;
    memset(s, 0, sizeof *s);
    uint32_t start = rp_get32(d + RP_OFF_START), desync = rp_get32(d + RP_OFF_DESYNC);
    uint32_t interval = rp_get32(d + RP_OFF_STATE_INTERVAL);
    uint32_t chunk_frames = rp_get16(d + RP_OFF_CHUNK_FRAMES);
    if (start > (1u << 30) || desync > TEMPO_REPLAY_MAX_INTERVAL ||
        interval > TEMPO_REPLAY_MAX_INTERVAL || rp_get16(d + RP_OFF_FLAGS) != 0 ||
        chunk_frames < 1 || chunk_frames > TEMPO_REPLAY_MAX_CHUNK_FRAMES)
        return TEMPO_E_MALFORMED;
    s->num_players = d[RP_OFF_PLAYERS];
    s->input_size = d[RP_OFF_INPUT_SIZE];
    s->frames_per_second = (int)rp_get16(d + RP_OFF_FPS);
    s->start_frame = (int32_t)start;
    s->desync_interval = (int32_t)desync;
    s->state_interval = (int32_t)interval;
    s->max_state_size = rp_get32(d + RP_OFF_STATE_MAX);
    s->settings = settings > 0 ? d + RP_HEADER_FIXED : NULL;
    s->settings_size = settings;
    s->settings_hash = rp_get64(d + RP_OFF_SETTINGS_HASH);
    s->config_hash = rp_get64(d + RP_OFF_CONFIG_HASH);
    if (!replay__settings_valid(s) || s->settings_hash != tempo_checksum(s->settings, settings) ||
        s->config_hash != tempo_replay_config_hash(s))
        return TEMPO_E_MALFORMED;
    *header_end = body + 8;
    return TEMPO_OK;
}

typedef struct chunk_counts {
    int inputs, sum_chunks, states;
    size_t sums;
} chunk_counts;

/* First pass: framing, chunk checksums, the chain, the end chunk's place. */
static tempo_result walk(const uint8_t *d, size_t size, size_t pos, uint64_t chain,
                         chunk_counts *k)
{
    memset(k, 0, sizeof *k);
    for (;;) {
        size_t left = size - pos;
        if (left < RP_CHUNK_MIN)
            return TEMPO_E_TRUNCATED;
        int type = d[pos];
        size_t payload = rp_get32(d + pos + 1);
        if (payload > left - RP_CHUNK_MIN)
            return TEMPO_E_TRUNCATED;
        uint64_t sum = tempo_checksum(d + pos, RP_CHUNK_HEAD + payload);
        if (sum != rp_get64(d + pos + RP_CHUNK_HEAD + payload))
            return TEMPO_E_MALFORMED;
        const uint8_t *p = d + pos + RP_CHUNK_HEAD;
        pos += RP_CHUNK_MIN + payload;
        switch (type) {
        case RP_INPUTS:
            k->inputs++;
            break;
        case RP_CHECKSUMS:
            if (payload < 2 || payload != 2 + (size_t)rp_get16(p) * RP_SUM_ENTRY)
                return TEMPO_E_MALFORMED;
            k->sums += rp_get16(p);
            k->sum_chunks++;
            break;
        case RP_STATE:
            k->states++;
            break;
        case RP_END:
            if (payload != RP_END_SIZE || rp_get64(p + 4) != chain)
                return TEMPO_E_MALFORMED;
            return pos == size ? TEMPO_OK : TEMPO_E_MALFORMED; /* nothing may follow */
        default:
            if (type < RP_OPTIONAL)
                return TEMPO_E_MALFORMED;
            break;
        }
        chain = replay__chain(chain, sum);
    }
}

/* Second pass: every payload against the settings; decode every frame. */
static tempo_result parse(tempo_replay *r, size_t pos)
{
    const uint8_t *d = r->data;
    const tempo_replay_settings *s = &r->set;
    int fpc = (int)rp_get16(d + RP_OFF_CHUNK_FRAMES);
    int64_t end = s->start_frame;
    int ni = 0, ns = 0, nst = 0;
    for (;;) {
        int type = d[pos];
        size_t payload = rp_get32(d + pos + 1);
        const uint8_t *p = d + pos + RP_CHUNK_HEAD;
        size_t at = pos + RP_CHUNK_HEAD;
        pos += RP_CHUNK_MIN + payload;
        if (type == RP_INPUTS) {
            if (payload < RP_INPUTS_HEAD)
                return TEMPO_E_MALFORMED;
            uint32_t count = rp_get16(p + 4);
            if (rp_get32(p) != (uint64_t)end || count < 1 || count > (uint32_t)fpc ||
                end + count > INT32_MAX)
                return TEMPO_E_MALFORMED;
            rp_inputs *c = &r->inputs[ni];
            c->first = (int32_t)end;
            c->count = (int32_t)count;
            c->offset = at + RP_INPUTS_HEAD;
            c->size = payload - RP_INPUTS_HEAD;
            seek_chunk(r, ni);
            ni++;
            for (uint32_t i = 0; i < count; i++)
                if (!decode_next(r))
                    return TEMPO_E_MALFORMED;
            end += count;
        } else if (type == RP_CHECKSUMS) {
            int n = (int)rp_get16(p);
            for (int i = 0; i < n; i++) {
                const uint8_t *e = p + 2 + (size_t)i * RP_SUM_ENTRY;
                uint32_t f = rp_get32(e);
                if (f > INT32_MAX || !replay__is_check_frame(s, (int32_t)f) ||
                    (ns > 0 && (int32_t)f <= r->sum_frame[ns - 1]))
                    return TEMPO_E_MALFORMED;
                r->sum_frame[ns] = (int32_t)f;
                r->sum[ns] = rp_get64(e + 4);
                ns++;
            }
        } else if (type == RP_STATE) {
            if (payload <= RP_STATE_HEAD || payload - RP_STATE_HEAD > s->max_state_size)
                return TEMPO_E_MALFORMED;
            uint32_t f = rp_get32(p);
            if (f > INT32_MAX || !replay__is_state_mark(s, (int32_t)f) ||
                (nst > 0 && (int32_t)f <= r->states[nst - 1].frame))
                return TEMPO_E_MALFORMED;
            r->states[nst].frame = (int32_t)f;
            r->states[nst].offset = at + RP_STATE_HEAD;
            r->states[nst].size = payload - RP_STATE_HEAD;
            nst++;
        } else if (type == RP_END) {
            if (end - s->start_frame != rp_get32(p))
                return TEMPO_E_MALFORMED;
            break;
        }
    }
    r->end = (int32_t)end;
    /* A checksum or state names a state the frames recorded reach. */
    if ((ns > 0 && r->sum_frame[ns - 1] > r->end) || (nst > 0 && r->states[nst - 1].frame > r->end))
        return TEMPO_E_MALFORMED;
    if (ni > 0)
        seek_chunk(r, 0);
    return TEMPO_OK;
}

tempo_result tempo_replay_open(const void *data, size_t size, const tempo_allocator *allocator,
                               tempo_replay **out)
{
    if (out == NULL)
        return TEMPO_E_INVALID_ARG;
    *out = NULL;
    tempo_allocator a = {NULL, NULL, NULL};
    if (allocator != NULL)
        a = *allocator;
    if ((data == NULL && size > 0) || (a.alloc == NULL) != (a.free == NULL))
        return TEMPO_E_INVALID_ARG;
    if (size == 0)
        return TEMPO_E_TRUNCATED;
    const uint8_t *d = data;
    tempo_replay_settings s;
    size_t pos;
    tempo_result rc = parse_header(d, size, &s, &pos);
    if (rc != TEMPO_OK)
        return rc;
    chunk_counts k;
    rc = walk(d, size, pos, rp_get64(d + pos - 8), &k);
    if (rc != TEMPO_OK)
        return rc;

    /* One block: the reader, then its index arrays, each aligned for its type. */
    size_t off_inputs = (sizeof(tempo_replay) + 15) & ~(size_t)15;
    size_t off_sum = off_inputs + (size_t)k.inputs * sizeof(rp_inputs);
    size_t off_frames = off_sum + k.sums * sizeof(uint64_t);
    size_t off_states = (off_frames + k.sums * sizeof(int32_t) + 15) & ~(size_t)15;
    size_t total = off_states + (size_t)k.states * sizeof(rp_state);
    uint8_t *block = tempo__calloc(&a, 1, total);
    if (block == NULL)
        return TEMPO_E_NO_MEMORY;
    tempo_replay *r = (tempo_replay *)(void *)block;
    r->alloc = a;
    r->data = d;
    r->size = size;
    r->set = s;
    r->inputs = (rp_inputs *)(void *)(block + off_inputs);
    r->sum = (uint64_t *)(void *)(block + off_sum);
    r->sum_frame = (int32_t *)(void *)(block + off_frames);
    r->states = (rp_state *)(void *)(block + off_states);
    r->ninputs = k.inputs;
    r->nsums = (int)k.sums;
    r->nstates = k.states;
    rc = parse(r, pos);
    if (rc != TEMPO_OK) {
        tempo_replay_close(r);
        return rc;
    }
    *out = r;
    return TEMPO_OK;
}

void tempo_replay_close(tempo_replay *r)
{
    if (r == NULL)
        return;
    tempo_allocator a = r->alloc;
    tempo__free(&a, r);
}

/* ---- queries -------------------------------------------------------------------- */

tempo_result tempo_replay_get_settings(const tempo_replay *r, tempo_replay_settings *out)
{
    if (r == NULL || out == NULL)
        return TEMPO_E_INVALID_ARG;
    *out = r->set;
    return TEMPO_OK;
}

tempo_result tempo_replay_frame_range(const tempo_replay *r, int32_t *first, int32_t *end)
{
    if (r == NULL || first == NULL || end == NULL)
        return TEMPO_E_INVALID_ARG;
    *first = r->set.start_frame;
    *end = r->end;
    return TEMPO_OK;
}

tempo_result tempo_replay_inputs(tempo_replay *r, int32_t frame, void *inputs, size_t size,
                                 uint8_t *status)
{
    if (r == NULL || inputs == NULL)
        return TEMPO_E_INVALID_ARG;
    size_t n = (size_t)r->set.num_players * (size_t)r->set.input_size;
    if (size != n)
        return TEMPO_E_INVALID_ARG;
    if (frame < r->set.start_frame || frame >= r->end)
        return TEMPO_E_FRAME;
    /* In order: frame is the cursor's last (r->next - 1) or one of the
     * frames ahead of it in its chunk; otherwise restart at frame's chunk. */
    const rp_inputs *c = &r->inputs[r->chunk];
    bool behind = frame < r->next - 1 || (frame == r->next - 1 && r->coded == 0);
    bool same_chunk = frame < c->first + c->count || frame == r->next;
    if (behind || !same_chunk)
        seek_chunk(r, find_chunk(r, frame));
    while (r->next <= frame)
        if (!decode_next(r))
            return TEMPO_E_MALFORMED; /* cannot happen: open decoded every frame */
    memcpy(inputs, r->in, n);
    if (status != NULL)
        memcpy(status, r->st, (size_t)r->set.num_players);
    return TEMPO_OK;
}

int tempo_replay_checksum(const tempo_replay *r, int32_t frame, uint64_t *out)
{
    if (r == NULL || out == NULL)
        return TEMPO_E_INVALID_ARG;
    int lo = 0, hi = r->nsums;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (r->sum_frame[mid] < frame)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == r->nsums || r->sum_frame[lo] != frame)
        return 0;
    *out = r->sum[lo];
    return 1;
}

int tempo_replay_checksum_count(const tempo_replay *r)
{
    return r != NULL ? r->nsums : TEMPO_E_INVALID_ARG;
}

tempo_result tempo_replay_checksum_at(const tempo_replay *r, int i, int32_t *frame, uint64_t *out)
{
    if (r == NULL || frame == NULL || out == NULL)
        return TEMPO_E_INVALID_ARG;
    if (i < 0 || i >= r->nsums)
        return TEMPO_E_FRAME;
    *frame = r->sum_frame[i];
    *out = r->sum[i];
    return TEMPO_OK;
}

tempo_result tempo_replay_state_at_or_before(const tempo_replay *r, int32_t frame,
                                             int32_t *state_frame, const void **data,
                                             size_t *size)
{
    if (r == NULL || state_frame == NULL || data == NULL || size == NULL)
        return TEMPO_E_INVALID_ARG;
    int lo = 0, hi = r->nstates; /* first state after frame */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (r->states[mid].frame <= frame)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return TEMPO_E_FRAME;
    const rp_state *st = &r->states[lo - 1];
    *state_frame = st->frame;
    *data = r->data + st->offset;
    *size = st->size;
    return TEMPO_OK;
}

int tempo_replay_state_count(const tempo_replay *r)
{
    return r != NULL ? r->nstates : TEMPO_E_INVALID_ARG;
}
