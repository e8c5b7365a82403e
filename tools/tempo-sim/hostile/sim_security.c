/* SPDX-License-Identifier: MIT */
/*
 * sim_security.c — a match's sealing and its hostile traffic as the results
 * show them (sim_hostile.h): the match key drawn from the seed, the bytes
 * the tags add, whether the actors got anything in or disturbed the match,
 * and the "Hostile traffic" section for the terminal, the report and the
 * JSON.
 *
 * The overhead is measured on what the machines handed to the network in
 * the match part (counted in sim_match.c's transport): a datagram whose
 * header says sealed carries a 16-byte tag its plain form would not, so the
 * tags are 16 bytes times those datagrams. Everything printed comes from sim_result.security, so the three
 * outputs agree.
 */
#include <inttypes.h>
#include <string.h>

#include "sim_out.h"
#include "sim_match.h"
#include "tempo/secure.h"
#include "wire/packet.h"

#define TAG_BYTES 16u /* the AEAD tag of a sealed datagram (docs/PROTOCOL.md) */

bool sim_security_sealed_datagram(const uint8_t *data, size_t size)
{
    tempo_packet_view v;
    return packet_read(data, size, &v, NULL) == TEMPO_OK && v.h.sealed;
}

bool sim_security_sealed(const sim_options *o)
{
    /* relay members seal only with a backend's tokens, which the sim has not */
    return o->seal && o->topology == 0 && tempo_secure_available();
}

void sim_security_key(const sim_options *o, uint8_t key[32])
{
    for (int k = 0; k < 4; k++) {
        uint64_t v = sim_mix64(o->seed ^ (0x6B6579ULL << 40) ^ (uint64_t)k);
        for (int b = 0; b < 8; b++)
            key[k * 8 + b] = (uint8_t)(v >> (8 * b));
    }
    key[0] |= 1; /* never all zero, which the library refuses */
}

const char *sim_hostile_kind_name(int kind)
{
    static const char *const names[] = {"spoofer", "onpath", "handshake-flood"};
    return kind >= 0 && kind < 3 ? names[kind] : "?";
}

const char *sim_hostile_what_name(int what)
{
    static const char *const names[SIM_HW_COUNT] = {
        "random bytes", "plain DISCONNECT", "plain INPUT, far ack", "captured, mutated", "captured, replayed",
        "rewritten", "replayed", "duplicated", "handshake request"};
    return what >= 0 && what < SIM_HW_COUNT ? names[what] : "?";
}

/* Pairs of live machines where one dropped the other: a peer its peers, a
 * host its spectators. */
static uint64_t honest_drops(const sim_match *mt)
{
    uint64_t n = 0;
    for (int i = 0; i < mt->nmach; i++) {
        const sim_machine *x = mt->mach[i];
        if (x->dead || x->spectator)
            continue;
        for (int j = 0; j < mt->nmach; j++) {
            const sim_machine *y = mt->mach[j];
            tempo_endpoint_stats es;
            if (j == i || y->dead)
                continue;
            tempo_result rc = y->spectator ? (y->host == i ? tempo_session_get_spectator_stats(x->s, y->host_slot, &es)
                                                           : TEMPO_E_UNSUPPORTED)
                                           : tempo_session_get_endpoint_stats(x->s, y->first_player, &es);
            n += rc == TEMPO_OK && es.disconnected;
        }
    }
    return n;
}

void sim_security_finish(sim_match *mt, sim_result *out)
{
    const sim_options *o = mt->o;
    sim_security *sec = &out->security;
    sec->sealed = sim_security_sealed(o);
    sec->seal_unavailable = o->seal && !tempo_secure_available();
    for (int i = 0; i < mt->nmach; i++) {
        sec->datagrams += mt->mach[i]->m.packets_sent;
        sec->bytes += mt->mach[i]->m.bytes_sent;
        sec->sealed_datagrams += mt->mach[i]->m.sealed_sent;
    }
    sec->overhead_bytes = sec->sealed_datagrams * TAG_BYTES;
    sec->honest_drops = honest_drops(mt);
    sec->disturbed = sec->num_actors > 0 && (out->desyncs > 0 || sec->honest_drops > 0 || !out->converged);
}

bool sim_security_failed(const sim_options *o, const sim_result *r, char *why, size_t size)
{
    (void)o;
    const sim_security *sec = &r->security;
    if (sec->num_actors == 0)
        return false;
    if (sec->hostile.accepted > 0)
        snprintf(why, size, "%" PRIu64 " hostile datagram%s accepted by a session", sec->hostile.accepted,
                 sec->hostile.accepted == 1 ? "" : "s");
    else if (sec->disturbed)
        snprintf(why, size, "hostile traffic disturbed the match (%" PRIu64 " desyncs, %" PRIu64
                 " honest drops, %s)", r->desyncs, sec->honest_drops, r->converged ? "converged" : "no convergence");
    else if (!sec->sums_add_up)
        snprintf(why, size, "the hostile traffic's counts do not add up");
    else
        return false;
    return true;
}

/* ---- the terminal ------------------------------------------------------------------------ */

static void sealing_line(FILE *f, const sim_security *sec)
{
    if (sec->sealed)
        fprintf(f, "sealing: on - every datagram authenticated and encrypted (a match key drawn from the seed);\n"
                   "  %" PRIu64 " datagrams (%" PRIu64 " sealed), %" PRIu64 " bytes, of which %" PRIu64
                   " (%.1f%%) are the 16-byte tags\n",
                sec->datagrams, sec->sealed_datagrams, sec->bytes, sec->overhead_bytes,
                sim_pct(sec->overhead_bytes, sec->bytes));
    else
        fprintf(f, "sealing: off - %s; %" PRIu64 " datagrams, %" PRIu64 " bytes, no tags\n",
                sec->seal_unavailable ? "this build has no libsodium (tempo_secure_available() is false)"
                                      : "seal off: anyone on the path can read and forge every datagram",
                sec->datagrams, sec->bytes);
}

static void count_row(FILE *f, const char *name, const sim_hostile_count *c)
{
    fprintf(f, "  %-24s %9" PRIu64 " %7" PRIu64 " %9" PRIu64 " %8" PRIu64 " %8" PRIu64 " %9" PRIu64 " %8" PRIu64
               " %7" PRIu64 " %7" PRIu64 " %8" PRIu64 "\n",
            name, c->sent, c->unread, c->read, c->forged, c->replay, c->malformed, c->unknown, c->session, c->ignored,
            c->accepted);
}

static void actor_title(char *buf, size_t size, const sim_options *o, const sim_actor_result *a, int k)
{
    const sim_hostile *s = k < o->num_hostiles ? &o->hostiles[k] : NULL;
    snprintf(buf, size, "%s", sim_hostile_kind_name(a->kind));
    if (a->kind == SIM_HOSTILE_ONPATH)
        sim_append(buf, size, " %d-%d", a->a, a->b);
    if (s && s->kind == SIM_HOSTILE_ONPATH)
        sim_append(buf, size, ", acting on %g of the datagrams", s->rate);
    else if (s)
        sim_append(buf, size, ", %g a second", s->rate);
    else
        sim_append(buf, size, " (--attack)");
    if (s)
        sim_append(buf, size, ", %.2f-%.2f s", (double)s->from_us / 1e6, (double)s->to_us / 1e6);
}

void sim_security_print(FILE *f, const sim_options *o, const sim_result *r)
{
    const sim_security *sec = &r->security;
    fputc('\n', f);
    sealing_line(f, sec);
    if (sec->num_actors == 0)
        return;
    fprintf(f, "\nhostile traffic (a datagram is accepted when a session read it and no drop counter moved):\n");
    fprintf(f, "  %-24s %9s %7s %9s %8s %8s %9s %8s %7s %7s %8s\n", "", "sent", "unread", "read", "forged", "replay",
            "malformed", "unknown", "session", "ignored", "accepted");
    for (int k = 0; k < sec->num_actors; k++) {
        const sim_actor_result *a = &sec->actor[k];
        char title[160];
        actor_title(title, sizeof title, o, a, k);
        fprintf(f, "%s\n", title);
        for (int w = 0; w < SIM_HW_COUNT; w++)
            if (a->by[w].sent > 0)
                count_row(f, sim_hostile_what_name(w), &a->by[w]);
        count_row(f, "all", &a->total);
        if (a->refused)
            fprintf(f, "  (%" PRIu64 " more not sent: the network's pool was full)\n", a->refused);
        if (a->kind == SIM_HOSTILE_ONPATH)
            fprintf(f, "  honest datagrams withheld %" PRIu64 ", handed over late (reordered) %" PRIu64 "\n",
                    a->withheld, a->held_back);
    }
    count_row(f, "every actor", &sec->hostile);
    fprintf(f, "honest datagrams read: %" PRIu64 " (dropped: forged %" PRIu64 ", replay %" PRIu64
               ", malformed %" PRIu64 ", unknown %" PRIu64 ", session %" PRIu64 ")\n",
            sec->honest.read, sec->honest.forged, sec->honest.replay, sec->honest.malformed, sec->honest.unknown,
            sec->honest.session);
    uint64_t hostile_drops = sec->hostile.forged + sec->hostile.replay + sec->hostile.malformed +
                             sec->hostile.unknown + sec->hostile.session;
    uint64_t honest = sec->honest.forged + sec->honest.replay + sec->honest.malformed + sec->honest.unknown +
                      sec->honest.session;
    fprintf(f, "drop counters: %" PRIu64 " in the sessions = %" PRIu64 " hostile + %" PRIu64 " honest + %" PRIu64
               " between reads; every count adds up: %s\n",
            sec->counters, hostile_drops, honest, sec->dropped_elsewhere, sec->sums_add_up ? "yes" : "NO");
    fprintf(f, "match under attack: %" PRIu64 " desyncs, %" PRIu64 " honest drops, %s\n", r->desyncs,
            sec->honest_drops, r->converged ? "converged" : "did NOT converge");
    char why[200];
    if (sim_security_failed(o, r, why, sizeof why))
        fprintf(f, "hostile verdict: FAILED - %s\n", why);
    else
        fprintf(f, "hostile verdict: passed - nothing hostile was accepted and the match was not disturbed\n");
}

/* ---- the report --------------------------------------------------------------------------- */

static void html_row(FILE *f, const char *name, const sim_hostile_count *c)
{
    fprintf(f, "<tr><td>%s</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%" PRIu64
               "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%" PRIu64
               "</td><td>%" PRIu64 "</td></tr>\n",
            name, c->sent, c->unread, c->read, c->forged, c->replay, c->malformed, c->unknown, c->session, c->ignored,
            c->accepted);
}

void sim_security_html(FILE *f, const sim_options *o, const sim_result *r)
{
    const sim_security *sec = &r->security;
    if (sec->sealed)
        fprintf(f, "<p class=\"facts\">Sealed: every datagram authenticated and encrypted (a match key drawn "
                   "from the seed) &#183; %" PRIu64 " datagrams (%" PRIu64 " sealed), %" PRIu64
                   " bytes &#183; tags %" PRIu64 " bytes (%.1f%%)</p>\n",
                sec->datagrams, sec->sealed_datagrams, sec->bytes, sec->overhead_bytes,
                sim_pct(sec->overhead_bytes, sec->bytes));
    else
        fprintf(f, "<p class=\"facts\">Not sealed: %s &#183; %" PRIu64 " datagrams, %" PRIu64 " bytes</p>\n",
                sec->seal_unavailable ? "this build has no libsodium" : "seal off, anyone on the path can forge",
                sec->datagrams, sec->bytes);
    if (sec->num_actors == 0)
        return;
    fputs("<h3>Hostile traffic</h3>\n<table class=\"summary\">\n<tr><th>actor / datagrams</th><th>sent</th>"
          "<th>unread</th><th>read</th><th>forged</th><th>replay</th><th>malformed</th><th>unknown</th>"
          "<th>session</th><th>ignored</th><th>accepted</th></tr>\n",
          f);
    for (int k = 0; k < sec->num_actors; k++) {
        const sim_actor_result *a = &sec->actor[k];
        char title[160]; /* names, numbers and fixed words: nothing to escape */
        actor_title(title, sizeof title, o, a, k);
        fprintf(f, "<tr><th colspan=\"11\">%s", title);
        if (a->kind == SIM_HOSTILE_ONPATH)
            fprintf(f, "; honest datagrams withheld %" PRIu64 ", reordered %" PRIu64, a->withheld, a->held_back);
        fputs("</th></tr>\n", f);
        for (int w = 0; w < SIM_HW_COUNT; w++)
            if (a->by[w].sent > 0)
                html_row(f, sim_hostile_what_name(w), &a->by[w]);
        html_row(f, "all", &a->total);
    }
    html_row(f, "every actor", &sec->hostile);
    fputs("</table>\n", f);
    char why[200];
    bool failed = sim_security_failed(o, r, why, sizeof why);
    fprintf(f, "<p class=\"verdict %s\"><b>Hostile traffic %s:</b> ", failed ? "bad" : "ok",
            failed ? "FAILED" : "passed");
    if (failed)
        fprintf(f, "%s.", why);
    else
        fputs("no hostile datagram was accepted and the match was not disturbed.", f);
    fprintf(f, " %" PRIu64 " desyncs, %" PRIu64 " honest drops; the sessions' drop counters (%" PRIu64
               ") %s the drops charged to each datagram.</p>\n",
            r->desyncs, sec->honest_drops, sec->counters, sec->sums_add_up ? "equal" : "DIFFER from");
}

/* ---- JSON ----------------------------------------------------------------------------------- */

static void json_count(sim_json *j, const char *key, const sim_hostile_count *c)
{
    sim_json_begin_object(j, key);
    sim_json_uint(j, "sent", c->sent);
    sim_json_uint(j, "unread", c->unread);
    sim_json_uint(j, "read", c->read);
    sim_json_uint(j, "forged", c->forged);
    sim_json_uint(j, "replay", c->replay);
    sim_json_uint(j, "malformed", c->malformed);
    sim_json_uint(j, "unknown", c->unknown);
    sim_json_uint(j, "session", c->session);
    sim_json_uint(j, "ignored", c->ignored);
    sim_json_uint(j, "accepted", c->accepted);
    sim_json_end_object(j);
}

void sim_security_json(sim_json *j, const sim_options *o, const sim_result *r)
{
    const sim_security *sec = &r->security;
    sim_json_bool(j, "sealed", sec->sealed);
    sim_json_begin_object(j, "seal");
    sim_json_bool(j, "unavailable", sec->seal_unavailable);
    sim_json_uint(j, "datagrams", sec->datagrams);
    sim_json_uint(j, "sealed_datagrams", sec->sealed_datagrams);
    sim_json_uint(j, "bytes", sec->bytes);
    sim_json_uint(j, "overhead_bytes", sec->overhead_bytes);
    sim_json_double(j, "overhead_pct", sim_pct(sec->overhead_bytes, sec->bytes));
    sim_json_end_object(j);
    if (sec->num_actors == 0) {
        sim_json_null(j, "hostile");
        return;
    }
    char why[200];
    bool failed = sim_security_failed(o, r, why, sizeof why);
    sim_json_begin_object(j, "hostile");
    sim_json_bool(j, "passed", !failed);
    sim_json_uint(j, "accepted", sec->hostile.accepted);
    sim_json_uint(j, "desyncs", r->desyncs);
    sim_json_uint(j, "honest_drops", sec->honest_drops);
    sim_json_bool(j, "disturbed", sec->disturbed);
    sim_json_bool(j, "sums_add_up", sec->sums_add_up);
    sim_json_uint(j, "drop_counters", sec->counters);
    sim_json_uint(j, "dropped_between_reads", sec->dropped_elsewhere);
    json_count(j, "all", &sec->hostile);
    json_count(j, "honest", &sec->honest);
    sim_json_begin_array(j, "actors");
    for (int k = 0; k < sec->num_actors; k++) {
        const sim_actor_result *a = &sec->actor[k];
        sim_json_begin_object(j, NULL);
        sim_json_string(j, "kind", sim_hostile_kind_name(a->kind));
        if (a->kind == SIM_HOSTILE_ONPATH) {
            sim_json_int(j, "from", a->a);
            sim_json_int(j, "to", a->b);
            sim_json_uint(j, "withheld", a->withheld);
            sim_json_uint(j, "reordered", a->held_back);
        }
        sim_json_uint(j, "refused", a->refused);
        json_count(j, "all", &a->total);
        static const char *const keys[SIM_HW_COUNT] = {"random", "disconnect", "far_ack", "mutated", "replayed",
                                                       "rewritten", "replay", "duplicate", "handshake"};
        sim_json_begin_object(j, "by_kind");
        for (int w = 0; w < SIM_HW_COUNT; w++)
            if (a->by[w].sent > 0)
                json_count(j, keys[w], &a->by[w]);
        sim_json_end_object(j);
        sim_json_end_object(j);
    }
    sim_json_end_array(j);
    sim_json_end_object(j);
}
