/* SPDX-License-Identifier: MIT */
/*
 * minimal_udp.c — two peers of a rollback match over real UDP, in one
 * process: two sockets on 127.0.0.1, two sessions, one loop driving both.
 *
 * Each peer is what one machine of an online match runs: a UDP socket, a
 * p2p session in arena mode, and a fixed 60 Hz loop that gives tempo the
 * time and the local player's input, then steps the game as tempo asks
 * (rolling back and replaying when a guess about the other player was wrong).
 * The program plays until both peers have confirmed frame FRAMES, prints the
 * checksum of that frame's state on each, and exits 1 unless they agree.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "platform.h" /* platform_now_us: a monotonic clock; platform_sleep_until_us */
#include "tempo/tempo.h"

#define FRAMES 120          /* play until frame 120 is confirmed on both peers */
#define FRAME_US 16667      /* 60 Hz */
#define TIMEOUT_US 10000000 /* give up after 10 s */

/* ---- the game: the same as minimal_synctest.c --------------------------- */

enum { LEFT = 1, RIGHT = 2 }; /* one byte of input: the buttons held */

typedef struct game {
    tempo_rng rng;
    int32_t x[2]; /* positions, in 1/256 of a pixel */
    uint32_t score[2];
    int32_t coin_x;
    uint32_t frame;
} game;

static void game_init(game *g)
{
    memset(g, 0, sizeof *g);
    tempo_rng_seed(&g->rng, 42, 1);
    g->x[0] = 40 * 256;
    g->x[1] = 120 * 256;
    g->coin_x = 80 * 256;
}

static void game_step(game *g, const uint8_t *inputs)
{
    for (int p = 0; p < 2; p++) {
        if (inputs[p] & LEFT && g->x[p] > 0)
            g->x[p] -= 3 * 256;
        if (inputs[p] & RIGHT && g->x[p] < 160 * 256)
            g->x[p] += 3 * 256;
        int32_t dx = g->x[p] - g->coin_x;
        if (dx > -8 * 256 && dx < 8 * 256) { /* touched the coin */
            g->score[p]++;
            g->coin_x = tempo_rng_range(&g->rng, 0, 160) * 256;
        }
    }
    g->frame++;
}

/* ---- one peer: what each machine of a match holds ------------------------ */

typedef struct peer {
    game g;           /* the arena: all of the simulation's state */
    int me;           /* the player this machine plays, 0 or 1 */
    tempo_udp *udp;
    tempo_session *s;
    tempo_rng pad;    /* stands in for a gamepad; not game state */
    uint8_t held;     /* the input offered to tempo until it takes it */
    uint64_t final;   /* checksum of state FRAMES */
    bool desync;
} peer;

/* Open the socket on 127.0.0.1; port 0 lets the system pick a free port. */
static bool peer_open(peer *p, int me)
{
    p->me = me;
    game_init(&p->g);
    tempo_rng_seed(&p->pad, 100 + (uint64_t)me, 3);
    tempo_address bind_to = tempo_address_ipv4(127, 0, 0, 1, 0);
    return tempo_udp_open(&bind_to, NULL, &p->udp) == TEMPO_OK;
}

/* Create the session: this machine plays p->me, the machine at `other`
 * plays the other player. */
static bool peer_start(peer *p, const tempo_address *other)
{
    tempo_config cfg;
    tempo_config_default(&cfg);            /* 2 players, 16 frames of prediction */
    cfg.input_size = 1;
    cfg.arena = &p->g;                     /* tempo saves, loads and checksums it */
    cfg.arena_size = sizeof p->g;
    cfg.auto_delay.enabled = true;         /* input delay follows the latency */
    cfg.random_seed = platform_now_us() + (uint64_t)p->me; /* handshake nonces */
    tempo_transport tr = tempo_udp_transport(p->udp);
    return tempo_session_create_p2p(&cfg, &tr, &p->s) == TEMPO_OK &&
           tempo_session_add_local_player(p->s, p->me) == TEMPO_OK &&
           tempo_session_add_remote_player(p->s, 1 - p->me, other) == TEMPO_OK;
}

/* The buttons held now: a stand-in for a gamepad, changing now and then.
 * A real game ORs presses into p->held until tempo takes it. */
static uint8_t pad_read(peer *p)
{
    if (tempo_rng_below(&p->pad, 8) == 0)
        return (uint8_t)tempo_rng_below(&p->pad, 4);
    return p->held;
}

/* One tick of the game loop. */
static void peer_tick(peer *p, uint64_t now_us)
{
    tempo_session_poll(p->s, now_us);          /* network in and out */
    if (!tempo_session_will_stall(p->s))       /* time sync may skip a tick */
        tempo_session_add_local_input(p->s, p->me, &p->held, sizeof p->held);
    tempo_tick tick;
    tempo_session_advance(p->s, &tick);        /* may roll back and replay */
    if (tick.inputs_taken >> p->me & 1u)       /* taken: read the pad anew, */
        p->held = pad_read(p);                 /* else offer the same again */
    const tempo_request *r;
    while (tempo_session_next(p->s, &r) > 0) { /* arena mode: only ADVANCE */
        game_step(&p->g, r->inputs);
        if (r->frame == FRAMES - 1)            /* state FRAMES, as last computed */
            p->final = tempo_checksum(&p->g, sizeof p->g);
    }
    tempo_event ev;
    while (tempo_session_poll_event(p->s, &ev) > 0) {
        if (ev.kind == TEMPO_EVENT_SYNCHRONIZING) /* handshake progress: a bar */
            continue;
        printf("peer %d: %s\n", p->me, tempo_event_name(ev.kind)); /* docs/GUIDE.md */
        if (ev.kind == TEMPO_EVENT_DESYNC)     /* checksums differ: a bug */
            p->desync = true;
    }
}

static bool peer_done(const peer *p)
{
    return tempo_session_confirmed_frame(p->s) >= FRAMES; /* never rolled back now */
}

int main(void)
{
    static peer peers[2];
    tempo_address addr[2];
    for (int i = 0; i < 2; i++)
        if (!peer_open(&peers[i], i) ||
            tempo_udp_local_address(peers[i].udp, &addr[i]) != TEMPO_OK) {
            fprintf(stderr, "minimal_udp: cannot open a UDP socket on 127.0.0.1\n");
            return 1;
        }
    for (int i = 0; i < 2; i++)
        if (!peer_start(&peers[i], &addr[1 - i])) {
            fprintf(stderr, "minimal_udp: cannot create the sessions\n");
            return 1;
        }

    uint64_t start = platform_now_us(), next = start;
    bool timed_out = false;
    while (!(peer_done(&peers[0]) && peer_done(&peers[1]))) {
        platform_sleep_until_us(next); /* a fixed 60 Hz step on a monotonic clock */
        next += FRAME_US;
        uint64_t now = platform_now_us();
        if ((timed_out = now - start > TIMEOUT_US))
            break;
        peer_tick(&peers[0], now); /* two machines, one loop */
        peer_tick(&peers[1], now);
    }

    for (int i = 0; i < 2; i++) {
        printf("peer %d: frame %d checksum %016" PRIx64 "\n", i, FRAMES, peers[i].final);
        tempo_session_leave(peers[i].s); /* tell the other machine we go */
        tempo_session_destroy(peers[i].s);
        tempo_udp_close(peers[i].udp);
    }
    bool agree = !timed_out && peers[0].final == peers[1].final && !peers[0].desync &&
                 !peers[1].desync;
    printf("minimal_udp: %s\n", timed_out ? "timed out" : agree ? "the peers agree" : "DESYNC");
    return agree ? 0 : 1;
}
