/* SPDX-License-Identifier: MIT */
/*
 * interp.h — showing everyone else: the snapshot buffer with its playout
 * delay (tempo_interp_*), dead reckoning (tempo_reckon_*), the error
 * smoother for the locally predicted player (tempo_smooth_*), and the
 * server's lag compensation (tempo_lagcomp_*).
 *
 * Every module is game-agnostic and runs on virtual time: no function reads
 * a clock, every time is an argument in microseconds on the caller's clock.
 * None of them holds the game's state. The snapshot buffer holds each
 * snapshot's tick, arrival time and a handle the game chose, and answers
 * which two to blend and by how much; lag compensation holds fixed-size
 * "hit volume" blobs whose meaning the game defines.
 *
 * Numbers. Positions are int32 components in units the game chooses;
 * tempo suggests Q16.16 metres (1/65536 m, +-32 km), the usual fixed-point
 * format of deterministic game code. Velocities are units per second,
 * accelerations units per second squared. Fractions are Q16: 65536 is 1.
 *
 * Allocation: tempo_interp and tempo_lagcomp allocate once, at create,
 * through the config's allocator; tempo_reckon and tempo_smooth are structs
 * the caller embeds. Nothing allocates afterwards.
 *
 * Thread safety: single-threaded by design; distinct objects are
 * independent. docs/INTERPOLATION.md explains every rule and number.
 */
#ifndef TEMPO_INTERP_H
#define TEMPO_INTERP_H

#include "tempo/base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TEMPO_Q16_ONE 65536u /* 1.0 as a Q16 fraction */

/* ======================================================================
 * Snapshot buffer and playout delay
 * ====================================================================== */

/* How the playout delay (how far behind the newest snapshot the client
 * renders) is chosen. */
typedef enum tempo_playout_mode {
    /* fixed_ticks server ticks, always. */
    TEMPO_PLAYOUT_FIXED = 0,
    /* Pongbat's jitter buffer rule: every 2 s take the mean of the last 20
     * pings (tempo_interp_add_ping), size the buffer ceil(ping / tick) + 1
     * ticks capped at pongbat_max_ticks, and switch it off (delay 0) while
     * the mean is 100 ms or more. */
    TEMPO_PLAYOUT_PONGBAT = 1,
    /* tempo's rule from measured arrivals: one snapshot interval, one more
     * per snapshot of the longest loss run seen (at most max_loss_cover),
     * plus the arrival jitter that all but late_percent % of snapshots stay
     * within, plus margin_us; clamped to [min_delay_us, max_delay_us]. It
     * grows at once and shrinks only after shrink_hold_us of lower targets.
     * A snapshot overtaken by one or two later ones is late, not lost; it
     * counts as lost once three later ones have arrived without it. */
    TEMPO_PLAYOUT_ADAPTIVE = 2
} tempo_playout_mode;

typedef struct tempo_interp_config {
    uint32_t tick_us;          /* server tick length, 100..1000000; default 16667 (60 Hz) */
    int capacity;              /* snapshots held, 2..1024; default 32. Hold more than the
                                  largest delay in snapshots plus two, or blending will
                                  find its snapshots evicted */
    int window;                /* newest arrivals measured (timebase, jitter, loss), 2..256; default 64 */
    tempo_playout_mode mode;   /* default TEMPO_PLAYOUT_ADAPTIVE */
    int fixed_ticks;           /* FIXED: delay in ticks, 0..1024; default 2 (ADAPTIVE: the
                                  delay until the first arrival) */
    int pongbat_max_ticks;     /* PONGBAT: buffer cap in ticks, 1..1024; default 8 */
    int late_percent;          /* ADAPTIVE: arrivals allowed past the jitter budget, 0..50; default 2 */
    int max_loss_cover;        /* ADAPTIVE: most lost snapshots in a row covered, 0..16; default 2 */
    uint32_t margin_us;        /* ADAPTIVE: added to the target, 0..1000000; default 0 */
    uint32_t min_delay_us;     /* ADAPTIVE: lower clamp, 0..max_delay_us; default 0 */
    uint32_t max_delay_us;     /* ADAPTIVE: upper clamp, 1..10000000; default 500000 */
    uint32_t shrink_hold_us;   /* ADAPTIVE: lower targets wait this long, 0..60000000; default 2000000 */
    /* Render time runs at 1 +- max_rate_ppm / 1e6 of real time while it
     * moves towards a new delay: never a jump. 1..500000; default 100000
     * (10 %). */
    uint32_t max_rate_ppm;
    /* Past the newest snapshot, render no further ahead than this;
     * 0..10000000; default 250000. The render clock itself keeps running. */
    uint32_t max_extrapolate_us;
    tempo_allocator allocator;
} tempo_interp_config;

/* Fill *cfg with the defaults above (malloc/free allocator). */
TEMPO_API void tempo_interp_config_default(tempo_interp_config *cfg);

typedef struct tempo_interp tempo_interp;

/* Create a snapshot buffer. Allocates once, through cfg->allocator.
 * Errors: TEMPO_E_INVALID_ARG (NULL, a field out of its range),
 * TEMPO_E_NO_MEMORY. Free with tempo_interp_destroy (NULL is allowed). */
TEMPO_API tempo_result tempo_interp_create(const tempo_interp_config *cfg, tempo_interp **out);
TEMPO_API void tempo_interp_destroy(tempo_interp *ip);

#define TEMPO_INTERP_NO_HANDLE 0xFFFFFFFFu

/* Record that the snapshot of server tick `tick` (>= 0) arrived at
 * arrival_us. handle is the game's name for where it keeps that state; tempo
 * hands it back, never reads it. Snapshots may arrive in any order. When
 * the buffer is full the oldest snapshot is dropped and its handle written
 * to *evicted (TEMPO_INTERP_NO_HANDLE if none; evicted may be NULL): the
 * game may then free that state. A snapshot older than the one the last
 * sample blended from will never be used again, but is kept until evicted.
 * Errors: TEMPO_E_INVALID_ARG (NULL ip, tick < 0, handle ==
 * TEMPO_INTERP_NO_HANDLE), TEMPO_E_ALREADY (that tick is held),
 * TEMPO_E_FRAME (full, and older than every held snapshot): nothing changes. */
TEMPO_API tempo_result tempo_interp_push(tempo_interp *ip, int32_t tick, uint64_t arrival_us,
                                         uint32_t handle, uint32_t *evicted);

/* PONGBAT mode's input: one round-trip time, in microseconds. Pongbat adds
 * the latest RTT every frame; the last 20 count. Other modes ignore it.
 * Errors: TEMPO_E_INVALID_ARG (NULL). */
TEMPO_API tempo_result tempo_interp_add_ping(tempo_interp *ip, uint32_t rtt_us);

typedef enum tempo_interp_kind {
    TEMPO_INTERP_EMPTY = 0,       /* no snapshot yet: nothing to show */
    TEMPO_INTERP_HOLD = 1,        /* render time is before the oldest snapshot: show `from` */
    TEMPO_INTERP_BLEND = 2,       /* show from + (to - from) * frac / 65536 */
    TEMPO_INTERP_EXTRAPOLATE = 3  /* render time is past the newest snapshot (`to`) */
} tempo_interp_kind;

/* What to show this frame. */
typedef struct tempo_interp_sample {
    tempo_interp_kind kind;
    int32_t from_tick, to_tick;       /* HOLD: equal; EXTRAPOLATE: the two newest (equal if one) */
    uint32_t from_handle, to_handle;
    /* Q16 position of the render time from from_tick to to_tick: BLEND
     * 0..65535; EXTRAPOLATE above 65536 (0 when from == to); HOLD 0. */
    uint32_t frac;
    /* EXTRAPOLATE: render time past to_tick, capped at max_extrapolate_us. */
    uint32_t extrapolate_us;
    /* The render time as a server tick and a Q16 fraction (0..65535) of the
     * way to the next tick: what a command carries for lag compensation. */
    int32_t view_tick;
    uint32_t view_frac;
    int64_t render_us;                /* render time on the server's timeline (tick * tick_us) */
} tempo_interp_sample;

/* The render frame's question: at local time now_us, which snapshots to
 * show and how. Advances the render clock: render time follows now_us minus
 * the measured timebase minus the playout delay, and when the delay or the
 * timebase changes it runs faster or slower by at most max_rate_ppm until
 * it has caught up, so it never jumps and never goes back. The first
 * sample after the first snapshot starts the clock. A now_us earlier than
 * the previous call's counts as no time passing. Also takes PONGBAT mode's
 * 2-second decisions. Errors: TEMPO_E_INVALID_ARG (NULL). */
TEMPO_API tempo_result tempo_interp_sample_at(tempo_interp *ip, uint64_t now_us,
                                              tempo_interp_sample *out);

typedef struct tempo_interp_stats {
    uint32_t delay_us;            /* the policy's current playout delay */
    int64_t render_lag_us;        /* now - timebase - render time at the last sample: the delay
                                     the render clock actually has (it moves towards delay_us) */
    uint64_t underruns;           /* times rendering went from a blend past the newest snapshot */
    uint64_t extrapolated_us;     /* render time spent past the newest snapshot */
    uint64_t delay_changes;       /* times the policy changed delay_us */
    uint64_t pushed;              /* snapshots accepted */
    uint64_t late;                /* accepted after the render time had passed their tick */
    uint64_t evicted;             /* dropped because the buffer was full */
    uint32_t jitter_us;           /* ADAPTIVE: the jitter budget of the current target */
    int loss_run;                 /* ADAPTIVE: longest run of lost snapshots in the window
                                   * (missing with three later ones here) */
    uint32_t interval_ticks;      /* ADAPTIVE: snapshot interval measured in the window */
    uint32_t ping_us;             /* PONGBAT: the mean of the last decision */
    bool buffer_on;               /* PONGBAT: false while the mean ping is 100 ms or more */
} tempo_interp_stats;

/* Errors: TEMPO_E_INVALID_ARG (NULL). */
TEMPO_API tempo_result tempo_interp_stats_get(const tempo_interp *ip, tempo_interp_stats *out);

/* ======================================================================
 * Dead reckoning
 * ====================================================================== */

#define TEMPO_RECKON_MAX_DIMS 3
#define TEMPO_RECKON_MAX_DT_US 10000000u /* longest extrapolation, 10 s */

/* Position (units), velocity (units/s), acceleration (units/s^2). Only the
 * first `dims` components are used. */
typedef struct tempo_kinematic {
    int32_t p[TEMPO_RECKON_MAX_DIMS];
    int32_t v[TEMPO_RECKON_MAX_DIMS];
    int32_t a[TEMPO_RECKON_MAX_DIMS];
} tempo_kinematic;

/* Extrapolate `in` by dt_us: order 1 gives p + v t (v and a unchanged),
 * order 2 gives p + v t + a t^2 / 2 and v + a t. Integer arithmetic,
 * rounded to nearest, results saturated to int32: the same answer on every
 * machine. in and out may be the same. Errors: TEMPO_E_INVALID_ARG (NULL,
 * dims outside 1..3, order outside 1..2, dt_us > TEMPO_RECKON_MAX_DT_US). */
TEMPO_API tempo_result tempo_reckon_extrapolate(const tempo_kinematic *in, int dims, int order,
                                                uint32_t dt_us, tempo_kinematic *out);

/* How a new update replaces a wrong extrapolation. */
typedef enum tempo_reckon_correction {
    TEMPO_RECKON_SNAP = 0,  /* jump to the new trajectory: accurate, ugly */
    /* For correct_us, show the reckoning from what was shown blended into
     * the reckoning from the new update, by the time elapsed. correct_us
     * should be shorter than the time between updates. */
    TEMPO_RECKON_BLEND = 1,
    /* Move from what was shown, at one corrected velocity, to where the new
     * trajectory will be correct_us later; follow it from then on. */
    TEMPO_RECKON_PLAN = 2
} tempo_reckon_correction;

/* The game's own extrapolation (its physics, with collisions against static
 * geometry): write into *out the state `from` reaches after dt_us. Called
 * with the full span from an update each time, never incrementally. */
typedef void (*tempo_reckon_step_fn)(void *ctx, const tempo_kinematic *from, int dims,
                                     uint32_t dt_us, tempo_kinematic *out);

typedef struct tempo_reckon_config {
    int dims;                          /* 1..3; default 2 */
    int order;                         /* 1 or 2; default 2 */
    tempo_reckon_correction correction; /* default TEMPO_RECKON_BLEND */
    uint32_t correct_us;               /* BLEND and PLAN: 1..TEMPO_RECKON_MAX_DT_US; default 100000 */
    /* BLEND and PLAN: the most speed, units/s (in any one axis), the
     * correction may add to the entity's own motion; a larger error takes
     * longer than
     * correct_us, so a correction does not look like a jump: PLAN up to
     * TEMPO_RECKON_MAX_DT_US; BLEND up to 3 * correct_us, since it keeps
     * reckoning the old trajectory, which drifts further the longer it
     * runs. 0: no bound (default). */
    uint32_t max_correct_speed;
    /* Second order: the entity's top speed, units/s (in any one axis). The
     * acceleration applies until the speed reaches it, then the entity
     * coasts, so a turn caught mid-way is not extrapolated into a speed the
     * entity cannot reach. 0: no top speed (default). Ignored with a step
     * callback, which has the game's own physics. */
    uint32_t max_speed;
    tempo_reckon_step_fn step;         /* NULL: tempo_reckon_extrapolate */
    void *step_ctx;
} tempo_reckon_config;

/* One remote entity. Embed it; read fields only through the functions. */
typedef struct tempo_reckon {
    tempo_reckon_config cfg;
    int has_state;                 /* an update has arrived */
    tempo_kinematic state;         /* the newest update ... */
    uint64_t state_us;             /* ... valid at this time */
    int correcting;                /* a BLEND or PLAN is under way since start_us */
    uint64_t start_us;
    uint32_t span_us;              /* how long the correction under way takes */
    tempo_kinematic from;          /* what was shown at start_us (BLEND: reckoned on from there) */
    int32_t plan_to[TEMPO_RECKON_MAX_DIMS]; /* PLAN: the new trajectory at start_us + correct_us */
    uint64_t updates, corrections_done;
} tempo_reckon;

/* Defaults as above. */
TEMPO_API void tempo_reckon_config_default(tempo_reckon_config *cfg);

/* Start an entity with no state. Errors: TEMPO_E_INVALID_ARG (NULL, a field
 * out of range); *e is then unusable. */
TEMPO_API tempo_result tempo_reckon_init(tempo_reckon *e, const tempo_reckon_config *cfg);

/* A new authoritative state, valid at state_us, received at now_us
 * (state_us <= now_us, now_us - state_us <= TEMPO_RECKON_MAX_DT_US). The
 * first update is shown as is; later ones start the configured correction
 * from what tempo_reckon_position showed at now_us. Errors:
 * TEMPO_E_INVALID_ARG (NULL, times out of order or too far apart). */
TEMPO_API tempo_result tempo_reckon_update(tempo_reckon *e, const tempo_kinematic *state,
                                           uint64_t state_us, uint64_t now_us);

/* The position to show at now_us (dims components written to out). Times
 * before the newest update's count as its time; spans longer than
 * TEMPO_RECKON_MAX_DT_US are held at that length. Errors:
 * TEMPO_E_INVALID_ARG (NULL), TEMPO_E_STATE (no update yet). */
TEMPO_API tempo_result tempo_reckon_position(const tempo_reckon *e, uint64_t now_us, int32_t *out);

/* ======================================================================
 * Error smoothing for the locally predicted player
 * ====================================================================== */

typedef struct tempo_smooth_config {
    int dims;                  /* 1..3; default 3 */
    uint32_t small_decay_q16;  /* per frame, below large_distance, 0..65535; default 62259 (0.95) */
    uint32_t large_decay_q16;  /* per frame, from large_distance, 0..65535; default 55706 (0.85) */
    uint32_t large_distance;   /* units, >= 1; default 65536 (1 m in Q16.16) */
    uint32_t snap_distance;    /* units; an offset farther than this is dropped (a snap);
                                  0 never snaps; default 262144 (4 m in Q16.16) */
} tempo_smooth_config;

/* The render offset. Embed it; read it only through the functions. */
typedef struct tempo_smooth {
    tempo_smooth_config cfg;
    int64_t offset[TEMPO_RECKON_MAX_DIMS]; /* units, Q16 */
    uint64_t corrections, snaps;
} tempo_smooth;

TEMPO_API void tempo_smooth_config_default(tempo_smooth_config *cfg);

/* Zero offset. Errors: TEMPO_E_INVALID_ARG (NULL, a field out of range). */
TEMPO_API tempo_result tempo_smooth_init(tempo_smooth *s, const tempo_smooth_config *cfg);

/* After a reconciliation moved the predicted player: error is the old
 * predicted position minus the new one (dims components). It is added to
 * the offset, so what is drawn (prediction + offset) does not move this
 * frame; if the offset is then farther than snap_distance it is dropped.
 * Returns 1 when it snapped, 0 when it is smoothed, or TEMPO_E_INVALID_ARG
 * (NULL). */
TEMPO_API int tempo_smooth_correct(tempo_smooth *s, const int32_t *error);

/* One rendered frame: decay the offset once (large_decay_q16 while it is at
 * least large_distance long, small_decay_q16 below), then write it, rounded
 * to units, to out (dims components): draw the player at prediction + out.
 * Errors: TEMPO_E_INVALID_ARG (NULL). */
TEMPO_API tempo_result tempo_smooth_frame(tempo_smooth *s, int32_t *out);

/* ======================================================================
 * Lag compensation (server)
 * ====================================================================== */

/* Common hit volumes, in the game's units. */
typedef struct tempo_hit_box {
    int32_t min[3], max[3];
} tempo_hit_box;

typedef struct tempo_hit_sphere {
    int32_t center[3];
    int32_t radius;
} tempo_hit_sphere;

/* Blend two volumes of `size` bytes: out = a + (b - a) * frac / 65536,
 * frac 0..65535. out is never a or b. */
typedef void (*tempo_lagcomp_lerp_fn)(void *ctx, const void *a, const void *b, uint32_t frac,
                                      void *out, size_t size);

/* The built-in blend: the volume is an array of int32 (a box, a sphere, or
 * several), each blended and rounded to nearest. size must be a multiple of 4. */
TEMPO_API void tempo_lagcomp_lerp_i32(void *ctx, const void *a, const void *b, uint32_t frac,
                                      void *out, size_t size);

/* Does the segment p0..p1 touch the box (or sphere)? Coordinates within
 * +-2^30 units; the box test is exact integer arithmetic, the sphere test
 * uses double precision. */
TEMPO_API bool tempo_hit_box_segment(const tempo_hit_box *b, const int32_t p0[3], const int32_t p1[3]);
TEMPO_API bool tempo_hit_sphere_segment(const tempo_hit_sphere *s, const int32_t p0[3],
                                        const int32_t p1[3]);

typedef struct tempo_lagcomp_config {
    int max_players;           /* 1..256; default TEMPO_MAX_PLAYERS */
    uint32_t volume_size;      /* bytes per player per tick, 1..4096; default sizeof(tempo_hit_box) */
    int history_ticks;         /* ticks held, 2..4096; default 64 */
    int max_rewind_ticks;      /* oldest view a query accepts, ticks behind the newest recorded,
                                  0..history_ticks - 1; default 30 (0.5 s at 60 Hz) */
    tempo_lagcomp_lerp_fn lerp; /* NULL: tempo_lagcomp_lerp_i32 (then volume_size % 4 == 0) */
    void *lerp_ctx;
    tempo_allocator allocator;
} tempo_lagcomp_config;

TEMPO_API void tempo_lagcomp_config_default(tempo_lagcomp_config *cfg);

typedef struct tempo_lagcomp tempo_lagcomp;

/* Create a history. Allocates once. Errors: TEMPO_E_INVALID_ARG (NULL, a
 * field out of range), TEMPO_E_NO_MEMORY. Free with tempo_lagcomp_destroy
 * (NULL is allowed). */
TEMPO_API tempo_result tempo_lagcomp_create(const tempo_lagcomp_config *cfg, tempo_lagcomp **out);
TEMPO_API void tempo_lagcomp_destroy(tempo_lagcomp *lc);

/* Record tick `tick`'s volumes, copied from the game's state: player i's
 * volume is the volume_size bytes at base + i * stride (stride >=
 * volume_size), present[i] != 0 if player i exists at that tick (NULL: all
 * do). Ticks must increase; ticks skipped are held as "nobody present".
 * Errors: TEMPO_E_INVALID_ARG (NULL base, small stride, tick < 0),
 * TEMPO_E_FRAME (tick not after the newest recorded). */
TEMPO_API tempo_result tempo_lagcomp_record(tempo_lagcomp *lc, int32_t tick, const void *base,
                                            size_t stride, const uint8_t *present);

/* The same, filled by a callback: fill(ctx, player, out) writes the
 * player's volume_size bytes to out and returns whether the player exists
 * (out is then ignored if not). Errors as tempo_lagcomp_record. */
typedef bool (*tempo_lagcomp_fill_fn)(void *ctx, int player, void *out);
TEMPO_API tempo_result tempo_lagcomp_capture(tempo_lagcomp *lc, int32_t tick,
                                             tempo_lagcomp_fill_fn fill, void *ctx);

/* What a player was during a query's hit test. */
typedef enum tempo_lagcomp_player {
    TEMPO_LAGCOMP_LIVE = 0,     /* not rewound: the shooter */
    TEMPO_LAGCOMP_REWOUND = 1,  /* its live volume holds the volume at the shooter's view */
    TEMPO_LAGCOMP_ABSENT = 2    /* did not exist at the view tick: must not be hit */
} tempo_lagcomp_player;

/* The game's hit test, run while the volumes are rewound. who[i] is a
 * tempo_lagcomp_player per player. Its return value is handed back. */
typedef int (*tempo_lagcomp_hit_fn)(void *ctx, const uint8_t *who);

/* Rewind every player but `shooter` (-1: none) to what the shooter saw,
 * view_tick plus view_frac / 65536 of a tick (the tempo_interp_sample's
 * view_tick and view_frac its command carried): in the game's live volumes
 * (player i's at live + i * live_stride), each present player's volume
 * becomes the blend of its recorded volumes at view_tick and view_tick + 1
 * (the view_tick one alone if frac is 0 or it is absent at view_tick + 1).
 * Then run hit(ctx, who) and write its return value to *result (may be
 * NULL), then put back every volume it changed, bit for bit. Only players
 * are rewound: everything else the hit test sees is the present (see
 * docs/INTERPOLATION.md). Errors: TEMPO_E_INVALID_ARG (NULL live or hit,
 * live_stride < volume_size, shooter out of range, view_frac > 65535),
 * TEMPO_E_FRAME (view older than max_rewind_ticks behind the newest
 * recorded tick, not held, or after the newest): nothing is run. */
TEMPO_API tempo_result tempo_lagcomp_query(tempo_lagcomp *lc, int32_t view_tick, uint32_t view_frac,
                                           int shooter, void *live, size_t live_stride,
                                           tempo_lagcomp_hit_fn hit, void *ctx, int *result);

/* The newest recorded tick, or -1 if none. */
TEMPO_API int32_t tempo_lagcomp_newest(const tempo_lagcomp *lc);

#ifdef __cplusplus
}
#endif

#endif /* TEMPO_INTERP_H */
