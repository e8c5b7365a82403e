/* SPDX-License-Identifier: MIT */
/*
 * gate.c — the connect handshake (gate.h), after netcode.io's connection
 * request / challenge / response and its "challenge token", with the
 * stateless cookie of TCP SYN cookies and DTLS's HelloVerifyRequest: a
 * server proves a client can receive at the address it claims before it
 * spends memory on it.
 *
 * Server, per datagram, cheapest check first: header (size, magic,
 * version, type, session id), then the request's exact size, protocol id,
 * mode, slots and zero padding; only then the token (whose own checks run
 * clear bytes first, tempo_token_open_private). A response: its exact
 * size, the cookie's key generation, the cookie (one AEAD or SipHash),
 * freshness, then the response's own seal under the key the cookie held.
 * Nothing is written anywhere but the reply buffer, the admission, the
 * statistics and the reply counter.
 *
 * Client: requests on a period until a challenge opens under the token's
 * server-to-client key, then responses (under that challenge's connection
 * keys, connect.h) on the same period until the caller
 * reports the connection (or a denial, or the timeout). Only the first
 * sealed challenge that opens is taken: the connection's keys come from
 * it, so a second one (the answer to a retried request) must not change
 * them under a response the server may already have admitted. A denial is
 * taken only if it opens under those keys and is newer than the challenge,
 * so a copy of an old CHALLENGE or DENIED (from an earlier attempt under
 * the same token) changes nothing.
 */
#include "net/gate.h"

#include <stdio.h>
#include <string.h>

#include "base/common.h"
#include "wire/siphash.h"

#define MAX_COOKIE_LIFETIME_US 60000000ull
#define REPLY_HALF 0x8000000000000000ull

static const uint8_t SEQUENCE_LABEL[] = "tempo gate: first reply sequence";

/* The server's first sealed reply: in the top half, 2^62 below its end,
 * from a keyed hash of the cookie key (public, and saying nothing of it). */
static uint64_t first_reply_sequence(const uint8_t key[TEMPO_KEY_SIZE])
{
    uint64_t h = siphash24(key, SEQUENCE_LABEL, sizeof SEQUENCE_LABEL - 1);
    return REPLY_HALF | (h & 0x3FFFFFFFFFFFFFFFull);
}

/* ---- server --------------------------------------------------------- */

/* An offer a caller may configure: SEAL_CIPHER_* bits, 0 for the default. */
static bool offer_valid(uint8_t ciphers)
{
    return (ciphers & ~SEAL_CIPHERS_ALL) == 0;
}

/* ...and one this machine can keep: AES only where it has it. */
static bool offer_possible(uint8_t ciphers)
{
    return (ciphers & SEAL_CIPHER_AES256GCM) == 0 || seal_aes_available();
}

int gate_server_init(gate_server *g, const gate_server_config *cfg,
                     const uint8_t cookie_key[TEMPO_KEY_SIZE])
{
    if (g == NULL || cfg == NULL || cookie_key == NULL ||
        cfg->cookie_lifetime_us > MAX_COOKIE_LIFETIME_US || !offer_valid(cfg->ciphers))
        return TEMPO_E_INVALID_ARG;
    if (!offer_possible(cfg->ciphers))
        return TEMPO_E_UNSUPPORTED;
    if (cfg->has_private_key && seal_start() != TEMPO_OK)
        return TEMPO_E_UNSUPPORTED;
    memset(g, 0, sizeof *g);
    g->cfg = *cfg;
    if (g->cfg.cookie_lifetime_us == 0)
        g->cfg.cookie_lifetime_us = GATE_DEFAULT_COOKIE_LIFETIME_US;
    if (g->cfg.ciphers == 0)
        g->cfg.ciphers = seal_offer(TEMPO_CIPHER_AUTO);
    if (g->cfg.role == NULL)
        g->cfg.role = "server";
    memcpy(g->cookie_key, cookie_key, TEMPO_KEY_SIZE);
    g->reply_sequence = first_reply_sequence(cookie_key);
    return TEMPO_OK;
}

int gate_server_open(gate_server *g, const char *role, uint64_t protocol_id,
                     bool has_private_key, const uint8_t private_key[TEMPO_KEY_SIZE], const tempo_address *self,
                     uint8_t ciphers, const uint8_t cookie_key[TEMPO_KEY_SIZE])
{
    gate_server_config gc;
    memset(&gc, 0, sizeof gc);
    gc.role = role;
    gc.protocol_id = protocol_id;
    gc.has_private_key = has_private_key;
    memcpy(gc.private_key, private_key, TEMPO_KEY_SIZE);
    gc.self = *self;
    gc.ciphers = ciphers;
    int r = gate_server_init(g, &gc, cookie_key);
    seal_wipe(&gc, sizeof gc);
    return r;
}

uint64_t gate_server_refused(const gate_server *g)
{
    uint64_t n = 0;
    for (int r = 0; r < CONNECT_REFUSAL_COUNT_; r++)
        n += g->stats.refused[r];
    return n;
}

void gate_server_rotate(gate_server *g, const uint8_t cookie_key[TEMPO_KEY_SIZE])
{
    memcpy(g->previous_key, g->cookie_key, TEMPO_KEY_SIZE);
    memcpy(g->cookie_key, cookie_key, TEMPO_KEY_SIZE);
    g->has_previous = true;
    g->generation++;
}

void gate_server_wipe(gate_server *g)
{
    seal_wipe(g, sizeof *g);
}

static gate_outcome refuse(gate_server *g, connect_refusal why)
{
    g->stats.refused[why]++;
    return GATE_IGNORED;
}

/* A refusal of a client's request for its token, or for having none:
 * one an operator may want to hear of (gate_server_refusal_note). */
static gate_outcome refuse_client(gate_server *g, connect_refusal why)
{
    g->last_told = why;
    g->last_tokenless = false;
    return refuse(g, why);
}

/* A whole CONNECT_REQUEST for another protocol id: a client built for
 * another game, or (in nonce mode) one without a token, made for an
 * unsealed server; told too, since the operator can fix either. */
static gate_outcome refuse_protocol(gate_server *g, const uint8_t *data, size_t size)
{
    tempo_packet_view v;
    if (size != CONNECT_REQUEST_SIZE || packet_read(data, size, &v, NULL) != TEMPO_OK ||
        v.h.type != CONNECT_TYPE_REQUEST)
        return refuse(g, CONNECT_WRONG_PROTOCOL);
    (void)refuse_client(g, CONNECT_WRONG_PROTOCOL);
    g->last_tokenless = data[CONNECT_AT_MODE] == CONNECT_MODE_NONCE;
    return GATE_IGNORED;
}

/* Why a request was refused, as a format naming this end at most twice
 * (each %s the role, "server" or "relay"; printf ignores arguments a
 * format does not use). */
static const char *refusal_format(const gate_server *g, connect_refusal why)
{
    switch (why) {
    case CONNECT_WRONG_MODE:
        return g->cfg.has_private_key
                   ? "it came without a connect token, and this %s takes only clients with one"
                   : "it came with a connect token, and this %s has no private key to open it";
    case CONNECT_BAD_TOKEN:
        return "its token does not open with this %s's private key (minted with another "
               "private key, or altered)";
    case CONNECT_EXPIRED:
        return "its token has expired (by the time this %s dates tokens with)";
    case CONNECT_WRONG_PROTOCOL:
        return g->last_tokenless && g->cfg.has_private_key
                   ? "it came without a connect token (its protocol id is an unsealed "
                     "%s's), and this %s takes only clients with one"
                   : "its request names another protocol id than this %s's";
    default:
        return "its token was refused";
    }
}

bool gate_server_refusal_note(gate_server *g, uint64_t now_us, const tempo_address *from,
                              char *buf, size_t size)
{
    connect_refusal why = g->last_told;
    g->last_told = CONNECT_OK;
    if (why == CONNECT_OK || why >= CONNECT_REFUSAL_COUNT_ || buf == NULL || size == 0)
        return false;
    uint64_t told = tempo__note(&g->notes[why], now_us, GATE_NOTE_US);
    if (told == 0)
        return false;
    char who[TEMPO_ADDRESS_STRLEN];
    tempo_address_format(from, who, sizeof who);
    char times[64];
    tempo__note_times(times, sizeof times, told, GATE_NOTE_US);
    const char *role = g->cfg.role;
    if (why == CONNECT_WRONG_SERVER) {
        char self[TEMPO_ADDRESS_STRLEN];
        tempo_address_format(&g->cfg.self, self, sizeof self);
        snprintf(buf, size,
                 "refused a client at %s%s: its token does not name this %s's address %s "
                 "(minted for another %s, or this %s's address is not the one tokens name)",
                 who, times, role, self, role, role);
    } else {
        char why_text[192];
        snprintf(why_text, sizeof why_text, refusal_format(g, why), role, role);
        snprintf(buf, size, "refused a client at %s%s: %s", who, times, why_text);
    }
    return true;
}

static connect_refusal token_refusal(int rc)
{
    switch (rc) {
    case TEMPO_E_PROTOCOL: return CONNECT_WRONG_PROTOCOL;
    case TEMPO_E_EXPIRED: return CONNECT_EXPIRED;
    case TEMPO_E_ADDRESS: return CONNECT_WRONG_SERVER;
    default: return CONNECT_BAD_TOKEN; /* MALFORMED, AUTH */
    }
}

static gate_outcome on_request(gate_server *g, uint64_t now_us, uint64_t now_seconds,
                               const tempo_address *from, const uint8_t *data, size_t size,
                               uint8_t *reply, size_t reply_cap, size_t *reply_size)
{
    connect_request req;
    connect_refusal why = connect_request_read(data, size, g->cfg.protocol_id, &req);
    if (why == CONNECT_WRONG_PROTOCOL)
        return refuse_protocol(g, data, size);
    if (why != CONNECT_OK)
        return refuse(g, why);
    bool sealed = g->cfg.has_private_key;
    if ((req.mode == CONNECT_MODE_TOKEN) != sealed)
        return refuse_client(g, CONNECT_WRONG_MODE);

    connect_cookie c;
    memset(&c, 0, sizeof c);
    c.issued_us = now_us;
    c.slots = req.slots;
    c.client_id = req.nonce;
    if (sealed) {
        tempo_token_private tok;
        const tempo_address *self = g->cfg.self.family != TEMPO_ADDRESS_NONE ? &g->cfg.self : NULL;
        int rc = tempo_token_open_private(g->cfg.private_key, g->cfg.protocol_id, now_seconds,
                                          self, req.token, TEMPO_TOKEN_CONNECT_SIZE, &tok);
        if (rc != TEMPO_OK)
            return refuse_client(g, token_refusal(rc));
        c.client_id = tok.client_id;
        c.expire_seconds = tok.expire_seconds;
        memcpy(c.client_to_server_key, tok.client_to_server_key, TEMPO_KEY_SIZE);
        memcpy(c.server_to_client_key, tok.server_to_client_key, TEMPO_KEY_SIZE);
        memcpy(c.user_data, tok.user_data, TEMPO_TOKEN_USER_DATA_SIZE);
        tempo_wipe(&tok, sizeof tok);
    }

    uint8_t cookie[COOKIE_SEALED_SIZE];
    uint64_t seq = g->reply_sequence;
    int n = connect_cookie_write(g->cookie_key, g->generation, seq, sealed, from,
                                 g->cfg.protocol_id, &c, cookie);
    if (n >= 0)
        n = connect_challenge_write(reply, reply_cap, g->cfg.protocol_id,
                                    sealed ? c.server_to_client_key : NULL, seq, c.client_id,
                                    g->cfg.ciphers, cookie);
    seal_wipe(&c, sizeof c);
    seal_wipe(cookie, sizeof cookie);
    if (n < 0)
        return GATE_IGNORED; /* the caller's buffer is too small: nothing sent */
    g->reply_sequence++;
    TEMPO_ASSERT((size_t)n <= size); /* never an amplifier */
    *reply_size = (size_t)n;
    g->stats.challenges++;
    return GATE_REPLY;
}

static gate_outcome on_response(gate_server *g, uint64_t now_us, uint64_t now_seconds,
                                const tempo_address *from, const uint8_t *data, size_t size,
                                gate_admit *admit)
{
    bool sealed = g->cfg.has_private_key;
    const uint8_t *cookie;
    uint64_t seq;
    uint8_t offer;
    connect_refusal why = connect_response_read(data, size, sealed, &cookie, &seq, &offer);
    if (why != CONNECT_OK)
        return refuse(g, why);
    uint8_t gen = connect_cookie_generation(cookie);
    const uint8_t *key = NULL;
    if (gen == g->generation)
        key = g->cookie_key;
    else if (g->has_previous && gen == (uint8_t)(g->generation - 1))
        key = g->previous_key;
    if (key == NULL)
        return refuse(g, CONNECT_BAD_COOKIE);
    connect_cookie c;
    why = connect_cookie_read(key, sealed, from, g->cfg.protocol_id, cookie, &c);
    bool fresh = c.issued_us <= now_us && now_us - c.issued_us < g->cfg.cookie_lifetime_us;
    if (why == CONNECT_OK && !fresh)
        why = CONNECT_STALE_COOKIE;
    else if (why == CONNECT_OK && sealed && now_seconds >= c.expire_seconds)
        why = CONNECT_EXPIRED;
    /* The connection's keys: the token's, derived with the challenge's
     * sequence (the cookie's nonce), so no two connections share one. */
    uint8_t c2s[TEMPO_KEY_SIZE], s2c[TEMPO_KEY_SIZE];
    if (why == CONNECT_OK && sealed &&
        connect_connection_keys(c.client_to_server_key, c.server_to_client_key,
                                connect_cookie_sequence(cookie), c2s, s2c) != TEMPO_OK)
        why = CONNECT_FORGED; /* cannot happen: the server started libsodium at init */
    if (why == CONNECT_OK && sealed && !connect_response_verify(data, size, c2s))
        why = CONNECT_FORGED;
    /* the offer is the client's: the tag just held */
    uint8_t cipher = seal_choose(g->cfg.ciphers, offer);
    if (why == CONNECT_OK && sealed && cipher == 0)
        why = CONNECT_NO_CIPHER;
    if (why == CONNECT_OK && sealed &&
        (seal_keys_set(&admit->keys, s2c, c2s, SEAL_DIRECTION_HIGH) != TEMPO_OK ||
         seal_keys_use(&admit->keys, cipher) != TEMPO_OK))
        why = CONNECT_FORGED; /* cannot happen, as above; our offer holds only what we can */
    seal_wipe(c2s, sizeof c2s);
    seal_wipe(s2c, sizeof s2c);
    if (why != CONNECT_OK) {
        seal_wipe(&c, sizeof c);
        return refuse(g, why);
    }
    if (!sealed)
        seal_keys_wipe(&admit->keys);
    admit->client_id = c.client_id;
    admit->address = *from;
    admit->slots = c.slots;
    admit->expire_seconds = c.expire_seconds;
    admit->client_sequence = seq;
    admit->sealed = sealed;
    memcpy(admit->user_data, c.user_data, TEMPO_TOKEN_USER_DATA_SIZE);
    seal_wipe(&c, sizeof c);
    g->stats.admissions++;
    return GATE_ADMIT;
}

gate_outcome gate_server_on_datagram(gate_server *g, uint64_t now_us, uint64_t now_seconds,
                                     const tempo_address *from, const uint8_t *data, size_t size,
                                     uint8_t *reply, size_t reply_cap, size_t *reply_size,
                                     gate_admit *admit)
{
    if (reply_size != NULL)
        *reply_size = 0;
    if (g == NULL || from == NULL || reply == NULL || reply_size == NULL || admit == NULL)
        return GATE_IGNORED;
    g->last_told = CONNECT_OK;
    uint8_t type;
    bool sealed_bit;
    connect_refusal why = connect_peek(data, size, g->cfg.protocol_id, &type, &sealed_bit);
    if (why == CONNECT_WRONG_PROTOCOL)
        return refuse_protocol(g, data, size);
    if (why != CONNECT_OK)
        return refuse(g, why);
    if (type == CONNECT_TYPE_REQUEST)
        return on_request(g, now_us, now_seconds, from, data, size, reply, reply_cap, reply_size);
    if (type == CONNECT_TYPE_RESPONSE)
        return on_response(g, now_us, now_seconds, from, data, size, admit);
    return refuse(g, CONNECT_UNEXPECTED); /* a server never receives a CHALLENGE or DENIED */
}

int gate_server_deny(gate_server *g, const gate_admit *admit, uint8_t *buf, size_t cap)
{
    if (g == NULL || admit == NULL || buf == NULL || (admit->sealed && !admit->keys.ready))
        return TEMPO_E_INVALID_ARG;
    int n = connect_denied_write(buf, cap, g->cfg.protocol_id,
                                 admit->sealed ? admit->keys.send_key : NULL, g->reply_sequence,
                                 admit->client_id);
    if (n < 0)
        return n;
    g->reply_sequence++;
    g->stats.denials++;
    return n;
}

/* ---- client --------------------------------------------------------- */

int gate_client_init(gate_client *c, const gate_client_config *cfg, uint64_t now_us)
{
    if (c == NULL || cfg == NULL)
        return TEMPO_E_INVALID_ARG;
    uint64_t retry = cfg->retry_us != 0 ? cfg->retry_us : GATE_DEFAULT_RETRY_US;
    uint64_t timeout = cfg->timeout_us != 0 ? cfg->timeout_us : GATE_DEFAULT_TIMEOUT_US;
    if (cfg->slots < 1 || cfg->slots > CONNECT_MAX_SLOTS || retry < 1000 || retry > 10000000 ||
        timeout < 1000 || timeout > 600000000ull || (cfg->token == NULL && cfg->nonce == 0) ||
        !offer_valid(cfg->ciphers))
        return TEMPO_E_INVALID_ARG;
    if (!offer_possible(cfg->ciphers))
        return TEMPO_E_UNSUPPORTED;
    memset(c, 0, sizeof *c);
    if (cfg->token != NULL) {
        tempo_token_public pub;
        int rc = tempo_token_read_public(cfg->token, TEMPO_TOKEN_SIZE, &pub);
        if (rc == TEMPO_OK && pub.protocol_id != cfg->protocol_id)
            rc = TEMPO_E_PROTOCOL;
        if (rc == TEMPO_OK)
            rc = seal_keys_set(&c->token_keys, pub.client_to_server_key,
                               pub.server_to_client_key, SEAL_DIRECTION_LOW);
        tempo_wipe(&pub, sizeof pub);
        if (rc != TEMPO_OK) {
            seal_keys_wipe(&c->token_keys);
            return rc;
        }
        memcpy(c->token, cfg->token, TEMPO_TOKEN_CONNECT_SIZE);
        c->sealed = true;
    }
    c->protocol_id = cfg->protocol_id;
    c->server = cfg->server;
    c->slots = cfg->slots;
    c->retry_us = retry;
    c->timeout_us = timeout;
    c->nonce = cfg->nonce;
    c->ciphers = cfg->ciphers != 0 ? cfg->ciphers : seal_offer(TEMPO_CIPHER_AUTO);
    c->client_id = c->sealed ? 0 : cfg->nonce;
    c->state = GATE_CLIENT_REQUESTING;
    c->start_us = now_us;
    return TEMPO_OK;
}

static bool handshaking(const gate_client *c)
{
    return c->state == GATE_CLIENT_REQUESTING || c->state == GATE_CLIENT_RESPONDING;
}

gate_client_state gate_client_update(gate_client *c, uint64_t now_us)
{
    if (handshaking(c) && now_us >= c->start_us && now_us - c->start_us >= c->timeout_us)
        c->state = GATE_CLIENT_TIMED_OUT;
    return c->state;
}

bool gate_client_due(const gate_client *c, uint64_t now_us)
{
    if (!handshaking(c))
        return false;
    return !c->sent_any || c->send_now || now_us < c->last_send_us ||
           now_us - c->last_send_us >= c->retry_us;
}

int gate_client_write(gate_client *c, uint64_t now_us, uint8_t *buf, size_t cap)
{
    if (c == NULL || buf == NULL)
        return TEMPO_E_INVALID_ARG;
    if (!handshaking(c))
        return TEMPO_E_STATE;
    int n;
    if (c->state == GATE_CLIENT_REQUESTING) {
        if (cap < CONNECT_REQUEST_SIZE)
            return TEMPO_E_FULL;
        n = connect_request_write(buf, c->protocol_id, c->slots, c->sealed ? c->token : NULL,
                                  c->nonce);
        if (n > 0)
            c->stats.requests++;
    } else {
        n = connect_response_write(buf, cap, c->protocol_id, c->sealed ? c->keys.send_key : NULL,
                                   c->next_sequence, c->ciphers, c->cookie);
        if (n > 0) {
            if (c->sealed)
                c->next_sequence++;
            c->stats.responses++;
        }
    }
    if (n > 0) {
        c->sent_any = true;
        c->send_now = false;
        c->last_send_us = now_us;
    }
    return n;
}

static gate_client_event ignore(gate_client *c, bool forged)
{
    c->stats.ignored++;
    if (forged)
        c->stats.forged++;
    return GATE_CLIENT_NOTHING;
}

gate_client_event gate_client_on_datagram(gate_client *c, uint64_t now_us,
                                          const tempo_address *from, const uint8_t *data,
                                          size_t size)
{
    if (c == NULL || from == NULL)
        return GATE_CLIENT_NOTHING;
    (void)gate_client_update(c, now_us); /* nothing is taken after the timeout */
    uint8_t type;
    bool sealed_bit;
    if (!handshaking(c) || !tempo_address_equal(from, &c->server) ||
        connect_peek(data, size, c->protocol_id, &type, &sealed_bit) != CONNECT_OK)
        return ignore(c, false);
    uint64_t seq, id;
    if (type == CONNECT_TYPE_CHALLENGE) {
        uint8_t cookie[COOKIE_SEALED_SIZE];
        uint8_t offer;
        connect_refusal why = connect_challenge_read(
            data, size, c->sealed ? c->token_keys.recv_key : NULL, &seq, &id, &offer, cookie);
        if (why == CONNECT_OK && !c->sealed && id != c->nonce)
            why = CONNECT_FORGED; /* an answer to someone else's request */
        if (why == CONNECT_OK && c->sealed && c->state == GATE_CLIENT_RESPONDING)
            why = CONNECT_UNEXPECTED; /* the connection's keys come from the one we hold */
        uint8_t cipher = seal_choose(c->ciphers, offer);
        if (why == CONNECT_OK && c->sealed && cipher == 0) {
            /* the server's offer (authentic: it opened under the token's
             * key) and ours share none: no retry can change that */
            seal_wipe(cookie, sizeof cookie);
            c->stats.no_cipher++;
            c->state = GATE_CLIENT_DENIED;
            return GATE_CLIENT_GOT_DENIED;
        }
        if (why != CONNECT_OK) {
            seal_wipe(cookie, sizeof cookie);
            return ignore(c, why == CONNECT_FORGED || why == CONNECT_WRONG_MODE);
        }
        if (c->sealed) { /* this challenge's connection keys (connect.h) */
            uint8_t c2s[TEMPO_KEY_SIZE], s2c[TEMPO_KEY_SIZE];
            int rc = connect_connection_keys(c->token_keys.send_key, c->token_keys.recv_key,
                                             seq, c2s, s2c);
            if (rc == TEMPO_OK)
                rc = seal_keys_set(&c->keys, c2s, s2c, SEAL_DIRECTION_LOW);
            if (rc == TEMPO_OK)
                rc = seal_keys_use(&c->keys, cipher);
            seal_wipe(c2s, sizeof c2s);
            seal_wipe(s2c, sizeof s2c);
            if (rc != TEMPO_OK) { /* cannot happen: init started libsodium */
                seal_wipe(cookie, sizeof cookie);
                return ignore(c, false);
            }
        }
        memcpy(c->cookie, cookie, sizeof cookie);
        seal_wipe(cookie, sizeof cookie);
        c->challenge_sequence = seq;
        c->client_id = id;
        c->state = GATE_CLIENT_RESPONDING;
        c->send_now = true;
        c->stats.challenges++;
        return GATE_CLIENT_CHALLENGED;
    }
    if (type == CONNECT_TYPE_DENIED && c->state == GATE_CLIENT_RESPONDING) {
        connect_refusal why =
            connect_denied_read(data, size, c->sealed ? c->keys.recv_key : NULL, &seq, &id);
        if (why == CONNECT_OK && (c->sealed ? seq <= c->challenge_sequence : id != c->nonce))
            why = CONNECT_FORGED; /* older than our challenge, or not ours */
        if (why != CONNECT_OK)
            return ignore(c, why == CONNECT_FORGED || why == CONNECT_WRONG_MODE);
        c->state = GATE_CLIENT_DENIED;
        return GATE_CLIENT_GOT_DENIED;
    }
    return ignore(c, false);
}

int gate_client_connected(gate_client *c)
{
    if (c == NULL || c->state != GATE_CLIENT_RESPONDING)
        return TEMPO_E_STATE;
    c->state = GATE_CLIENT_CONNECTED;
    return TEMPO_OK;
}

void gate_client_wipe(gate_client *c)
{
    seal_wipe(c, sizeof *c);
}
