/* SPDX-License-Identifier: MIT */
/*
 * client_impl.h — the client's record, shared by client.c (connection,
 * datagrams, stats) and client_reconcile.c (the plan of each tick:
 * reconciliation and prediction). Not a public header.
 */
#ifndef TEMPO_CS_CLIENT_IMPL_H
#define TEMPO_CS_CLIENT_IMPL_H

#include "tempo/client.h"

#include "base/common.h"
#include "base/event_ring.h"
#include "cs/channel.h"
#include "cs/snapshot.h"
#include "cs/ticksync.h"
#include "net/gate.h"
#include "wire/fragment.h"

#define CS_CLIENT_EVENTS 64
#define CS_CLIENT_STATES 64   /* received states kept as delta bases: a round trip of ~1 s at 60 Hz */
#define CS_CLIENT_MAX_JUMP 64 /* most ticks one snap runs ahead */

struct tempo_client {
    tempo_client_config cfg;
    tempo_transport tr;
    tempo_address server;
    tempo_logger log;
    tempo_client_state state;
    uint64_t now_us;
    uint64_t tick_us;
    uint64_t next_tick_at;        /* when the next tick is due; 0 before the first advance */

    /* handshake */
    gate_client gate;
    uint8_t offer;                /* our cipher offer (wire/seal.h), from create */
    bool gate_up;
    bool responded;
    uint64_t response_sent_us;    /* the first response: the RTT until the ACCEPT */

    /* connection */
    bool channel_up;
    cs_channel ch;
    tempo_frag_assembler frag;
    int first_slot, num_slots;    /* ours: first_slot .. first_slot + num_slots - 1 */
    int client_index;
    uint64_t last_send_us;

    /* snapshots */
    cs_history states;            /* received blocks (players, then state), by tick */
    size_t state_cap;
    size_t players_size;          /* the players' part of a block */
    int32_t newest;               /* newest snapshot taken, -1 none */
    int32_t applied;              /* newest put in place, -1 none */
    uint64_t newest_us;           /* when it came */
    int32_t input_ack;            /* the server holds our inputs up to here */
    uint8_t *reported;            /* num_players * input_size: others' newest inputs */
    uint8_t *reported_status;     /* num_players */

    /* ticks */
    bool started;
    int32_t frame;                /* the next tick to step */
    int32_t first_tick;           /* the first tick it sent an input for */
    int32_t report_from;          /* earliness reports count once the server has our inputs to here */
    int32_t gap;                  /* frame minus the newest snapshot's tick, before a jump */
    int stall_left;               /* ticks still to skip after a snap back */
    cs_ticksync ts;
    uint8_t *local;               /* num_players * input_size: the coming tick's */
    uint8_t *kept;                /* input_history * num_slots * input_size */
    int32_t *kept_tick;           /* input_history; -1 empty */
    uint8_t *pred;                /* arena mode: input_history * arena_size */
    int32_t *pred_tick;
    bool check_pending;           /* arena mode: compare pred of check_tick */
    int32_t check_tick;

    /* the plan handed out */
    tempo_request *req;
    int req_cap;
    uint8_t *req_inputs;          /* req_cap * num_players * input_size */
    uint8_t *req_status;          /* req_cap * num_players */

    uint8_t dgram[TEMPO_MAX_DATAGRAM];
    uint8_t recv[TEMPO_MAX_DATAGRAM + 1];
    uint8_t body[TEMPO_MAX_DATAGRAM];

    tempo_client_event events[CS_CLIENT_EVENTS];
    event_ring ev;                /* which of events[] are held, oldest first */
    tempo_client_stats st;
};

void cs_client_push_event(tempo_client *c, const tempo_client_event *ev);
/* After an advance: the next tick is due one (dilated) tick after this
 * one was due, or one tick from now after a long hitch. */
void cs_client_schedule(tempo_client *c);
/* Send an INPUT with every input the server has not acknowledged. */
void cs_client_send_inputs(tempo_client *c);

#endif /* TEMPO_CS_CLIENT_IMPL_H */
