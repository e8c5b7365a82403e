/* SPDX-License-Identifier: MIT */
/*
 * fuzz_replay.c — the replay reader against arbitrary bytes, twice: as
 * they come (the framing, lengths and checksums) and resealed (magic and
 * version set, the settings' hashes, every chunk checksum and the trailer
 * chain recomputed over the bytes), so that the checks behind the
 * checksums (settings ranges, frame coding, chunk rules) see mutated data
 * too.
 *
 * Properties (abort when broken): an error is one of the documented
 * reader errors and leaves no reader; an opened file answers consistently:
 * every frame in its range reads (in order and again at random) with the
 * same inputs, statuses CONFIRMED or DISCONNECTED and a DISCONNECTED
 * input all zero; checksums and states lie in the recorded range, in
 * increasing frame order, and are found again by frame.
 */
#include <stdlib.h>
#include <string.h>

#include "replay/format.h"
#include "fuzz_target.h"

#define MAX_FRAMES_READ 20000
#define MAX_FRAME (TEMPO_MAX_PLAYERS * TEMPO_MAX_INPUT_SIZE)

static void check_frame(const uint8_t *in, const uint8_t *st, int np, int is)
{
    for (int p = 0; p < np; p++) {
        if (st[p] != TEMPO_INPUT_CONFIRMED && st[p] != TEMPO_INPUT_DISCONNECTED)
            abort();
        if (st[p] == TEMPO_INPUT_DISCONNECTED)
            for (int b = 0; b < is; b++)
                if (in[p * is + b] != 0)
                    abort();
    }
}

static void check(const uint8_t *data, size_t size)
{
    tempo_replay *r = (tempo_replay *)&r;
    int rc = tempo_replay_open(data, size, NULL, &r);
    if (rc != TEMPO_OK) {
        if ((rc != TEMPO_E_MALFORMED && rc != TEMPO_E_TRUNCATED && rc != TEMPO_E_FOREIGN &&
             rc != TEMPO_E_VERSION && rc != TEMPO_E_NO_MEMORY) ||
            r != NULL)
            abort();
        return;
    }
    tempo_replay_settings s;
    int32_t first, end;
    if (tempo_replay_get_settings(r, &s) != TEMPO_OK ||
        tempo_replay_frame_range(r, &first, &end) != TEMPO_OK || first != s.start_frame ||
        end < first || s.config_hash != tempo_replay_config_hash(&s))
        abort();
    int np = s.num_players, is = s.input_size;
    size_t n = (size_t)np * (size_t)is;
    uint8_t in[MAX_FRAME], st[TEMPO_MAX_PLAYERS], in2[MAX_FRAME], st2[TEMPO_MAX_PLAYERS];
    uint8_t probe_in[MAX_FRAME], probe_st[TEMPO_MAX_PLAYERS];
    int32_t last = first + (end - first < MAX_FRAMES_READ ? end - first : MAX_FRAMES_READ);
    int32_t probe = first + (end - first) / 3;
    for (int32_t f = first; f < last; f++) {
        if (tempo_replay_inputs(r, f, in, n, st) != TEMPO_OK)
            abort();
        check_frame(in, st, np, is);
        if (f == probe) {
            memcpy(probe_in, in, n);
            memcpy(probe_st, st, (size_t)np);
        }
    }
    if (probe < last) { /* again, out of order */
        if (tempo_replay_inputs(r, probe, in2, n, st2) != TEMPO_OK ||
            memcmp(in2, probe_in, n) != 0 || memcmp(st2, probe_st, (size_t)np) != 0)
            abort();
    }
    if (tempo_replay_inputs(r, end, in, n, st) != TEMPO_E_FRAME)
        abort();

    int sums = tempo_replay_checksum_count(r);
    int32_t prev = first;
    for (int i = 0; i < sums; i++) {
        int32_t f;
        uint64_t sum, again;
        if (tempo_replay_checksum_at(r, i, &f, &sum) != TEMPO_OK || f <= prev || f > end ||
            tempo_replay_checksum(r, f, &again) != 1 || again != sum)
            abort();
        prev = f;
    }
    int states = tempo_replay_state_count(r);
    int32_t sf;
    const void *d;
    size_t ds;
    if (states > 0) {
        if (tempo_replay_state_at_or_before(r, end, &sf, &d, &ds) != TEMPO_OK || sf > end ||
            sf < first || ds < 1 || ds > s.max_state_size ||
            (const uint8_t *)d < data || (const uint8_t *)d + ds > data + size)
            abort();
    } else if (tempo_replay_state_at_or_before(r, end, &sf, &d, &ds) != TEMPO_E_FRAME) {
        abort();
    }
    tempo_replay_close(r);
}

/* Make the bytes pass every checksum: the header's hashes and checksum,
 * then each chunk that fits, chaining, and the end chunk's chain. */
static void reseal(uint8_t *b, size_t size)
{
    if (size < RP_HEADER_FIXED + 8)
        return;
    memcpy(b, replay__magic, RP_MAGIC_SIZE);
    rp_put16(b + RP_OFF_VERSION, TEMPO_REPLAY_VERSION);
    size_t settings = rp_get16(b + RP_OFF_SETTINGS_SIZE) % (TEMPO_REPLAY_MAX_SETTINGS + 1);
    if (settings > size - RP_HEADER_FIXED - 8)
        settings = size - RP_HEADER_FIXED - 8;
    rp_put16(b + RP_OFF_SETTINGS_SIZE, (uint32_t)settings);
    tempo_replay_settings s;
    memset(&s, 0, sizeof s);
    s.num_players = b[RP_OFF_PLAYERS];
    s.input_size = b[RP_OFF_INPUT_SIZE];
    s.frames_per_second = (int)rp_get16(b + RP_OFF_FPS);
    s.start_frame = (int32_t)rp_get32(b + RP_OFF_START);
    s.desync_interval = (int32_t)rp_get32(b + RP_OFF_DESYNC);
    s.settings = b + RP_HEADER_FIXED;
    s.settings_size = settings;
    rp_put64(b + RP_OFF_SETTINGS_HASH, tempo_checksum(s.settings, settings));
    rp_put64(b + RP_OFF_CONFIG_HASH, tempo_replay_config_hash(&s));
    size_t pos = RP_HEADER_FIXED + settings;
    uint64_t chain = tempo_checksum(b, pos);
    rp_put64(b + pos, chain);
    pos += 8;
    while (size - pos >= RP_CHUNK_MIN) {
        size_t payload = rp_get32(b + pos + 1);
        if (payload > size - pos - RP_CHUNK_MIN)
            return;
        if (b[pos] == RP_END && payload == RP_END_SIZE)
            rp_put64(b + pos + RP_CHUNK_HEAD + 4, chain);
        uint64_t sum = tempo_checksum(b + pos, RP_CHUNK_HEAD + payload);
        rp_put64(b + pos + RP_CHUNK_HEAD + payload, sum);
        if (b[pos] == RP_END)
            return;
        chain = replay__chain(chain, sum);
        pos += RP_CHUNK_MIN + payload;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check(data, size);
    if (size == 0)
        return 0;
    uint8_t *copy = malloc(size); /* exactly size bytes, so a read past them is caught */
    if (copy == NULL)
        return 0;
    memcpy(copy, data, size);
    reseal(copy, size);
    check(copy, size);
    free(copy);
    return 0;
}
