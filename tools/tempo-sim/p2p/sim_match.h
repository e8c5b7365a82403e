/* SPDX-License-Identifier: MIT */
/*
 * sim_match.h — tempo-sim's network match: every machine of a match (the
 * players' peers and the spectators) in one process, over simnet, in virtual
 * time, each machine on its own clock.
 *
 *   sim_match.c    building the match, the event loop, one machine's tick,
 *                  faults, the end of the match and the convergence check
 *   sim_measure.c  what is measured from outside: per-tick counters, the
 *                  true frame skew, the timeline the report draws
 *   sim_summary.c  the summary table, the JSON file, the report's summary
 *   sim_compare.c  the same match once per time sync method or input delay
 *   sim_p2p.c      the entry point: validate, run, print, write, exit code
 *
 * Virtual time ("vt", microseconds) is the one true time; simnet runs on it.
 * A machine sees only its local time, which its clock derives from vt.
 */
#ifndef TEMPO_SIM_MATCH_H
#define TEMPO_SIM_MATCH_H

#include "arena.h"
#include "arena_replay.h"
#include "bot.h"
#include "sim.h"
#include "sim_clock.h"
#include "sim_metrics.h"
#include "sim_out.h"
#include "sim_hostile.h"
#include "sim_timeline.h"
#include "tempo/simnet.h"

#define SIM_WARMUP_US 2000000u          /* skew and advantage are averaged after this */
#define SIM_MAX_SAMPLES 100000          /* per series: about 7 hours at 0.25 s */
#define SIM_DRAIN_US 30000000u          /* after the last frame: at most this to confirm it */
#define SIM_MISPREDICT_RING 128         /* > TEMPO_MAX_PREDICTION: older frames are final */

/* ---- per machine ------------------------------------------------------------ */

/* One frame's inputs as first and last executed, to count mispredictions
 * from outside (a frame resimulated with other inputs was mispredicted). */
typedef struct sim_mispredict_slot {
    int32_t frame; /* -1: empty */
    bool resimulated;
    uint8_t first[ARENA_MAX_PLAYERS * ARENA_INPUT_SIZE];
    uint8_t last[ARENA_MAX_PLAYERS * ARENA_INPUT_SIZE];
} sim_mispredict_slot;

/* Counters and sums measured from outside over the match (not the drain). */
typedef struct sim_measure {
    uint64_t ticks, running_ticks;
    uint64_t rollbacks, resim_frames, stall_ticks, waiting_ticks;
    int max_rollback_depth;
    uint64_t rollback_depth_sum;
    uint64_t mispredicted_frames;
    double delay_sum;        /* input delay summed over running ticks */
    int last_delay;          /* at the previous running tick, -1 before */
    double advantage_sum;    /* library's frame_advantage, ticks after warm-up */
    uint64_t advantage_n;
    double rtt_sum;          /* endpoint RTT, every link at every sample */
    uint64_t rtt_n;
    double pair_rtt_sum[SIM_MAX_MACHINES]; /* the same, per other machine */
    uint64_t pair_rtt_n[SIM_MAX_MACHINES];
    double skew_integral;    /* frames x microseconds, after warm-up */
    double skew_time;        /* microseconds integrated */
    uint64_t bytes_sent, packets_sent; /* datagrams handed to the network */
    uint64_t bytes_received; /* datagrams the session read from the network */
    uint64_t sealed_sent;    /* of those, datagrams whose header says sealed */
    uint64_t end_vt;         /* when the match part ended for this machine */
    int32_t first_desync_frame;
    uint64_t desync_events;
    uint64_t failed_checks;  /* comparisons that disagreed (see sim_measure.c) */
    char diff_line[160];     /* the first desync diff's first range, named; "" if none */
} sim_measure;

struct sim_machine {
    int index;
    bool spectator;
    bool dead;               /* dropped: no more ticks, links blacked out */
    bool cut_off;            /* at the end: it and every other live peer dropped each other */
    bool running;            /* the session said RUNNING */
    int first_player;        /* peers: the lowest player it hosts */
    int host, host_slot;     /* spectators: the peer watched, and its index there */
    uint32_t local_mask;
    int num_local;
    tempo_session *s;
    tempo_address addr;
    tempo_transport net;     /* simnet's transport of this node */
    tempo_transport counted; /* the same, counting what the session sends */
    sim_clock clock;
    bool deaf;               /* its next poll receives nothing (after a clock jump) */
    uint64_t tick_k;         /* next tick number */
    uint64_t next_vt;        /* when the next tick falls */
    arena_state game;
    arena_recorder *rec;     /* --record: this peer's replay file, or NULL */
    arena_bot bot[ARENA_MAX_PLAYERS];
    int32_t frame;           /* current frame after the last tick */
    uint64_t new_frame_vt;   /* when the frame last moved on (0: not yet) */
    uint64_t longest_wait_us; /* see sim_peer_result.longest_wait_s */
    int delay;               /* input delay after the last tick */
    /* sums[f]: arena checksum of state f + 1 after the latest ADVANCE(f),
     * f < sums_len (a rollback overwrites it). */
    uint64_t *sums;
    int32_t sums_len;
    sim_mispredict_slot ring[SIM_MISPREDICT_RING];
    uint64_t lib_checks;     /* library's desync_checks at the last look */
    sim_measure m;
    /* timeline: values at the previous sample, for per-second rates */
    uint64_t prev_rollbacks, prev_stalls, prev_bytes;
    double prev_skew_integral, prev_skew_time;
};
typedef struct sim_machine sim_machine;

/* ---- the match -------------------------------------------------------------- */

struct sim_match {
    const sim_options *o;
    tempo_simnet *net;
    sim_machine *mach[SIM_MAX_MACHINES];
    int nmach;               /* machines: npeers peers, then spectators */
    int npeers;
    uint64_t vt;             /* now */
    bool in_match;           /* false in the drain after the last frame */
    uint64_t warm_vt;        /* measuring skew from here (UINT64_MAX: not yet) */
    uint64_t next_sample_vt;
    uint64_t sample_us;      /* time between samples */
    sim_timeline *tl;        /* NULL: no timeline */
    bool hiccup_fired[SIM_MAX_FAULTS];
    bool jump_fired[SIM_MAX_FAULTS];
    bool drop_fired[SIM_MAX_FAULTS];
    uint8_t blackout_state[SIM_MAX_BLACKOUTS]; /* 0 ahead, 1 under way, 2 over */
    uint64_t fault_end_vt;   /* when the latest fault begun so far ends */
    bool healed;             /* the match part has passed fault_end_vt (heal noted) */
    uint64_t heal_vt;        /* when it was noted, and the slowest live peer's frame then */
    int32_t heal_frame;
    uint32_t disconnect_timeout_ms; /* the sessions' */
    sim_hostile_run *hostile; /* NULL: no hostile actors */
    struct sim_relay_node *relay; /* --topology relay: the relay every peer plays through; else NULL */
    uint64_t steps_vt;       /* the scenario's link steps are applied up to here */
    /* The scenario's last link step, and per pair (a machine's estimate of
     * its link to another the step changed): the estimate when the step
     * came (0: not measured), the last tick it was outside 10% of the new
     * round trip, and the first tick after that it was inside (0: none). */
    bool has_step;
    sim_link_override step;
    double step_old_ms;      /* the network's round trip of the pair before the step */
    double step_before_ms[SIM_MAX_MACHINES][SIM_MAX_MACHINES];
    uint64_t step_out_vt[SIM_MAX_MACHINES][SIM_MAX_MACHINES];
    uint64_t step_in_vt[SIM_MAX_MACHINES][SIM_MAX_MACHINES];
};
typedef struct sim_match sim_match;

/* What a run found, per machine and as a whole. */
typedef struct sim_peer_result {
    bool spectator, dropped;
    bool cut_off;            /* every other live peer dropped it (a partition, not --drop-peer) */
    int players;
    int32_t final_frame, confirmed_frame;
    /* Peers: the longest time without a new frame, in the match part,
     * counting only time after the end of the latest fault begun so far
     * (start-up excluded): a peer waiting for a healed network. */
    double longest_wait_s;
    uint64_t rollbacks, resim_frames, stall_ticks, waiting_ticks, timesync_stalls;
    int max_rollback_depth;
    double rollback_depth_mean;
    uint64_t mispredicted_frames;      /* measured from outside */
    uint64_t lib_mispredicted_frames;  /* the library's count, to compare */
    int input_delay_final;
    double input_delay_mean;
    double rtt_ms_mean;                /* NAN if no link measured */
    double pair_rtt_ms[SIM_MAX_MACHINES]; /* per other machine, NAN if not measured */
    uint64_t bytes_sent, packets_sent;
    double match_seconds;              /* this machine's start to the match's end */
    double payload_bytes_per_s;
    double payload_in_bytes_per_s;     /* what its session read, bytes a second */
    double frame_skew_abs_mean;        /* NAN for spectators */
    double frame_advantage_mean;       /* NAN if never sampled */
    uint64_t desync_checks, desync_checks_passed, desyncs;
    /* Comparisons it should have made: over its partners (every other peer;
     * a spectator's host), the check frames both confirmed; -1 when a
     * partner or itself was dropped or cut off. */
    int64_t desync_checks_expected;
    uint64_t desync_checks_missed;     /* the library's count of impossible ones */
    int32_t first_desync_frame;        /* -1: none */
    uint32_t startup_delay_ms;
    char diff_line[160];               /* the first desync diff, as the library words it */
} sim_peer_result;

struct sim_result {
    int nmach, npeers;
    sim_peer_result peer[SIM_MAX_MACHINES];
    bool finished;           /* every live peer reached the last frame */
    bool converged;
    int32_t compared_states; /* states 1..compared_states agree (or were compared) */
    int32_t first_divergent_state; /* -1: none */
    uint64_t desyncs;        /* DESYNC events, all machines together */
    /* desync checks made and expected, over machines with expected checks */
    uint64_t checks_made, checks_expected;
    double virtual_s;        /* virtual time of the whole run */
    double match_s;          /* virtual time until every live peer reached the last frame */
    /* The network healed: the end of the last fault (blackout, hiccup, drop)
     * that began during the match part, and the slowest live peer's frame
     * then (0 and 0 without faults). */
    double heal_s;
    int32_t heal_frame;
    double wall_s;
    /* --topology relay: what the relay received and sent in the match
     * part (until every live peer reached the last frame), bytes of payload */
    uint64_t relay_bytes_in, relay_bytes_out;
    /* A link step (a scenario's "link ... from TIME"): the network's round
     * trip before and after it, the estimates when it came (mean over the
     * pairs it changed, both ends), the round trip they should reach (each
     * moved by the network's change), and the time from the step until
     * every such estimate was within 10% of its target and stayed there to
     * the end (NAN: some never was); their RFC 3550 arrival jitter at the
     * end (mean). has_step false: no step. */
    bool has_step;
    double step_old_ms, step_network_ms; /* the network's round trip before and after */
    double step_target_ms;   /* the estimate before, moved by the network's change (mean) */
    double step_before_ms, step_settle_ms;
    /* At the end, means over those pairs: RFC 3550's arrival jitter, what
     * it should be (E|D| of two arrivals whose delays vary with the link's
     * standard deviation s: 2s/sqrt(pi)), and RFC 6298's RTTVAR (the
     * endpoint's jitter_ms). */
    double step_arrival_jitter_ms, step_jitter_truth_ms, step_rttvar_ms;
    char problem[160];       /* why it did not converge ("" if it did) */
    sim_security security;   /* sealing and hostile traffic (sim_hostile.h) */
};
typedef struct sim_result sim_result;

/* Progress callback: done frames of total (the slowest live peer). */
typedef void (*sim_progress_fn)(void *ctx, int32_t done, int32_t total);

/* Whether a run passes the soak's checks (sim_soak.c): converged, no
 * desync, every rollback within the prediction window, and after the last
 * fault no peer waiting long and the end reached in time. If not, why in
 * `why`. */
bool sim_soak_check(const sim_options *o, const sim_result *r, char *why, size_t size);

/* Run one match. tl, if not NULL, is initialised here (the caller frees it
 * with sim_timeline_free). Returns SIM_EXIT_OK after a run (whatever it
 * found: see *out), or SIM_EXIT_USAGE with a message on stderr if the match
 * cannot be set up. */
int sim_match_run(const sim_options *o, sim_result *out, sim_timeline *tl,
                  sim_progress_fn progress, void *progress_ctx);

/* Peers of a match: ceil(players / local_per_peer). */
int sim_match_peers(const sim_options *o);

/* ---- sim_measure.c ---------------------------------------------------------- */

/* Start measuring a machine (zero its counters). */
void sim_measure_init(sim_machine *m);
/* Integrate the true frame skew of every live peer from match->vt to vt. */
void sim_measure_advance(sim_match *mt, uint64_t vt);
/* Account one tick of m (after its requests were carried out). */
void sim_measure_tick(sim_match *mt, sim_machine *m, const tempo_tick *tick);
/* Account one ADVANCE request (before the game steps). */
void sim_measure_advance_request(sim_machine *m, const tempo_request *r, int num_players);
/* Account one event the session raised. */
void sim_measure_event(sim_match *mt, sim_machine *m, const tempo_event *ev);
/* Take a timeline sample (and RTT samples) at mt->vt. */
void sim_measure_sample(sim_match *mt);
/* After m's tick: its RTT estimates of the links the scenario's link step
 * changed, against the new round trip (nothing without a step). */
void sim_measure_step(sim_match *mt, const sim_machine *m);
/* Fill the per-machine results once the run is over (settles the
 * misprediction rings). */
void sim_measure_finish(sim_match *mt, sim_result *out);
/* Machine i's expected desync checks now (see sim_peer_result); -1 if none apply. */
int64_t sim_measure_expected_checks(const sim_match *mt, int i);
/* True when every machine with expected checks made or missed them all. */
bool sim_measure_checks_settled(const sim_match *mt);

/* ---- sim_summary.c ---------------------------------------------------------- */

/* One-line description of the match ("4 peers x 1 player + 1 spectator, ..."). */
void sim_describe(const sim_options *o, char *buf, size_t size);
/* The per-peer summary table and the verdict, on f. */
void sim_print_summary(FILE *f, const sim_options *o, const sim_result *r);
/* The same table as HTML for the report; malloc'd, NULL on failure. */
char *sim_summary_html(const sim_options *o, const sim_result *r);
/* The top-level keys and the peers list of a run, into an open JSON object. */
void sim_json_match(sim_json *j, const sim_options *o, const sim_result *r);


#endif /* TEMPO_SIM_MATCH_H */
