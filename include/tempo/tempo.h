/* SPDX-License-Identifier: MIT */
/*
 * tempo.h — rollback and lockstep netcode for games: the umbrella header.
 *
 * It includes every public header: base.h (results, hooks, checksum),
 * transport.h (addresses, the datagram interface), rng.h, config.h (a
 * session's configuration, the tick's requests, the counters), session.h
 * (the session API), effects.h (sounds under rollback), subframe.h (drawing
 * between frames), server.h and client.h
 * (the client-server roles), replay.h
 * (replay files), lockstep.h (turn-based lockstep), relay.h (the relay and its
 * members), udp.h and simnet.h (two transports), secure.h (connect tokens and
 * keys).
 *
 * The game owns the loop. Each tick it hands tempo the time and its local
 * input; tempo answers with an ordered list of requests (SAVE, LOAD, ADVANCE)
 * that the game carries out in order. tempo never reads a clock, never takes
 * control, and never allocates after a session is created.
 *
 * A tick, in full:
 *
 *     tempo_session_poll(s, now_us);                 // network in/out, timers
 *     if (!tempo_session_will_stall(s))              // time sync may skip this tick:
 *         tempo_session_add_local_input(s, me, &in, sizeof in);  // then keep `in`
 *     tempo_tick tick;
 *     tempo_session_advance(s, &tick);               // plan this tick
 *     const tempo_request *r;
 *     while (tempo_session_next(s, &r) > 0) {        // carry it out
 *         switch (r->kind) {
 *         case TEMPO_REQUEST_SAVE:    save(r->slot); *r->checksum = hash(); break;
 *         case TEMPO_REQUEST_LOAD:    load(r->slot); break;
 *         case TEMPO_REQUEST_ADVANCE: step(r->inputs, r->status, r->resimulating); break;
 *         }
 *     }
 *     tempo_event ev;
 *     while (tempo_session_poll_event(s, &ev) > 0) { ... }
 *
 * (docs/GUIDE.md section 4: an input offered on a stalled tick is not
 * taken; tick.inputs_taken says which were.) Frames below
 * tempo_session_confirmed_frame(s) are final on every machine.
 *
 * Frames and states. Frame numbers start at 0. "State f" is the game state at
 * the start of frame f, after f frames have been simulated; state 0 is the
 * state the game starts with. ADVANCE(f) turns state f into state f + 1.
 * SAVE(f) and LOAD(f) store and restore state f. A checksum "of frame f" is
 * the checksum of state f.
 *
 * Thread safety: tempo is single-threaded by design. A session may be used
 * from any thread, but from one thread at a time; distinct sessions are
 * independent.
 */
#ifndef TEMPO_TEMPO_H
#define TEMPO_TEMPO_H

#include "tempo/base.h"
#include "tempo/interp.h"
#include "tempo/rng.h"
#include "tempo/transport.h"
#include "tempo/traversal.h"
#include "tempo/config.h"
#include "tempo/session.h"
#include "tempo/server.h"
#include "tempo/client.h"
#include "tempo/effects.h"
#include "tempo/subframe.h"
#include "tempo/replay.h"
#include "tempo/lockstep.h"
#include "tempo/simnet.h"
#include "tempo/udp.h"
#include "tempo/secure.h"
#include "tempo/relay.h"

#endif /* TEMPO_TEMPO_H */
