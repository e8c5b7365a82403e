/* SPDX-License-Identifier: MIT */
/*
 * test_desync_diff.c — desync diffs between two p2p peers over simnet. A
 * small game keeps a 256-byte state; peer 1 plants a bug (a few bytes it
 * changes in every execution of one frame) and the peers must report
 * exactly those bytes: in arena mode from tempo's own copies, without an
 * arena from the states the game provides. The describer names a field;
 * the size cap and turning the feature off send nothing; a hostile peer's
 * forged, oversized or malformed states are refused and counted while the
 * honest match plays on; nothing is allocated after create.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "p2p/network.h"
#include "session/session.h"
#include "tempo/secure.h"
#include "tempo/simnet.h"
#include "wire/fragment.h"
#include "wire/packet.h"

#define STATE 256
#define FIELD 40          /* a 4-byte field the game never touches: 4410 */
#define CORRUPT 100       /* peer 1's bug runs in the ADVANCE of this frame */
#define CHECK 120         /* the first check frame after it (interval 30) */
#define TICK_US 16667u
#define SLOTS_MAX 80
#define KEEP 8
/* Long enough for the check of CHECK, short of the next exchange (P2P_DIFF_HOLD_US later). */
#define FRAMES 280

typedef struct game {
    uint8_t b[STATE];
} game;

typedef struct machine {
    tempo_session *s;
    tempo_address addr;
    tempo_transport node;   /* simnet's */
    tempo_transport spy;    /* the session's: counts what it sends */
    int index;
    game g;                 /* the live state (the arena in arena mode) */
    game slot[SLOTS_MAX];   /* without an arena: the SAVE slots */
    game kept[KEEP];        /* without an arena: states of check frames */
    int32_t kept_frame[KEEP];
    bool arena;
    int corrupt;            /* 0 none, 1 three bytes inverted, 2 the field 4410 -> 4412 */
    /* what it saw */
    int desyncs, diffs;
    int wanted;             /* DESYNC events with state_wanted */
    tempo_event diff;       /* the first DESYNC_DIFF */
    tempo_result provided;  /* what tempo_session_provide_state answered */
    uint64_t state_bytes_sent; /* bytes of DESYNC_STATE datagrams */
    int state_datagrams;
    int state_sealed;       /* of those, sealed */
} machine;

typedef struct allocs {
    int count;
} allocs;

static void *count_alloc(void *ctx, size_t size)
{
    ((allocs *)ctx)->count++;
    return malloc(size);
}

static void count_free(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

static int spy_send(void *ctx, const tempo_address *to, const uint8_t *data, size_t size)
{
    machine *m = ctx;
    tempo_packet_view v;
    tempo_drop_reason why;
    if (packet_read(data, size, &v, &why) == TEMPO_OK && v.h.type == 46) {
        m->state_bytes_sent += size;
        m->state_datagrams++;
        m->state_sealed += v.h.sealed;
    }
    return m->node.send(m->node.ctx, to, data, size);
}

static int spy_recv(void *ctx, tempo_address *from, uint8_t *buf, size_t capacity)
{
    machine *m = ctx;
    return m->node.recv(m->node.ctx, from, buf, capacity);
}

typedef struct match {
    tempo_simnet *net;
    machine m[2];
    uint64_t now_us;
    allocs al;
} match;

/* The game's rule: a frame counter and the inputs folded into bytes 4..35;
 * the rest is left alone. */
static void step(game *g, const uint8_t *inputs, int32_t frame)
{
    uint32_t f = (uint32_t)frame + 1;
    memcpy(g->b, &f, 4);
    for (int i = 0; i < 8; i++)
        g->b[4 + (frame + i) % 32] = (uint8_t)(g->b[4 + (frame + i) % 32] * 31u + inputs[i]);
}

static void plant(machine *m, int32_t frame)
{
    if (m->index != 1 || frame != CORRUPT)
        return;
    if (m->corrupt == 1)
        for (int i = 0; i < 3; i++)
            m->g.b[100 + i] ^= 0xFF;
    if (m->corrupt == 2) {
        uint32_t v = 4412;
        memcpy(m->g.b + FIELD, &v, 4);
    }
}

static bool describe(void *ctx, size_t offset, char *name, size_t name_size, size_t *field_offset,
                     size_t *field_size)
{
    (void)ctx;
    if (offset < FIELD || offset >= FIELD + 4)
        return false;
    snprintf(name, name_size, "ships[2].x");
    *field_offset = FIELD;
    *field_size = 4;
    return true;
}

static tempo_config base_cfg(void)
{
    tempo_config c;
    tempo_config_default(&c);
    c.num_players = 2;
    c.input_size = 4;
    c.max_prediction = 8;
    c.desync_interval = 30;
    return c;
}

static void match_init(match *mt, const tempo_config *cfg, bool arena, int corrupt)
{
    memset(mt, 0, sizeof *mt);
    tempo_simnet_config nc;
    tempo_simnet_config_default(&nc);
    nc.seed = 7;
    assert_int_equal(tempo_link_profile("perfect", &nc.default_link), TEMPO_OK);
    assert_int_equal(tempo_simnet_create(&nc, &mt->net), TEMPO_OK);
    for (int i = 0; i < 2; i++) {
        machine *m = &mt->m[i];
        m->index = i;
        m->arena = arena;
        m->corrupt = corrupt;
        m->provided = TEMPO_OK;
        uint32_t v = 4410;
        memcpy(m->g.b + FIELD, &v, 4);
        for (int k = 0; k < KEEP; k++)
            m->kept_frame[k] = -1;
        m->addr = tempo_address_ipv4(10, 0, 0, (uint8_t)(i + 1), 7000);
        assert_int_equal(tempo_simnet_add_node(mt->net, &m->addr, &m->node), TEMPO_OK);
        m->spy.send = spy_send;
        m->spy.recv = spy_recv;
        m->spy.ctx = m;
    }
    for (int i = 0; i < 2; i++) {
        machine *m = &mt->m[i];
        tempo_config c = *cfg;
        c.random_seed = 11 + (uint64_t)i;
        c.allocator.alloc = count_alloc;
        c.allocator.free = count_free;
        c.allocator.ctx = &mt->al;
        if (arena) {
            c.arena = &m->g;
            c.arena_size = sizeof m->g;
        }
        assert_int_equal(tempo_session_create_p2p(&c, &m->spy, &m->s), TEMPO_OK);
        assert_int_equal(tempo_session_add_local_player(m->s, i), TEMPO_OK);
        assert_int_equal(tempo_session_add_remote_player(m->s, 1 - i, &mt->m[1 - i].addr), TEMPO_OK);
        assert_true(tempo_session_save_slots(m->s) <= SLOTS_MAX);
    }
}

static void match_free(match *mt)
{
    for (int i = 0; i < 2; i++)
        tempo_session_destroy(mt->m[i].s);
    tempo_simnet_destroy(mt->net);
}

static void keep_check_frame(machine *m, int32_t frame, const game *g)
{
    if (frame % 30 != 0)
        return;
    int k = (frame / 30) % KEEP;
    m->kept[k] = *g;
    m->kept_frame[k] = frame;
}

static void do_request(machine *m, const tempo_request *r)
{
    switch (r->kind) {
    case TEMPO_REQUEST_ADVANCE:
        step(&m->g, r->inputs, r->frame);
        plant(m, r->frame);
        break;
    case TEMPO_REQUEST_SAVE: /* only without an arena */
        m->slot[r->slot] = m->g;
        if (r->checksum)
            *r->checksum = tempo_checksum(m->g.b, STATE);
        keep_check_frame(m, r->frame, &m->g);
        break;
    case TEMPO_REQUEST_LOAD:
        m->g = m->slot[r->slot];
        break;
    }
}

static void events(machine *m)
{
    tempo_event ev;
    while (tempo_session_poll_event(m->s, &ev) > 0) {
        if (ev.kind == TEMPO_EVENT_DESYNC) {
            m->desyncs++;
            if (m->arena || m->s->cfg.desync_diff_max_bytes == 0)
                assert_false(ev.u.desync.state_wanted);
            if (ev.u.desync.state_wanted) {
                m->wanted++;
                int k = (ev.u.desync.frame / 30) % KEEP;
                assert_int_equal(m->kept_frame[k], ev.u.desync.frame);
                m->provided = tempo_session_provide_state(m->s, ev.u.desync.frame, m->kept[k].b, STATE);
            }
        }
        if (ev.kind == TEMPO_EVENT_DESYNC_DIFF) {
            if (m->diffs == 0)
                m->diff = ev;
            m->diffs++;
        }
    }
}

static void tick(match *mt, machine *m)
{
    assert_int_equal(tempo_session_poll(m->s, mt->now_us), TEMPO_OK);
    uint8_t in[4] = {(uint8_t)(mt->now_us / 977), (uint8_t)m->index, 3, (uint8_t)(mt->now_us >> 12)};
    tempo_session_add_local_input(m->s, m->index, in, sizeof in);
    tempo_tick t;
    assert_int_equal(tempo_session_advance(m->s, &t), TEMPO_OK);
    const tempo_request *r;
    while (tempo_session_next(m->s, &r) > 0)
        do_request(m, r);
    events(m);
}

/* Run both machines until both reach `frames` (or the time is up). */
static void run(match *mt, int32_t frames)
{
    uint64_t next[2] = {0, TICK_US / 3};
    for (uint64_t end = mt->now_us + 60000000u; mt->now_us < end; mt->now_us += 1000) {
        tempo_simnet_set_time(mt->net, mt->now_us);
        for (int i = 0; i < 2; i++)
            if (mt->now_us >= next[i]) {
                next[i] += TICK_US;
                tick(mt, &mt->m[i]);
            }
        if (tempo_session_frame(mt->m[0].s) >= frames && tempo_session_frame(mt->m[1].s) >= frames)
            return;
    }
    fail_msg("the match did not reach frame %d", frames);
}

static tempo_session_stats stats(const machine *m)
{
    tempo_session_stats st;
    assert_int_equal(tempo_session_get_stats(m->s, &st), TEMPO_OK);
    return st;
}

/* ---- diffs --------------------------------------------------------------- */

static void a_planted_desync_in_arena_mode_gives_both_peers_the_corrupted_range(void **state)
{
    (void)state;
    match mt;
    tempo_config c = base_cfg();
    match_init(&mt, &c, true, 1);
    run(&mt, FRAMES);
    for (int i = 0; i < 2; i++) {
        machine *m = &mt.m[i];
        assert_true(m->desyncs >= 1);
        assert_int_equal(m->diffs, 1);
        assert_int_equal(m->diff.player, 1 - i);
        assert_int_equal(m->diff.u.diff.frame, CHECK);
        assert_int_equal(m->diff.u.diff.status, TEMPO_DIFF_DONE);
        assert_int_equal(m->diff.u.diff.num_ranges, 1);
        assert_int_equal(m->diff.u.diff.ranges[0].offset, 100);
        assert_int_equal(m->diff.u.diff.ranges[0].length, 3);
        tempo_desync_diff d;
        assert_int_equal(tempo_session_desync_diff(m->s, &d), TEMPO_OK);
        assert_int_equal(d.frame, CHECK);
        assert_int_equal(d.player, 1 - i);
        assert_int_equal(d.local_player, i);
        assert_int_equal(d.num_ranges, 1);
        assert_int_equal(d.kept_ranges, 1);
        assert_int_equal(d.local_size, STATE);
        assert_int_equal(d.remote_size, STATE);
        const uint8_t *bad = i == 1 ? d.local : d.remote, *good = i == 1 ? d.remote : d.local;
        for (int k = 0; k < 3; k++)
            assert_int_equal(bad[100 + k], (uint8_t)~good[100 + k]);
        assert_memory_equal(d.local, d.remote, 100);
        assert_memory_equal(d.local + 103, d.remote + 103, STATE - 103);
        /* one transfer: a state of 256 bytes fits one datagram */
        assert_int_equal(m->state_datagrams, 1);
        tempo_session_stats st = stats(m);
        assert_int_equal(st.diffs, 1);
        assert_int_equal(st.diffs_ignored, 0);
    }
    match_free(&mt);
}

static void without_an_arena_the_states_the_game_provides_are_diffed(void **state)
{
    (void)state;
    match mt;
    tempo_config c = base_cfg();
    match_init(&mt, &c, false, 1);
    run(&mt, FRAMES);
    for (int i = 0; i < 2; i++) {
        machine *m = &mt.m[i];
        assert_int_equal(m->provided, TEMPO_OK);
        assert_true(m->desyncs > 1); /* later check frames differ too: one exchange */
        assert_int_equal(m->wanted, 1);
        assert_int_equal(m->diffs, 1);
        assert_int_equal(m->diff.u.diff.frame, CHECK);
        assert_int_equal(m->diff.u.diff.status, TEMPO_DIFF_DONE);
        assert_int_equal(m->diff.u.diff.num_ranges, 1);
        assert_int_equal(m->diff.u.diff.ranges[0].offset, 100);
        assert_int_equal(m->diff.u.diff.ranges[0].length, 3);
        /* a second provide of the same frame is refused */
        uint8_t again[STATE] = {0};
        assert_int_equal(tempo_session_provide_state(m->s, CHECK, again, sizeof again), TEMPO_E_FRAME);
    }
    match_free(&mt);
}

static void the_describer_names_the_field_and_its_values(void **state)
{
    (void)state;
    match mt;
    tempo_config c = base_cfg();
    c.describe_state = describe;
    match_init(&mt, &c, true, 2);
    run(&mt, FRAMES);
    char line[128];
    /* 4410 and 4412 differ in their low byte only: the range is that byte,
     * the line the whole field */
    assert_int_equal(mt.m[0].diff.u.diff.ranges[0].offset, FIELD);
    assert_int_equal(mt.m[0].diff.u.diff.ranges[0].length, 1);
    int n = tempo_session_desync_diff_line(mt.m[0].s, 0, line, sizeof line);
    assert_string_equal(line, "peer 0 vs peer 1 at frame 120: ships[2].x 4410 vs 4412");
    assert_int_equal(n, (int)strlen(line));
    tempo_session_desync_diff_line(mt.m[1].s, 0, line, sizeof line);
    assert_string_equal(line, "peer 1 vs peer 0 at frame 120: ships[2].x 4412 vs 4410");
    /* a short buffer is cut and terminated; the length says what it needed */
    char shortbuf[8];
    assert_int_equal(tempo_session_desync_diff_line(mt.m[0].s, 0, shortbuf, sizeof shortbuf), n);
    assert_string_equal(shortbuf, "peer 0 ");
    assert_int_equal(tempo_session_desync_diff_line(mt.m[0].s, 1, line, sizeof line), TEMPO_E_INVALID_ARG);
    match_free(&mt);
}

static void without_a_describer_the_line_gives_offsets(void **state)
{
    (void)state;
    match mt;
    tempo_config c = base_cfg();
    match_init(&mt, &c, true, 1);
    run(&mt, FRAMES);
    char line[128];
    tempo_session_desync_diff_line(mt.m[1].s, 0, line, sizeof line);
    char want[128];
    const machine *m1 = &mt.m[1];
    tempo_desync_diff d;
    assert_int_equal(tempo_session_desync_diff(m1->s, &d), TEMPO_OK);
    snprintf(want, sizeof want, "peer 1 vs peer 0 at frame 120: bytes 100..102 %02x%02x%02x vs %02x%02x%02x",
             d.local[100], d.local[101], d.local[102], d.remote[100], d.remote[101], d.remote[102]);
    assert_string_equal(line, want);
    match_free(&mt);
}

static void a_state_above_the_cap_sends_nothing_and_says_so(void **state)
{
    (void)state;
    for (int arena = 0; arena < 2; arena++) {
        match mt;
        tempo_config c = base_cfg();
        c.desync_diff_max_bytes = STATE - 1;
        match_init(&mt, &c, arena != 0, 1);
        run(&mt, FRAMES);
        for (int i = 0; i < 2; i++) {
            machine *m = &mt.m[i];
            assert_int_equal(m->diffs, 1);
            assert_int_equal(m->diff.u.diff.frame, CHECK);
            assert_int_equal(m->diff.u.diff.status, TEMPO_DIFF_TOO_LARGE);
            assert_int_equal(m->diff.u.diff.num_ranges, 0);
            if (!arena)
                assert_int_equal(m->provided, TEMPO_E_FULL);
            /* only the word that the state is too large: one small datagram */
            assert_int_equal(m->state_datagrams, 1);
            assert_true(m->state_bytes_sent < 40);
            tempo_desync_diff d;
            assert_int_equal(tempo_session_desync_diff(m->s, &d), TEMPO_E_STATE);
            tempo_session_stats st = stats(m);
            assert_int_equal(st.diffs_ignored, 0);
        }
        match_free(&mt);
    }
}

static void turned_off_nothing_is_sent_and_desyncs_still_come(void **state)
{
    (void)state;
    for (int arena = 0; arena < 2; arena++) {
        match mt;
        tempo_config c = base_cfg();
        c.desync_diff_max_bytes = 0;
        match_init(&mt, &c, arena != 0, 1);
        run(&mt, FRAMES);
        for (int i = 0; i < 2; i++) {
            machine *m = &mt.m[i];
            assert_true(m->desyncs >= 1);
            assert_int_equal(m->diffs, 0);
            assert_int_equal(m->state_datagrams, 0);
            uint8_t b[STATE] = {0};
            assert_int_equal(tempo_session_provide_state(m->s, CHECK, b, sizeof b), TEMPO_E_UNSUPPORTED);
        }
        match_free(&mt);
    }
}

static const uint8_t MATCH_KEY[32] = {
    0x51, 0x02, 0x9c, 0x7e, 0x33, 0xa8, 0x14, 0xd0, 0x6b, 0x2f, 0xc5, 0x81, 0x4e, 0xb7, 0x09, 0x6d,
    0xe1, 0x38, 0x75, 0x1a, 0x9f, 0x40, 0xcb, 0x66, 0x2d, 0x83, 0xf9, 0x17, 0x5e, 0xa2, 0x0c, 0x94};

/* Without an arena the game's state may be of any size: 10 000 bytes, 9
 * fragments, at most 4 a tick; sealed when the match has a key. */
static void large_state(bool keyed)
{
    match mt;
    tempo_config c = base_cfg();
    if (keyed) {
        c.has_match_key = true;
        memcpy(c.match_key, MATCH_KEY, sizeof c.match_key);
    }
    match_init(&mt, &c, false, 1);
    static uint8_t big[2][10000];
    run(&mt, CHECK - 10);
    /* replace what the game provides: the same 10 000 bytes but for 5 */
    for (int i = 0; i < 2; i++) {
        for (int k = 0; k < 10000; k++)
            big[i][k] = (uint8_t)(k * 7);
        if (i == 1)
            for (int k = 9000; k < 9005; k++)
                big[i][k] ^= 0x10;
    }
    int diffs[2] = {0, 0};
    tempo_event got[2];
    uint64_t end = mt.now_us + 20000000u, next[2] = {mt.now_us, mt.now_us + TICK_US / 3};
    int max_per_tick = 0;
    for (; mt.now_us < end && (diffs[0] == 0 || diffs[1] == 0); mt.now_us += 1000) {
        tempo_simnet_set_time(mt.net, mt.now_us);
        for (int i = 0; i < 2; i++) {
            machine *m = &mt.m[i];
            if (mt.now_us < next[i])
                continue;
            next[i] += TICK_US;
            int before = m->state_datagrams;
            assert_int_equal(tempo_session_poll(m->s, mt.now_us), TEMPO_OK);
            uint8_t in[4] = {1, (uint8_t)i, 3, 4};
            tempo_session_add_local_input(m->s, i, in, sizeof in);
            tempo_tick t;
            assert_int_equal(tempo_session_advance(m->s, &t), TEMPO_OK);
            const tempo_request *r;
            while (tempo_session_next(m->s, &r) > 0)
                do_request(m, r);
            if (m->state_datagrams - before > max_per_tick)
                max_per_tick = m->state_datagrams - before;
            tempo_event ev;
            while (tempo_session_poll_event(m->s, &ev) > 0) {
                if (ev.kind == TEMPO_EVENT_DESYNC && ev.u.desync.state_wanted)
                    assert_int_equal(tempo_session_provide_state(m->s, ev.u.desync.frame, big[i], sizeof big[i]),
                                     TEMPO_OK);
                if (ev.kind == TEMPO_EVENT_DESYNC_DIFF && diffs[i]++ == 0)
                    got[i] = ev;
            }
        }
    }
    for (int i = 0; i < 2; i++) {
        assert_int_equal(diffs[i], 1);
        assert_int_equal(got[i].u.diff.status, TEMPO_DIFF_DONE);
        assert_int_equal(got[i].u.diff.num_ranges, 1);
        assert_int_equal(got[i].u.diff.ranges[0].offset, 9000);
        assert_int_equal(got[i].u.diff.ranges[0].length, 5);
        assert_int_equal(mt.m[i].state_datagrams, 9); /* 10 014 bytes with the message's own 14 */
        assert_int_equal(mt.m[i].state_sealed, keyed ? 9 : 0);
    }
    assert_int_equal(max_per_tick, P2P_DIFF_FRAGS_PER_TICK);
    match_free(&mt);
}

static void a_large_state_goes_in_fragments_a_few_per_tick(void **state)
{
    (void)state;
    large_state(false);
}

static void in_a_keyed_match_every_fragment_is_sealed(void **state)
{
    (void)state;
    if (!tempo_secure_available()) {
        print_message("no libsodium in this build: nothing to seal\n");
        return;
    }
    large_state(true);
}

/* ---- hostility ------------------------------------------------------------ */

/* Send `size` bytes at buf (a header written by the caller with sequence
 * placeholder) from machine `from` to `to`, numbered as from's next. */
static void send_raw(match *mt, int from, int to, uint8_t *buf, size_t size)
{
    tempo_p2p *n = mt->m[from].s->net;
    uint64_t seq = link_on_sent(&n->peers[0].link, mt->now_us, size);
    buf[5] = (uint8_t)seq;
    buf[6] = (uint8_t)(seq >> 8);
    assert_int_equal(mt->m[from].node.send(mt->m[from].node.ctx, &mt->m[to].addr, buf, size), 0);
}

static size_t state_datagram(const match *mt, int32_t frame, uint64_t sum, uint32_t size, bool carried,
                             const uint8_t *data, uint8_t *buf, size_t cap)
{
    tempo_msg m;
    memset(&m, 0, sizeof m);
    m.type = TEMPO_MSG_DESYNC_STATE;
    m.session_id = mt->m[0].s->cfg.session_id;
    m.u.state.frame = frame;
    m.u.state.checksum = sum;
    m.u.state.size = size;
    m.u.state.carried = carried;
    m.u.state.data = data;
    int n = tempo_codec_encode(&m, NULL, buf, cap);
    assert_true(n > 0);
    return (size_t)n;
}

static void a_hostile_peer_cannot_make_the_session_allocate_or_read_out_of_bounds(void **state)
{
    (void)state;
    match mt;
    tempo_config c = base_cfg();
    c.desync_diff_max_bytes = 512;
    match_init(&mt, &c, true, 0); /* honest peers: no desync */
    run(&mt, 200);
    int allocs_before = mt.al.count;
    tempo_session_stats before = stats(&mt.m[0]);
    uint8_t buf[TEMPO_MAX_DATAGRAM], data[300];
    memset(data, 0xAB, sizeof data);
    uint64_t own = 0;
    assert_true(p2p_own_sum(mt.m[0].s->net, 150, &own));
    /* 1. a state of a frame whose checksums agree: no desync to diff */
    size_t n = state_datagram(&mt, 150, own, STATE, true, data, buf, sizeof buf);
    send_raw(&mt, 1, 0, buf, n);
    /* 2. a frame that is no check frame */
    n = state_datagram(&mt, 151, own ^ 1, STATE, true, data, buf, sizeof buf);
    send_raw(&mt, 1, 0, buf, n);
    /* 3. a frame whose checksum we never computed */
    n = state_datagram(&mt, 30000, own ^ 1, 8, true, data, buf, sizeof buf);
    send_raw(&mt, 1, 0, buf, n);
    /* 4. fragments announcing more than the cap: 57 fragments */
    for (int k = 0; k < 3; k++) {
        tempo_packet_header h = {c.session_id, 0, TEMPO_MSG_DESYNC_STATE, true, false};
        assert_int_equal(packet_write(&h, buf, sizeof buf), PACKET_HEADER_SIZE);
        uint8_t *b = buf + PACKET_HEADER_SIZE;
        b[0] = 9, b[1] = 0, b[2] = (uint8_t)k, b[3] = FRAG_MAX_COUNT;
        memset(b + FRAG_HEADER_SIZE, 0x5A, FRAG_CHUNK);
        send_raw(&mt, 1, 0, buf, PACKET_HEADER_SIZE + FRAG_HEADER_SIZE + FRAG_CHUNK);
    }
    /* 5. a size field far beyond the bytes that follow: malformed */
    n = state_datagram(&mt, 150, own ^ 1, 40, true, data, buf, sizeof buf);
    buf[PACKET_HEADER_SIZE + 11] = 0x7F; /* a size byte: now larger than the body */
    send_raw(&mt, 1, 0, buf, n);
    /* 6. a fragment of another message type */
    {
        tempo_packet_header h = {c.session_id, 0, TEMPO_MSG_INPUT, true, false};
        assert_int_equal(packet_write(&h, buf, sizeof buf), PACKET_HEADER_SIZE);
        memset(buf + PACKET_HEADER_SIZE, 1, 16);
        send_raw(&mt, 1, 0, buf, PACKET_HEADER_SIZE + 16);
    }
    run(&mt, 400);
    tempo_session_stats after = stats(&mt.m[0]);
    assert_int_equal(after.diffs_ignored - before.diffs_ignored, 6); /* 1, 2, 3 and three fragments */
    assert_int_equal(after.dropped_malformed - before.dropped_malformed, 2); /* 5 and 6 */
    assert_int_equal(after.diffs, 0);
    assert_int_equal(mt.m[0].diffs, 0);
    assert_int_equal(mt.al.count, allocs_before);
    /* the honest match played on and agreed */
    assert_true(tempo_session_confirmed_frame(mt.m[0].s) >= 390);
    assert_int_equal(after.desyncs, 0);
    assert_true(after.desync_checks > before.desync_checks);
    match_free(&mt);
}

static void a_forged_state_for_a_real_desync_frame_is_taken_once(void **state)
{
    (void)state;
    /* The peer's own state comes first; a second one for the same frame
     * (a repeat, or a liar's) is ignored. */
    match mt;
    tempo_config c = base_cfg();
    match_init(&mt, &c, true, 1);
    run(&mt, FRAMES);
    assert_int_equal(mt.m[0].diffs, 1);
    uint8_t buf[TEMPO_MAX_DATAGRAM], data[STATE];
    memset(data, 0, sizeof data);
    uint64_t own = 0;
    assert_true(p2p_own_sum(mt.m[0].s->net, CHECK, &own));
    tempo_session_stats before = stats(&mt.m[0]);
    size_t n = state_datagram(&mt, CHECK, own ^ 1, STATE, true, data, buf, sizeof buf);
    send_raw(&mt, 1, 0, buf, n);
    run(&mt, FRAMES + 10);
    tempo_session_stats after = stats(&mt.m[0]);
    assert_int_equal(after.diffs_ignored - before.diffs_ignored, 1);
    assert_int_equal(mt.m[0].diffs, 1);
    match_free(&mt);
}

static void a_diff_allocates_nothing_after_create(void **state)
{
    (void)state;
    for (int arena = 0; arena < 2; arena++) {
        match mt;
        tempo_config c = base_cfg();
        match_init(&mt, &c, arena != 0, 1);
        int created = mt.al.count;
        assert_true(created > 0);
        run(&mt, FRAMES);
        assert_int_equal(mt.m[0].diffs, 1);
        assert_int_equal(mt.al.count, created);
        match_free(&mt);
    }
}

static void config_range_is_checked(void **state)
{
    (void)state;
    tempo_config c = base_cfg();
    tempo_session *s = NULL;
    assert_int_equal(c.desync_diff_max_bytes, 16384);
    c.desync_diff_max_bytes = TEMPO_DESYNC_DIFF_MAX + 1;
    assert_int_equal(tempo_session_create_local(&c, &s), TEMPO_E_INVALID_ARG);
    c.desync_diff_max_bytes = TEMPO_DESYNC_DIFF_MAX;
    assert_int_equal(tempo_session_create_local(&c, &s), TEMPO_OK);
    tempo_desync_diff d;
    uint8_t b[4] = {0};
    assert_int_equal(tempo_session_desync_diff(s, &d), TEMPO_E_UNSUPPORTED);
    assert_int_equal(tempo_session_provide_state(s, 30, b, sizeof b), TEMPO_E_UNSUPPORTED);
    assert_int_equal(tempo_session_desync_diff_line(s, 0, NULL, 0), TEMPO_E_UNSUPPORTED);
    assert_int_equal(tempo_session_provide_state(NULL, 30, b, sizeof b), TEMPO_E_INVALID_ARG);
    tempo_session_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_planted_desync_in_arena_mode_gives_both_peers_the_corrupted_range),
        cmocka_unit_test(without_an_arena_the_states_the_game_provides_are_diffed),
        cmocka_unit_test(the_describer_names_the_field_and_its_values),
        cmocka_unit_test(without_a_describer_the_line_gives_offsets),
        cmocka_unit_test(a_state_above_the_cap_sends_nothing_and_says_so),
        cmocka_unit_test(turned_off_nothing_is_sent_and_desyncs_still_come),
        cmocka_unit_test(a_large_state_goes_in_fragments_a_few_per_tick),
        cmocka_unit_test(in_a_keyed_match_every_fragment_is_sealed),
        cmocka_unit_test(a_hostile_peer_cannot_make_the_session_allocate_or_read_out_of_bounds),
        cmocka_unit_test(a_forged_state_for_a_real_desync_frame_is_taken_once),
        cmocka_unit_test(a_diff_allocates_nothing_after_create),
        cmocka_unit_test(config_range_is_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
