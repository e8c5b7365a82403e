/* SPDX-License-Identifier: MIT */
/*
 * sim_hostile.h — hostile traffic in a tempo-sim match, and what it got.
 *
 *   sim_hostile.c   the actors (spoofer, on-path attacker, handshake flood)
 *                   and the per-datagram accounting of what sessions read
 *   sim_security.c  sealing (the match key from the seed, the bytes it adds)
 *                   and the "Hostile traffic" section: text, HTML, JSON, verdict
 *   sim_attack.c    --attack N: the same at a fixed count, with its table
 *
 * A datagram a session reads is accepted when none of the session's drop
 * counters (forged, replay, malformed, unknown, session) moved while it was
 * read: every drop counter is read before and after each datagram, so each
 * drop is charged to the datagram that caused it, and honest drops (the
 * network's duplicates) are never taken for hostile ones.
 */
#ifndef TEMPO_SIM_HOSTILE_H
#define TEMPO_SIM_HOSTILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim.h"
#include "sim_out.h"

/* What one hostile datagram was. Spoofer: random bytes, a plain DISCONNECT,
 * a plain INPUT acknowledging a frame far ahead, a captured datagram with
 * bytes changed, a captured datagram again. On the path: a passing datagram
 * rewritten, an earlier one replayed, one duplicated. Flood: a handshake
 * request from a stranger. */
typedef enum sim_hostile_what {
    SIM_HW_RANDOM,
    SIM_HW_DISCONNECT,
    SIM_HW_FAR_ACK,
    SIM_HW_MUTATED,
    SIM_HW_REPLAYED,
    SIM_HW_REWRITE,
    SIM_HW_REPLAY,
    SIM_HW_DUPLICATE,
    SIM_HW_HANDSHAKE,
    SIM_HW_COUNT
} sim_hostile_what;

/* Datagrams and their fate. sent = read + unread; read = the five drops +
 * ignored + accepted. */
typedef struct sim_hostile_count {
    uint64_t sent;      /* put on the network (or handed over, on the path) */
    uint64_t unread;    /* still waiting when the run ended (a dead machine's) */
    uint64_t read;      /* taken in by a session */
    uint64_t forged, replay, malformed, unknown, session; /* the drop counter that moved */
    uint64_t ignored;   /* claimed to come from a machine the session had dropped */
    uint64_t accepted;  /* read, and no drop counter moved */
} sim_hostile_count;

typedef struct sim_actor_result {
    int kind;                        /* sim_hostile_kind */
    int a, b;                        /* onpath: the link */
    sim_hostile_count by[SIM_HW_COUNT];
    sim_hostile_count total;
    uint64_t refused;                /* not sent: the network's pool was full */
    uint64_t withheld, held_back;    /* onpath: honest datagrams dropped, and reordered */
} sim_actor_result;

#define SIM_MAX_ACTORS (SIM_MAX_HOSTILES + 2) /* --attack adds two */

typedef struct sim_security {
    bool sealed;             /* the sessions had a match key */
    bool seal_unavailable;   /* sealing was asked for, but this build has no libsodium */
    uint64_t datagrams, bytes; /* every machine's, the match part */
    uint64_t sealed_datagrams; /* of those, the ones whose header says sealed */
    uint64_t overhead_bytes; /* the tags: 16 bytes a sealed datagram */
    int num_actors;
    sim_actor_result actor[SIM_MAX_ACTORS];
    sim_hostile_count hostile; /* every actor together */
    sim_hostile_count honest;  /* honest datagrams the sessions read (sent = read) */
    uint64_t dropped_elsewhere; /* drop counters that moved outside any read */
    uint64_t counters;       /* the sessions' five drop counters summed at the end */
    bool sums_add_up;        /* every per-actor and per-session identity held */
    uint64_t honest_drops;   /* (machine, partner) pairs where a live machine dropped a live one */
    bool disturbed;          /* desync, an honest drop or a failed convergence with actors at work */
} sim_security;

/* ---- sim_hostile.c (the match's side: see sim_match.c) ---------------------------- */

struct sim_match;
struct sim_machine;
struct sim_result;
typedef struct sim_hostile_run sim_hostile_run;

/* The actors of o (and --attack's), or NULL when there are none; a message
 * on stderr and *failed set if memory runs out. */
sim_hostile_run *sim_hostile_create(const sim_options *o, tempo_simnet *net, int nmach, bool *failed);
void sim_hostile_destroy(sim_hostile_run *h);
/* Put machine m's reading through the actors: m->net becomes a transport
 * that reads simnet's, tells hostile datagrams from honest ones, lets the
 * on-path actors act, and charges every drop to its datagram. */
void sim_hostile_wrap(sim_hostile_run *h, struct sim_machine *m);
/* Send what the actors owe up to virtual time vt (now on the network). */
void sim_hostile_step(sim_hostile_run *h, uint64_t vt);
/* After the run (sessions still alive): settle the last reads, fill
 * out->security's actors and sums. */
void sim_hostile_finish(sim_hostile_run *h, struct sim_match *mt, struct sim_result *out);

/* ---- sim_security.c ----------------------------------------------------------------- */

/* Whether a datagram a machine sends is a well-formed sealed one (its
 * header says so and it has room for the tag). */
bool sim_security_sealed_datagram(const uint8_t *data, size_t size);
/* Whether the match runs sealed: asked for and available. */
bool sim_security_sealed(const sim_options *o);
/* The match key of a sealed run, drawn from the seed (never all zero). */
void sim_security_key(const sim_options *o, uint8_t key[32]);
/* The sealing figures, honest drops and the disturbance verdict into out
 * (after sim_hostile_finish and the convergence check). */
void sim_security_finish(struct sim_match *mt, struct sim_result *out);
/* Whether hostile actors got in or disturbed the match: why in `why`. */
bool sim_security_failed(const sim_options *o, const struct sim_result *r, char *why, size_t size);
/* The section for the terminal, the report (HTML, written to f) and the
 * JSON (keys "sealed", "seal" and "hostile" of the open object). */
void sim_security_print(FILE *f, const sim_options *o, const struct sim_result *r);
void sim_security_html(FILE *f, const sim_options *o, const struct sim_result *r);
void sim_security_json(sim_json *j, const sim_options *o, const struct sim_result *r);
/* "spoofer", "onpath", "handshake-flood"; "random bytes", ... */
const char *sim_hostile_kind_name(int kind);
const char *sim_hostile_what_name(int what);

/* ---- sim_attack.c -------------------------------------------------------------------- */

/* --attack N: a sealed match under N forged datagrams; prints the table.
 * Returns the exit code (3 if anything got in or the match was disturbed). */


#endif /* TEMPO_SIM_HOSTILE_H */
