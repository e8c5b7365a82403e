/* SPDX-License-Identifier: MIT */
/*
 * test_replay_file.c — replay files: a minute of a 4-player match recorded
 * from a session reads back exactly as the session logged it (inputs,
 * statuses, checksums, states, in order and at random); its size per
 * minute; every truncation and every single-bit flip of a real file is an
 * error; foreign files and other versions say so; the example of
 * docs/REPLAY.md is byte for byte what the writer writes; the writer's
 * own rules (pending offers, falling behind the log, a failing callback,
 * arena capture, argument checks); no allocation after create or open.
 *
 * `test_replay_file --write-corpus DIR` writes real files to DIR/replay
 * (the fuzzer's seeds) instead of running the tests;
 * `test_replay_file --print-example` prints the example's bytes, one chunk
 * a line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "toy.h"

#ifdef _WIN32 /* Windows' mkdir takes no mode */
#include <direct.h>
#define mkdir(path, mode) ((void)(mode), _mkdir(path))
#endif

#define NP 4
#define IS 4
#define FILE_CAP (1u << 20)

/* ---- the file as the write callback builds it ---------------------------- */

typedef struct sink {
    uint8_t *data;
    size_t size;
    size_t fail_after; /* a write that would pass this fails (SIZE_MAX: never) */
} sink;

static int sink_write(void *ctx, const void *data, size_t size)
{
    sink *k = ctx;
    if (k->size + size > k->fail_after || k->size + size > FILE_CAP)
        return -1;
    memcpy(k->data + k->size, data, size);
    k->size += size;
    return 0;
}

static void sink_init(sink *k)
{
    static uint8_t bufs[4][FILE_CAP];
    static int next;
    k->data = bufs[next++ % 4];
    k->size = 0;
    k->fail_after = SIZE_MAX;
}

/* ---- a match played by a local session with the toy game ------------------- */

/* Typical inputs: a button byte, two stick bytes and a spare; each player
 * changes something about every 10 frames (a button or one stick axis). */
static uint8_t typical[NP][TOY_MAX_FRAMES][IS];

static void make_typical_inputs(uint64_t seed)
{
    uint64_t x = seed;
    for (int p = 0; p < NP; p++) {
        uint8_t cur[IS] = {0, 128, 128, 0};
        for (int f = 0; f < TOY_MAX_FRAMES; f++) {
            x = toy_mix(x, (uint64_t)f);
            if (x % 10 == 0) {
                uint64_t y = toy_mix(x, 7);
                if (y % 2 == 0)
                    cur[0] ^= (uint8_t)(1u << (y >> 8) % 8);
                else
                    cur[1 + (y >> 8) % 2] = (uint8_t)(y >> 16);
            }
            memcpy(typical[p][f], cur, IS);
        }
    }
}

/* The toy state as a game would store it: its hash and frame, 12 bytes. */
static void toy_serialize(const toy_state *s, uint8_t out[12])
{
    for (int i = 0; i < 8; i++)
        out[i] = (uint8_t)(s->hash >> (8 * i));
    for (int i = 0; i < 4; i++)
        out[8 + i] = (uint8_t)((uint32_t)s->frame >> (8 * i));
}

static toy_driver drv;
static tempo_session *sess;

typedef struct match_opts {
    int32_t frames;         /* play until the file holds at least this many */
    int32_t disconnect_at;  /* player 3 leaves at this frame (-1: never) */
    int state_interval;     /* 0: no states */
} match_opts;

/* Play a match: player 0 local, 1..3 remote with inputs arriving 2..4
 * frames late (so frames are predicted and rolled back), writing the replay
 * into *k as it goes. Leaves the session in `sess` (caller destroys). */
static tempo_replay_writer *record_match(const match_opts *o, sink *k)
{
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = NP;
    cfg.input_size = IS;
    cfg.desync_interval = 60;
    cfg.input_log_frames = TOY_MAX_FRAMES;
    assert_int_equal(tempo_session_create_local(&cfg, &sess), TEMPO_OK);
    assert_int_equal(tempo_session_add_local_player(sess, 0), TEMPO_OK);
    for (int p = 1; p < NP; p++)
        assert_int_equal(tempo_session_add_remote_player(sess, p, NULL), TEMPO_OK);
    toy_driver_init(&drv, NP, IS);

    tempo_replay_writer_config wc;
    tempo_replay_writer_config_default(&wc, &cfg);
    static const char map[] = "map=arena;seed=42";
    wc.settings.settings = map;
    wc.settings.settings_size = sizeof map - 1;
    wc.settings.state_interval = o->state_interval;
    wc.settings.max_state_size = o->state_interval > 0 ? 12 : 0;
    wc.write = sink_write;
    wc.write_ctx = k;
    tempo_replay_writer *w;
    assert_int_equal(tempo_replay_writer_create(&wc, &w), TEMPO_OK);

    int32_t delivered[NP] = {0};
    bool gone = false;
    for (uint64_t t = 0; tempo_replay_writer_end(w) < o->frames; t += 16667) {
        int32_t f = tempo_session_frame(sess);
        assert_true(f < TOY_MAX_FRAMES - 8);
        tempo_session_poll(sess, t);
        assert_int_equal(tempo_session_add_local_input(sess, 0, typical[0][f], IS), TEMPO_OK);
        if (!gone && o->disconnect_at >= 0 && f >= o->disconnect_at) {
            assert_int_equal(tempo_session_disconnect_player(sess, 3), TEMPO_OK);
            gone = true;
        }
        for (int p = 1; p < NP; p++) {
            if (p == 3 && gone)
                continue;
            for (; delivered[p] <= f - (1 + p); delivered[p]++)
                assert_int_equal(tempo_session_add_remote_input(sess, p, delivered[p],
                                                                typical[p][delivered[p]], IS),
                                 TEMPO_OK);
        }
        tempo_tick tick;
        assert_int_equal(tempo_session_advance(sess, &tick), TEMPO_OK);
        const tempo_request *r;
        while (tempo_session_next(sess, &r) > 0) {
            assert_int_equal(toy_driver_do(&drv, r), 0);
            if (r->kind != TEMPO_REQUEST_SAVE)
                continue;
            assert_true(tempo_replay_writer_checksum(w, r->frame, *r->checksum) >= 0);
            if (o->state_interval > 0) {
                uint8_t st[12];
                toy_serialize(&drv.cur, st);
                assert_true(tempo_replay_writer_state(w, r->frame, st, sizeof st) >= 0);
            }
        }
        assert_int_equal(tempo_replay_writer_feed(w, sess), TEMPO_OK);
    }
    assert_int_equal(drv.errors, 0);
    assert_int_equal(tempo_replay_writer_finish(w), TEMPO_OK);
    return w;
}

/* State f's hash as the match finally played it. */
static uint64_t final_hash(int32_t f) { return f == 0 ? 0 : drv.hash_after[f - 1]; }

/* ---- a minute of 4 players --------------------------------------------------- */

static void a_4_player_minute_reads_back_as_the_session_logged_it(void **state)
{
    (void)state;
    make_typical_inputs(1);
    sink k;
    sink_init(&k);
    match_opts o = {3600, 2000, 600};
    tempo_replay_writer *w = record_match(&o, &k);
    assert_int_equal(tempo_replay_writer_bytes(w), k.size);
    int32_t wend = tempo_replay_writer_end(w);
    tempo_replay_writer_destroy(w);

    tempo_replay *r;
    assert_int_equal(tempo_replay_open(k.data, k.size, NULL, &r), TEMPO_OK);
    tempo_replay_settings s;
    assert_int_equal(tempo_replay_get_settings(r, &s), TEMPO_OK);
    assert_int_equal(s.num_players, NP);
    assert_int_equal(s.input_size, IS);
    assert_int_equal(s.frames_per_second, 60);
    assert_int_equal(s.start_frame, 0);
    assert_int_equal(s.desync_interval, 60);
    assert_int_equal(s.state_interval, 600);
    assert_int_equal(s.settings_size, 17);
    assert_memory_equal(s.settings, "map=arena;seed=42", 17);
    assert_true(s.config_hash == tempo_replay_config_hash(&s));
    int32_t first, end;
    assert_int_equal(tempo_replay_frame_range(r, &first, &end), TEMPO_OK);
    assert_int_equal(first, 0);
    assert_int_equal(end, wend);
    assert_true(end >= 3600);

    /* Every frame, in order, as the session's log has it; the inputs as the
     * game last played them. */
    static uint8_t seq[TOY_MAX_FRAMES][NP * IS + NP];
    int disconnected = 0;
    for (int32_t f = 0; f < end; f++) {
        uint8_t in[NP * IS], st[NP], lin[NP * IS], lst[NP];
        assert_int_equal(tempo_replay_inputs(r, f, in, sizeof in, st), TEMPO_OK);
        assert_int_equal(tempo_session_confirmed_inputs(sess, f, lin, sizeof lin, lst), TEMPO_OK);
        assert_memory_equal(in, lin, sizeof in);
        assert_memory_equal(st, lst, sizeof st);
        assert_memory_equal(in, drv.used[f], sizeof in);
        disconnected += st[3] == TEMPO_INPUT_DISCONNECTED;
        memcpy(seq[f], in, sizeof in);
        memcpy(seq[f] + sizeof in, st, sizeof st);
    }
    assert_true(disconnected > 1000); /* player 3 left at 2000 */

    /* Random access agrees with the sequential pass, also going backwards. */
    tempo_rng rng;
    tempo_rng_seed(&rng, 7, 1);
    for (int i = 0; i < 3; i++) {
        int32_t f = (int32_t)tempo_rng_below(&rng, (uint32_t)end);
        uint8_t in[NP * IS], st[NP];
        assert_int_equal(tempo_replay_inputs(r, f, in, sizeof in, st), TEMPO_OK);
        assert_memory_equal(in, seq[f], sizeof in);
        assert_memory_equal(st, seq[f] + sizeof in, sizeof st);
    }
    uint8_t in[NP * IS], st[NP];
    assert_int_equal(tempo_replay_inputs(r, end, in, sizeof in, st), TEMPO_E_FRAME);
    assert_int_equal(tempo_replay_inputs(r, -1, in, sizeof in, st), TEMPO_E_FRAME);

    /* A checksum for every check frame, equal to the game's final state. */
    assert_int_equal(tempo_replay_checksum_count(r), end / 60);
    for (int32_t f = 60; f <= end; f += 60) {
        uint64_t sum;
        assert_int_equal(tempo_replay_checksum(r, f, &sum), 1);
        assert_true(sum == final_hash(f));
    }
    uint64_t sum;
    assert_int_equal(tempo_replay_checksum(r, 61, &sum), 0);

    /* A state at every 600-frame mark, equal to the game's. */
    assert_int_equal(tempo_replay_state_count(r), end / 600 + 1);
    for (int32_t m = 0; m <= end; m += 600) {
        int32_t sf;
        const void *data;
        size_t size;
        assert_int_equal(tempo_replay_state_at_or_before(r, m + 599, &sf, &data, &size), TEMPO_OK);
        assert_int_equal(sf, m);
        assert_int_equal(size, 12);
        toy_state ts = {final_hash(m), m};
        uint8_t want[12];
        toy_serialize(&ts, want);
        assert_memory_equal(data, want, 12);
    }

    /* Size per minute, 4 players, typical inputs. Checksums and states are
     * counted apart from the inputs. */
    size_t sums = (size_t)(end / 60) * 12 + (size_t)(end / 256 + 1) * 15;
    size_t states = (size_t)(end / 600 + 1) * (13 + 4 + 12);
    double per_minute = (double)k.size * 3600.0 / end;
    printf("replay, 4 players, 4-byte typical inputs (a change about every 10 frames each):\n"
           "  %d frames, %zu bytes: %.0f bytes per minute (%zu of them checksums and chunk "
           "framing, %zu the %d states)\n",
           end, k.size, per_minute, sums, states, end / 600 + 1);
    assert_true(per_minute < 12 * 1024);
    tempo_replay_close(r);
    tempo_session_destroy(sess);
}

/* ---- hostile files ------------------------------------------------------------ */

/* A real file: 4 players, 10 s, a disconnect, checksums and states. */
static void small_real_file(sink *k)
{
    make_typical_inputs(2);
    sink_init(k);
    match_opts o = {600, 300, 120};
    tempo_replay_writer_destroy(record_match(&o, k));
    tempo_session_destroy(sess);
}

static void every_truncation_of_a_real_file_says_truncated(void **state)
{
    (void)state;
    sink k;
    small_real_file(&k);
    tempo_replay *r;
    assert_int_equal(tempo_replay_open(k.data, k.size, NULL, &r), TEMPO_OK);
    tempo_replay_close(r);
    for (size_t n = 0; n < k.size; n++) {
        /* a block of exactly n bytes, so a read past it is caught */
        uint8_t *cut = malloc(n > 0 ? n : 1);
        assert_non_null(cut);
        memcpy(cut, k.data, n);
        r = (tempo_replay *)1;
        int rc = tempo_replay_open(n > 0 ? cut : NULL, n, NULL, &r);
        if (rc != TEMPO_E_TRUNCATED)
            fail_msg("cut at %zu of %zu: %s", n, k.size, tempo_result_name(rc));
        assert_null(r);
        free(cut);
    }
}

static void every_single_bit_flip_of_a_real_file_is_an_error(void **state)
{
    (void)state;
    sink k;
    small_real_file(&k);
    uint8_t *copy = malloc(k.size);
    assert_non_null(copy);
    int by_code[17] = {0};
    for (size_t bit = 0; bit < k.size * 8; bit++) {
        memcpy(copy, k.data, k.size);
        copy[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        tempo_replay *r;
        int rc = tempo_replay_open(copy, k.size, NULL, &r);
        if (rc != TEMPO_E_MALFORMED && rc != TEMPO_E_TRUNCATED && rc != TEMPO_E_FOREIGN &&
            rc != TEMPO_E_VERSION)
            fail_msg("flip of bit %zu: %s", bit, tempo_result_name(rc));
        by_code[-rc]++;
    }
    /* the magic says foreign, the version field another version */
    assert_int_equal(by_code[-TEMPO_E_FOREIGN], 64);
    assert_int_equal(by_code[-TEMPO_E_VERSION], 16);
    free(copy);
}

static void a_foreign_file_or_another_version_says_so(void **state)
{
    (void)state;
    sink k;
    small_real_file(&k);
    tempo_replay *r;
    static const uint8_t png[] = {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13};
    assert_int_equal(tempo_replay_open(png, sizeof png, NULL, &r), TEMPO_E_FOREIGN);
    assert_int_equal(tempo_replay_open("hello, world", 12, NULL, &r), TEMPO_E_FOREIGN);
    assert_int_equal(tempo_replay_open("h", 1, NULL, &r), TEMPO_E_FOREIGN);
    assert_int_equal(tempo_replay_open(k.data, 0, NULL, &r), TEMPO_E_TRUNCATED);
    assert_int_equal(tempo_replay_open(k.data, 5, NULL, &r), TEMPO_E_TRUNCATED);
    uint8_t *v2 = malloc(k.size);
    assert_non_null(v2);
    memcpy(v2, k.data, k.size);
    v2[8] = 2; /* a newer format version */
    assert_int_equal(tempo_replay_open(v2, k.size, NULL, &r), TEMPO_E_VERSION);
    v2[8] = 0;
    assert_int_equal(tempo_replay_open(v2, k.size, NULL, &r), TEMPO_E_VERSION);
    /* bytes after the end chunk */
    memcpy(v2, k.data, k.size);
    assert_int_equal(tempo_replay_open(v2, k.size - 1, NULL, &r), TEMPO_E_TRUNCATED);
    free(v2);
    uint8_t *longer = malloc(k.size + 1);
    assert_non_null(longer);
    memcpy(longer, k.data, k.size);
    longer[k.size] = 0;
    assert_int_equal(tempo_replay_open(longer, k.size + 1, NULL, &r), TEMPO_E_MALFORMED);
    free(longer);
    assert_int_equal(tempo_replay_open(NULL, 3, NULL, &r), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_replay_open(k.data, k.size, NULL, NULL), TEMPO_E_INVALID_ARG);
    assert_string_equal(tempo_result_name(TEMPO_E_FOREIGN), "TEMPO_E_FOREIGN");
}

/* ---- the example of docs/REPLAY.md --------------------------------------------- */

/* 2 players, 2-byte inputs, 6 frames in chunks of 4, checksums every 2
 * frames, states every 4 frames, settings "v1". */
static size_t write_example(sink *k)
{
    sink_init(k);
    tempo_replay_writer_config wc;
    tempo_replay_writer_config_default(&wc, NULL);
    wc.settings.num_players = 2;
    wc.settings.input_size = 2;
    wc.settings.desync_interval = 2;
    wc.settings.state_interval = 4;
    wc.settings.max_state_size = 2;
    wc.settings.settings = "v1";
    wc.settings.settings_size = 2;
    wc.frames_per_chunk = 4;
    wc.write = sink_write;
    wc.write_ctx = k;
    tempo_replay_writer *w;
    assert_int_equal(tempo_replay_writer_create(&wc, &w), TEMPO_OK);
    static const uint8_t in[6][4] = {{0x01, 0x00, 0x00, 0x00}, {0x01, 0x00, 0x00, 0x00},
                                     {0x01, 0x00, 0x00, 0x80}, {0x01, 0x00, 0x00, 0x80},
                                     {0x03, 0x00, 0x00, 0x00}, {0x03, 0x00, 0x00, 0x00}};
    static const uint8_t st[6][2] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 2}, {0, 2}};
    for (int32_t f = 0; f < 6; f++) {
        uint8_t s2[2] = {(uint8_t)(0x50 + f), (uint8_t)f}; /* state f, as "the game" has it */
        if (f % 2 == 0)
            assert_int_equal(
                tempo_replay_writer_checksum(w, f, 0x1111111111111111ull * (uint64_t)f), f > 0);
        if (f % 4 == 0)
            assert_int_equal(tempo_replay_writer_state(w, f, s2, 2), 1);
        assert_int_equal(tempo_replay_writer_add_frame(w, f, in[f], 4, st[f]), TEMPO_OK);
    }
    assert_int_equal(tempo_replay_writer_checksum(w, 6, 0x6666666666666666ull), 1);
    assert_int_equal(tempo_replay_writer_finish(w), TEMPO_OK);
    tempo_replay_writer_destroy(w);
    return k->size;
}

/* Print the example a chunk a line (the header first). */
static void print_example(void)
{
    sink k;
    write_example(&k);
    size_t pos = 52 + 2 + 8, at = 0;
    for (;;) {
        for (size_t i = at; i < pos; i++)
            printf("%02x%s", k.data[i], i + 1 < pos ? " " : "\n");
        if (pos >= k.size)
            break;
        at = pos;
        uint32_t n = (uint32_t)k.data[pos + 1] | (uint32_t)k.data[pos + 2] << 8 |
                     (uint32_t)k.data[pos + 3] << 16 | (uint32_t)k.data[pos + 4] << 24;
        pos += 13 + n;
    }
}

static void the_example_in_replay_md_is_what_the_writer_writes(void **state)
{
    (void)state;
    sink k;
    write_example(&k);
    FILE *f = fopen(TEMPO_SOURCE_DIR "/docs/REPLAY.md", "r");
    assert_non_null(f);
    static uint8_t doc[4096];
    size_t n = 0;
    bool in_example = false;
    char line[1024];
    while (fgets(line, sizeof line, f) != NULL) {
        if (strstr(line, "<!-- replay-example:begin -->") != NULL) {
            in_example = true;
            continue;
        }
        if (strstr(line, "<!-- replay-example:end -->") != NULL)
            break;
        if (!in_example || line[0] == '`' || line[0] == '#')
            continue;
        /* hex pairs up to the first word that is not one */
        for (char *p = strtok(line, " \t\r\n"); p != NULL; p = strtok(NULL, " \t\r\n")) {
            unsigned v;
            char extra;
            if (strlen(p) != 2 || sscanf(p, "%2x%c", &v, &extra) != 1)
                break;
            assert_true(n < sizeof doc);
            doc[n++] = (uint8_t)v;
        }
    }
    fclose(f);
    if (n != k.size || memcmp(doc, k.data, n) != 0) {
        print_example();
        fail_msg("docs/REPLAY.md's example (%zu bytes) differs from the writer's (%zu bytes)", n,
                 k.size);
    }

    /* and it reads back */
    tempo_replay *r;
    assert_int_equal(tempo_replay_open(doc, n, NULL, &r), TEMPO_OK);
    int32_t first, end;
    tempo_replay_frame_range(r, &first, &end);
    assert_int_equal(end, 6);
    uint8_t in[4], st[2];
    assert_int_equal(tempo_replay_inputs(r, 5, in, 4, st), TEMPO_OK);
    assert_int_equal(in[0], 3);
    assert_int_equal(st[1], TEMPO_INPUT_DISCONNECTED);
    assert_int_equal(tempo_replay_inputs(r, 2, in, 4, st), TEMPO_OK);
    assert_int_equal(in[3], 0x80);
    assert_int_equal(tempo_replay_checksum_count(r), 3);
    int32_t sf;
    const void *data;
    size_t size;
    assert_int_equal(tempo_replay_state_at_or_before(r, 3, &sf, &data, &size), TEMPO_OK);
    assert_int_equal(sf, 0);
    assert_int_equal(tempo_replay_state_at_or_before(r, 6, &sf, &data, &size), TEMPO_OK);
    assert_int_equal(sf, 4);
    assert_memory_equal(data, "\x54\x04", 2);
    tempo_replay_close(r);
}

/* ---- the writer's rules ----------------------------------------------------------- */

static tempo_replay_writer *plain_writer(sink *k, int frames_per_chunk)
{
    sink_init(k);
    tempo_replay_writer_config wc;
    tempo_replay_writer_config_default(&wc, NULL);
    wc.settings.num_players = 1;
    wc.settings.input_size = 1;
    wc.settings.desync_interval = 10;
    wc.settings.state_interval = 10;
    wc.settings.max_state_size = 4;
    wc.frames_per_chunk = frames_per_chunk;
    wc.write = sink_write;
    wc.write_ctx = k;
    tempo_replay_writer *w;
    assert_int_equal(tempo_replay_writer_create(&wc, &w), TEMPO_OK);
    return w;
}

static void add_frames(tempo_replay_writer *w, int32_t upto)
{
    static const uint8_t st = TEMPO_INPUT_CONFIRMED;
    for (int32_t f = tempo_replay_writer_end(w); f < upto; f++) {
        uint8_t in = (uint8_t)(f / 3);
        assert_int_equal(tempo_replay_writer_add_frame(w, f, &in, 1, &st), TEMPO_OK);
    }
}

static void offers_wait_for_confirmation_and_the_newest_wins(void **state)
{
    (void)state;
    sink k;
    tempo_replay_writer *w = plain_writer(&k, 8);
    add_frames(w, 5);
    assert_int_equal(tempo_replay_writer_checksum(w, 10, 0xAAAA), 1); /* predicted */
    assert_int_equal(tempo_replay_writer_state(w, 10, "old!", 4), 1);
    assert_int_equal(tempo_replay_writer_checksum(w, 10, 0xBBBB), 1); /* a rollback saves again */
    assert_int_equal(tempo_replay_writer_state(w, 10, "new!", 4), 1);
    assert_int_equal(tempo_replay_writer_checksum(w, 11, 1), 0); /* no check frame */
    assert_int_equal(tempo_replay_writer_state(w, 12, "abcd", 4), 0); /* no mark */
    assert_int_equal(tempo_replay_writer_state(w, 0, "zero", 4), 1);  /* final: written now */
    assert_int_equal(tempo_replay_writer_state(w, 0, "zero", 4), 0);  /* once */
    add_frames(w, 12);
    assert_int_equal(tempo_replay_writer_checksum(w, 10, 0xCCCC), 0); /* committed already */
    assert_int_equal(tempo_replay_writer_checksum(w, 20, 0xDDDD), 1);
    assert_int_equal(tempo_replay_writer_finish(w), TEMPO_OK); /* 20 is not final: dropped */
    assert_int_equal(tempo_replay_writer_finish(w), TEMPO_E_STATE);
    assert_int_equal(tempo_replay_writer_checksum(w, 30, 1), TEMPO_E_STATE);
    tempo_replay_writer_destroy(w);

    tempo_replay *r;
    assert_int_equal(tempo_replay_open(k.data, k.size, NULL, &r), TEMPO_OK);
    uint64_t sum;
    assert_int_equal(tempo_replay_checksum_count(r), 1);
    assert_int_equal(tempo_replay_checksum(r, 10, &sum), 1);
    assert_true(sum == 0xBBBB);
    int32_t sf;
    const void *data;
    size_t size;
    assert_int_equal(tempo_replay_state_count(r), 2);
    assert_int_equal(tempo_replay_state_at_or_before(r, 100, &sf, &data, &size), TEMPO_OK);
    assert_int_equal(sf, 10);
    assert_memory_equal(data, "new!", 4);
    for (int32_t f = 11; f >= 0; f--) { /* backwards across chunks */
        uint8_t in, st;
        assert_int_equal(tempo_replay_inputs(r, f, &in, 1, &st), TEMPO_OK);
        assert_int_equal(in, f / 3);
    }
    tempo_replay_close(r);
}

static void a_writer_behind_the_log_stops_with_an_error(void **state)
{
    (void)state;
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = 1;
    cfg.input_size = 1;
    cfg.input_log_frames = 64;
    tempo_session *s;
    assert_int_equal(tempo_session_create_local(&cfg, &s), TEMPO_OK);
    assert_int_equal(tempo_session_add_local_player(s, 0), TEMPO_OK);
    sink k;
    sink_init(&k);
    tempo_replay_writer_config wc;
    tempo_replay_writer_config_default(&wc, &cfg);
    wc.write = sink_write;
    wc.write_ctx = &k;
    tempo_replay_writer *w;
    assert_int_equal(tempo_replay_writer_create(&wc, &w), TEMPO_OK);
    toy_driver_init(&drv, 1, 1);
    for (int i = 0; i < 100; i++) {
        uint8_t in = (uint8_t)i;
        tempo_tick tick;
        tempo_session_add_local_input(s, 0, &in, 1);
        assert_int_equal(tempo_session_advance(s, &tick), TEMPO_OK);
        toy_driver_run(&drv, s);
        if (i < 10)
            assert_int_equal(tempo_replay_writer_feed(w, s), TEMPO_OK);
    }
    assert_int_equal(tempo_replay_writer_feed(w, s), TEMPO_E_FRAME);
    uint8_t in = 0, st = 0;
    assert_int_equal(tempo_replay_writer_add_frame(w, 10, &in, 1, &st), TEMPO_E_FRAME);
    assert_int_equal(tempo_replay_writer_finish(w), TEMPO_E_FRAME);
    tempo_replay_writer_destroy(w);
    tempo_replay *r;
    assert_int_equal(tempo_replay_open(k.data, k.size, NULL, &r), TEMPO_E_TRUNCATED);

    /* a session of another shape is refused without harm */
    sink_init(&k);
    wc.settings.input_size = 2;
    assert_int_equal(tempo_replay_writer_create(&wc, &w), TEMPO_OK);
    assert_int_equal(tempo_replay_writer_feed(w, s), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_replay_writer_end(w), 0);
    tempo_replay_writer_destroy(w);
    tempo_session_destroy(s);
}

static void a_failing_write_callback_stops_the_writer(void **state)
{
    (void)state;
    sink k;
    sink_init(&k);
    k.fail_after = 10;
    tempo_replay_writer_config wc;
    tempo_replay_writer_config_default(&wc, NULL);
    wc.write = sink_write;
    wc.write_ctx = &k;
    tempo_replay_writer *w;
    assert_int_equal(tempo_replay_writer_create(&wc, &w), TEMPO_E_IO);
    assert_null(w);

    w = plain_writer(&k, 4);
    k.fail_after = k.size + 20;
    static const uint8_t st = TEMPO_INPUT_CONFIRMED;
    tempo_result rc = TEMPO_OK;
    int32_t f = 0;
    for (; f < 100 && rc == TEMPO_OK; f++) {
        uint8_t in = (uint8_t)f;
        rc = tempo_replay_writer_add_frame(w, f, &in, 1, &st);
    }
    assert_int_equal(rc, TEMPO_E_IO);
    uint8_t in = 0;
    assert_int_equal(tempo_replay_writer_add_frame(w, f, &in, 1, &st), TEMPO_E_IO);
    assert_int_equal(tempo_replay_writer_finish(w), TEMPO_E_IO);
    tempo_replay_writer_destroy(w);
}

static void arena_capture_records_final_states_only(void **state)
{
    (void)state;
    uint8_t arena[8] = {0};
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = 1;
    cfg.input_size = 1;
    cfg.desync_interval = 5;
    cfg.arena = arena;
    cfg.arena_size = sizeof arena;
    tempo_session *s;
    assert_int_equal(tempo_session_create_local(&cfg, &s), TEMPO_OK);
    assert_int_equal(tempo_session_add_local_player(s, 0), TEMPO_OK);
    sink k;
    sink_init(&k);
    tempo_replay_writer_config wc;
    tempo_replay_writer_config_default(&wc, &cfg);
    wc.settings.state_interval = 10;
    wc.settings.max_state_size = sizeof arena;
    wc.write = sink_write;
    wc.write_ctx = &k;
    tempo_replay_writer *w;
    assert_int_equal(tempo_replay_writer_create(&wc, &w), TEMPO_OK);
    assert_int_equal(tempo_replay_writer_capture_arena(w, s, arena, sizeof arena), 1); /* state 0 */
    uint64_t want[32] = {0};
    for (int i = 0; i < 30; i++) {
        uint8_t in = (uint8_t)(i * 7);
        tempo_tick tick;
        tempo_session_add_local_input(s, 0, &in, 1);
        assert_int_equal(tempo_session_advance(s, &tick), TEMPO_OK);
        const tempo_request *r;
        while (tempo_session_next(s, &r) > 0) {
            arena[r->frame % 8] ^= r->inputs[0];
            arena[(r->frame + 1) % 8] += 1;
        }
        assert_int_equal(tempo_replay_writer_feed(w, s), TEMPO_OK);
        int kept = tempo_replay_writer_capture_arena(w, s, arena, sizeof arena);
        int32_t f = tempo_session_frame(s);
        assert_int_equal(kept, (f % 5 == 0) + (f % 10 == 0));
        want[f] = tempo_checksum(arena, sizeof arena);
    }
    assert_int_equal(tempo_replay_writer_finish(w), TEMPO_OK);
    tempo_replay_writer_destroy(w);
    tempo_replay *r;
    assert_int_equal(tempo_replay_open(k.data, k.size, NULL, &r), TEMPO_OK);
    assert_int_equal(tempo_replay_checksum_count(r), 6);
    for (int32_t f = 5; f <= 30; f += 5) {
        uint64_t sum;
        assert_int_equal(tempo_replay_checksum(r, f, &sum), 1);
        assert_true(sum == want[f]);
    }
    assert_int_equal(tempo_replay_state_count(r), 4);
    tempo_replay_close(r);
    tempo_session_destroy(s);
}

static void bad_arguments_are_refused(void **state)
{
    (void)state;
    sink k;
    sink_init(&k);
    tempo_replay_writer_config wc;
    tempo_replay_writer_config_default(&wc, NULL);
    tempo_replay_writer *w = NULL;
    assert_int_equal(tempo_replay_writer_create(&wc, &w), TEMPO_E_INVALID_ARG); /* no callback */
    wc.write = sink_write;
    wc.write_ctx = &k;
    tempo_replay_writer_config bad = wc;
    bad.settings.num_players = 9;
    assert_int_equal(tempo_replay_writer_create(&bad, &w), TEMPO_E_INVALID_ARG);
    bad = wc;
    bad.settings.state_interval = 10; /* without a state size */
    assert_int_equal(tempo_replay_writer_create(&bad, &w), TEMPO_E_INVALID_ARG);
    bad = wc;
    bad.settings.settings_size = TEMPO_REPLAY_MAX_SETTINGS + 1;
    bad.settings.settings = k.data;
    assert_int_equal(tempo_replay_writer_create(&bad, &w), TEMPO_E_INVALID_ARG);
    bad = wc;
    bad.frames_per_chunk = TEMPO_REPLAY_MAX_CHUNK_FRAMES + 1;
    assert_int_equal(tempo_replay_writer_create(&bad, &w), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_replay_writer_create(&wc, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_replay_writer_create(&wc, &w), TEMPO_OK);
    uint8_t in[8] = {1}, st[2] = {0, 1};
    assert_int_equal(tempo_replay_writer_add_frame(w, 0, in, 7, st), TEMPO_E_INVALID_ARG);
    /* PREDICTED has no place in a file */
    assert_int_equal(tempo_replay_writer_add_frame(w, 0, in, 8, st), TEMPO_E_INVALID_ARG);
    st[1] = TEMPO_INPUT_DISCONNECTED;
    in[4] = 1;
    /* a DISCONNECTED input that is not zero */
    assert_int_equal(tempo_replay_writer_add_frame(w, 0, in, 8, st), TEMPO_E_INVALID_ARG);
    in[4] = 0;
    assert_int_equal(tempo_replay_writer_add_frame(w, 1, in, 8, st), TEMPO_E_FRAME);
    assert_int_equal(tempo_replay_writer_add_frame(w, 0, in, 8, st), TEMPO_OK);
    assert_int_equal(tempo_replay_writer_state(w, 0, in, 1), TEMPO_E_INVALID_ARG); /* no states */
    assert_int_equal(tempo_replay_writer_add_frame(NULL, 0, in, 8, st), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_replay_writer_feed(w, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_replay_writer_end(NULL), TEMPO_E_INVALID_ARG);
    tempo_replay_writer_destroy(w);
    tempo_replay_writer_destroy(NULL);
    tempo_replay_close(NULL);
    assert_int_equal(tempo_replay_get_settings(NULL, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_replay_checksum_count(NULL), TEMPO_E_INVALID_ARG);
}

static int allocations;

static void *count_alloc(void *ctx, size_t size)
{
    (void)ctx;
    allocations++;
    return malloc(size);
}

static void count_free(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

static void writer_and_reader_allocate_only_when_created(void **state)
{
    (void)state;
    sink k;
    sink_init(&k);
    tempo_replay_writer_config wc;
    tempo_replay_writer_config_default(&wc, NULL);
    wc.settings.num_players = 4;
    wc.settings.input_size = 4;
    wc.settings.state_interval = 60;
    wc.settings.max_state_size = 64;
    wc.frames_per_chunk = 32;
    wc.write = sink_write;
    wc.write_ctx = &k;
    wc.allocator.alloc = count_alloc;
    wc.allocator.free = count_free;
    allocations = 0;
    tempo_replay_writer *w;
    assert_int_equal(tempo_replay_writer_create(&wc, &w), TEMPO_OK);
    int at_create = allocations;
    make_typical_inputs(3);
    for (int32_t f = 0; f < 2000; f++) {
        uint8_t in[16], st[4] = {0};
        for (int p = 0; p < 4; p++)
            memcpy(in + 4 * p, typical[p][f], 4);
        uint8_t blob[64];
        memset(blob, (int)f, sizeof blob);
        assert_true(tempo_replay_writer_checksum(w, f + 3, (uint64_t)f) >= 0);
        assert_true(tempo_replay_writer_state(w, f + 3, blob, sizeof blob) >= 0);
        assert_int_equal(tempo_replay_writer_add_frame(w, f, in, sizeof in, st), TEMPO_OK);
    }
    assert_int_equal(tempo_replay_writer_finish(w), TEMPO_OK);
    assert_int_equal(allocations, at_create);
    tempo_replay_writer_destroy(w);

    allocations = 0;
    tempo_replay *r;
    assert_int_equal(tempo_replay_open(k.data, k.size, &wc.allocator, &r), TEMPO_OK);
    assert_int_equal(allocations, 1);
    assert_int_equal(tempo_replay_checksum_count(r), 2000 / 60);
    assert_int_equal(tempo_replay_state_count(r), 2000 / 60); /* 60 ... 1980: 0 was not offered */
    for (int32_t f = 1999; f >= 0; f -= 7) {
        uint8_t in[16];
        assert_int_equal(tempo_replay_inputs(r, f, in, sizeof in, NULL), TEMPO_OK);
        assert_memory_equal(in + 12, typical[3][f], 4);
    }
    assert_int_equal(allocations, 1);
    tempo_replay_close(r);
}

/* ---- corpus -------------------------------------------------------------------------- */

static int write_file(const char *dir, const char *name, const sink *k)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return -1;
    size_t n = fwrite(k->data, 1, k->size, f);
    return fclose(f) == 0 && n == k->size ? 0 : -1;
}

static int write_corpus(const char *root)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/replay", root);
    mkdir(root, 0755);
    mkdir(dir, 0755);
    sink k;
    write_example(&k);
    if (write_file(dir, "example", &k) != 0)
        return -1;
    small_real_file(&k);
    if (write_file(dir, "match-10s", &k) != 0)
        return -1;
    tempo_replay_writer *w = plain_writer(&k, 3);
    add_frames(w, 40);
    tempo_replay_writer_checksum(w, 40, 1);
    tempo_replay_writer_finish(w);
    tempo_replay_writer_destroy(w);
    return write_file(dir, "one-player", &k);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-corpus") == 0)
        return write_corpus(argv[2]) == 0 ? 0 : 1;
    if (argc == 2 && strcmp(argv[1], "--print-example") == 0) {
        print_example();
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_4_player_minute_reads_back_as_the_session_logged_it),
        cmocka_unit_test(every_truncation_of_a_real_file_says_truncated),
        cmocka_unit_test(every_single_bit_flip_of_a_real_file_is_an_error),
        cmocka_unit_test(a_foreign_file_or_another_version_says_so),
        cmocka_unit_test(the_example_in_replay_md_is_what_the_writer_writes),
        cmocka_unit_test(offers_wait_for_confirmation_and_the_newest_wins),
        cmocka_unit_test(a_writer_behind_the_log_stops_with_an_error),
        cmocka_unit_test(a_failing_write_callback_stops_the_writer),
        cmocka_unit_test(arena_capture_records_final_states_only),
        cmocka_unit_test(bad_arguments_are_refused),
        cmocka_unit_test(writer_and_reader_allocate_only_when_created),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
