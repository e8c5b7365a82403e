/* SPDX-License-Identifier: MIT */
/*
 * gate.h — the front door of a server role: the connect handshake, server
 * side and client side, with no socket and no clock (docs/SECURITY.md,
 * "The server handshake"; the bytes are wire/connect.h's).
 *
 *   client                                   server
 *   CONNECT_REQUEST (1024 B: token, or nonce) ->   checks, opens the token,
 *                                                  keeps nothing
 *             <- CHALLENGE (client id, cookie; sealed, server-to-client key)
 *   CHALLENGE_RESPONSE (cookie; sealed,      ->   opens the cookie (its key,
 *   connection's client-to-server key)             this address, fresh),
 *                                                  checks the seal: ADMIT
 *             <- the caller's first datagram, or CONNECT_DENIED (full)
 *
 * The server side keeps no state per stranger: a valid request changes
 * only its statistics and its reply counter, and everything the server
 * needs later travels in the cookie, sealed under a cookie key only it
 * holds, with the client's address and the protocol id as associated
 * data. Only a response carrying a fresh cookie from the address it was
 * issued to, sealed with the connection's client-to-server key, makes the gate
 * report an admission; the caller (the server) allocates then. No reply
 * is ever larger than the datagram it answers.
 *
 * Unsealed mode (no private key; LAN tests, builds without libsodium): the
 * request carries a nonce the client drew instead of a token, the nonce is
 * the client id, nothing is sealed but the cookie (a SipHash-2-4 tag), and
 * no datagram keys exist. A spoofed source still cannot be admitted: the
 * challenge goes to the address it names.
 *
 * Keys and sequences: a CHALLENGE is sealed with the token's
 * server-to-client key and numbered by the server's reply counter (top bit
 * set, started at a point drawn from the cookie key), so no two challenges
 * share a sequence. Everything after it (the response, a denial, the
 * connection) uses that challenge's connection keys
 * (connect_connection_keys): the token's keys derived with the challenge's
 * sequence. So a token used for several connections (the next server of
 * its list, a retry after a denial or a drop) never repeats a nonce,
 * although each connection counts from 0: the client's responses from 0
 * (the connection carries on from gate_client.next_sequence), the
 * server's datagrams to the client from 0, its denial on the reply
 * counter.
 *
 * Ciphers: the CHALLENGE carries the server's offer (encrypted and
 * authenticated under the token's key), the response the client's
 * (authenticated under the connection's key). Each end takes
 * seal_choose of the two for the connection's keys; offers that share no
 * cipher fail the handshake (the client ends DENIED at the challenge,
 * counted in no_cipher; a server counts CONNECT_NO_CIPHER for a response
 * that offers none of its ciphers), and an offer changed on the
 * way fails its tag (forged), so nobody on the path can make the ends
 * disagree or pick a weaker cipher than both offer.
 *
 * Nothing here allocates, reads a clock or keeps a pointer to the
 * caller's memory; one call per datagram. Not thread safe: one gate, one
 * thread.
 */
#ifndef TEMPO_NET_GATE_H
#define TEMPO_NET_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/common.h"
#include "tempo/secure.h"
#include "wire/connect.h"
#include "wire/seal.h"

#define GATE_DEFAULT_COOKIE_LIFETIME_US 10000000u /* 10 s */
#define GATE_DEFAULT_RETRY_US 100000u             /* 100 ms */
#define GATE_DEFAULT_TIMEOUT_US 5000000u          /* 5 s */

/* ---- server side ---------------------------------------------------- */

typedef struct gate_server_config {
    uint64_t protocol_id;       /* the game's; requests for another are refused */
    bool has_private_key;       /* false: unsealed mode */
    uint8_t private_key[TEMPO_KEY_SIZE]; /* the backend's, opens tokens */
    tempo_address self;         /* the address tokens must name; family NONE: not checked */
    uint64_t cookie_lifetime_us; /* 1 .. 60 s; 0: GATE_DEFAULT_COOKIE_LIFETIME_US */
    uint8_t ciphers;            /* the server's offer (SEAL_CIPHER_* bits); 0: seal_offer(AUTO) */
    const char *role;           /* what refusal notes call this end ("server", "relay"); NULL: "server" */
} gate_server_config;

typedef struct gate_server_stats {
    uint64_t refused[CONNECT_REFUSAL_COUNT_]; /* by reason; refused[CONNECT_OK] stays 0 */
    uint64_t challenges;        /* CHALLENGEs written */
    uint64_t admissions;        /* responses reported as GATE_ADMIT (replays included) */
    uint64_t denials;           /* CONNECT_DENIEDs written */
} gate_server_stats;

#define GATE_NOTE_US 10000000u /* a refusal reason is told at most this often */

typedef struct gate_server {
    gate_server_config cfg;
    uint8_t cookie_key[TEMPO_KEY_SIZE];   /* current */
    uint8_t previous_key[TEMPO_KEY_SIZE]; /* accepted until the next rotation */
    bool has_previous;
    uint8_t generation;         /* the current key's number, in every cookie */
    uint64_t reply_sequence;    /* the next reply's (and cookie's) sequence; top bit set */
    gate_server_stats stats;
    /* Refusals an operator should hear of (gate_server_refusal_note): the
     * last datagram's, CONNECT_OK if it was none; by reason, when the
     * next line may be told and how many came since the last. */
    connect_refusal last_told;
    bool last_tokenless;        /* that request came without a token */
    tempo_note notes[CONNECT_REFUSAL_COUNT_];
} gate_server;

/* What the caller learns when a client is admitted. The caller checks
 * whether it already has this client (client_id; address) before it
 * allocates: a copy of a response is admitted again, with the same keys,
 * so a caller that dropped this client must not take a copy arriving
 * within the cookie lifetime as a new connection. keys are ready in sealed
 * mode (the connection's keys, connect_connection_keys: send
 * server-to-client, HIGH; receive client-to-server); the server's own
 * sequences to this client start at 0, and the client's next datagram is
 * numbered above client_sequence. */
typedef struct gate_admit {
    /* keys.cipher is the cipher the two offers agreed (seal_choose). */
    uint64_t client_id;
    tempo_address address;
    uint8_t slots;              /* 1..CONNECT_MAX_SLOTS, as the client asked */
    uint64_t expire_seconds;    /* the token's (0 in unsealed mode) */
    uint64_t client_sequence;   /* the response's sequence (0 unsealed) */
    bool sealed;
    wire_keys keys;             /* wipe with seal_keys_wipe once copied */
    uint8_t user_data[TEMPO_TOKEN_USER_DATA_SIZE]; /* the token's (zero unsealed) */
} gate_admit;

typedef enum gate_outcome {
    GATE_IGNORED = 0,           /* dropped and counted; send nothing */
    GATE_REPLY = 1,             /* send reply[0..*reply_size) to `from` */
    GATE_ADMIT = 2              /* *admit is filled: the caller decides */
} gate_outcome;

/* Set g up. cookie_key: 32 bytes the caller drew at random
 * (tempo_key_generate), copied. Returns TEMPO_OK, or
 *   TEMPO_E_INVALID_ARG  a NULL, cookie_lifetime_us above 60 s, ciphers
 *                        with a bit outside SEAL_CIPHERS_ALL;
 *   TEMPO_E_UNSUPPORTED  a private key in a build without libsodium, an
 *                        AES-256-GCM offer where seal_aes_available() is false. */
int gate_server_init(gate_server *g, const gate_server_config *cfg,
                     const uint8_t cookie_key[TEMPO_KEY_SIZE]);

/* gate_server_init as the server and the relay start theirs, from their
 * public configs' fields (the cookie lifetime default; ciphers, their
 * offer: seal_offer of their cipher setting; role, a static string the
 * refusal notes name this end by); the config made on the way,
 * which held the private key, is wiped. Returns as gate_server_init. */
int gate_server_open(gate_server *g, const char *role, uint64_t protocol_id,
                     bool has_private_key, const uint8_t private_key[TEMPO_KEY_SIZE], const tempo_address *self,
                     uint8_t ciphers, const uint8_t cookie_key[TEMPO_KEY_SIZE]);

/* Handshake datagrams refused, every reason together: what a server's and
 * a relay's statistics show as handshake_refused. */
uint64_t gate_server_refused(const gate_server *g);

/* Start issuing cookies under a new key; the current one is still
 * accepted until the next rotation. Rotate no more often than the cookie
 * lifetime, or fresh cookies die early. */
void gate_server_rotate(gate_server *g, const uint8_t cookie_key[TEMPO_KEY_SIZE]);

/* One datagram from `from` that no connection owns. now_us is the
 * server's clock (cookie ages), now_seconds the clock tokens are dated on.
 * reply: reply_cap bytes (TEMPO_MAX_DATAGRAM is always enough). Returns
 * GATE_REPLY with *reply_size set (never above size), GATE_ADMIT with
 * *admit filled, or GATE_IGNORED; every refusal is counted. */
gate_outcome gate_server_on_datagram(gate_server *g, uint64_t now_us, uint64_t now_seconds,
                                     const tempo_address *from, const uint8_t *data, size_t size,
                                     uint8_t *reply, size_t reply_cap, size_t *reply_size,
                                     gate_admit *admit);

/* After gate_server_on_datagram: whether the datagram was a client's
 * request refused for its token (expired, minted for another server or
 * with another key, or missing where one is needed) or for its protocol
 * id (a client of another game, or one without a token made for an
 * unsealed server): what an operator can fix, not the noise anyone can
 * send; and a line about it is due. Then
 * writes into buf[0..size) one line naming `from` and the reason, and how
 * many such refusals it stands for; at most one line per reason every
 * GATE_NOTE_US (the rest are counted into the next), so a flood cannot
 * flood the log. */
bool gate_server_refusal_note(gate_server *g, uint64_t now_us, const tempo_address *from,
                              char *buf, size_t size);

/* The caller will not take an admitted client (full): write the
 * CONNECT_DENIED for it into buf. Returns its size (32 sealed, 16
 * unsealed), or TEMPO_E_INVALID_ARG, TEMPO_E_FULL (cap). */
int gate_server_deny(gate_server *g, const gate_admit *admit, uint8_t *buf, size_t cap);

/* Wipe every key g holds. */
void gate_server_wipe(gate_server *g);

/* ---- client side ---------------------------------------------------- */

typedef enum gate_client_state {
    GATE_CLIENT_REQUESTING = 0, /* sending CONNECT_REQUESTs */
    GATE_CLIENT_RESPONDING,     /* challenged: sending CHALLENGE_RESPONSEs */
    GATE_CLIENT_CONNECTED,      /* the caller said the server took us */
    GATE_CLIENT_DENIED,         /* the server is full */
    GATE_CLIENT_TIMED_OUT       /* no answer within the timeout */
} gate_client_state;

typedef enum gate_client_event {
    GATE_CLIENT_NOTHING = 0,    /* ignored (counted) */
    GATE_CLIENT_CHALLENGED,     /* a challenge taken: a response is due now */
    GATE_CLIENT_GOT_DENIED      /* the server refused us, or its cipher offer shares
                                   none with ours (stats.no_cipher): state DENIED */
} gate_client_event;

typedef struct gate_client_config {
    uint64_t protocol_id;
    const uint8_t *token;       /* TEMPO_TOKEN_SIZE bytes (copied), or NULL: unsealed */
    uint64_t nonce;             /* unsealed: the client id, drawn at random by the caller, not 0 */
    tempo_address server;       /* where to connect; replies from elsewhere are ignored */
    uint8_t slots;              /* 1..CONNECT_MAX_SLOTS */
    uint64_t retry_us;          /* between sends, 1 ms .. 10 s; 0: GATE_DEFAULT_RETRY_US */
    uint64_t timeout_us;        /* give up after, 1 ms .. 10 min; 0: GATE_DEFAULT_TIMEOUT_US */
    uint8_t ciphers;            /* the client's offer (SEAL_CIPHER_* bits); 0: seal_offer(AUTO) */
} gate_client_config;

typedef struct gate_client_stats {
    uint64_t requests;          /* CONNECT_REQUESTs written */
    uint64_t responses;         /* CHALLENGE_RESPONSEs written */
    uint64_t challenges;        /* CHALLENGEs taken */
    uint64_t ignored;           /* datagrams refused, forged ones included */
    uint64_t forged;            /* of those: a seal that did not open, the wrong
                                   mode, a plain one naming another client */
    uint64_t no_cipher;         /* challenges whose offer shares no cipher with
                                   ours: the handshake ends DENIED */
} gate_client_stats;

typedef struct gate_client {
    uint64_t protocol_id;
    bool sealed;
    tempo_address server;
    uint8_t slots;
    uint64_t retry_us, timeout_us;
    uint8_t token[TEMPO_TOKEN_CONNECT_SIZE];
    uint64_t nonce;
    uint8_t ciphers;             /* our offer, sent in the response */
    gate_client_state state;
    uint64_t start_us, last_send_us;
    bool sent_any, send_now;
    uint8_t cookie[COOKIE_SEALED_SIZE];
    uint64_t challenge_sequence; /* the challenge taken (sealed) */
    uint64_t client_id;          /* known once challenged */
    uint64_t next_sequence;      /* the client's next sealed datagram */
    wire_keys token_keys;        /* sealed: the token's keys; open CHALLENGEs */
    wire_keys keys;              /* sealed, once challenged: the connection's keys
                                    (send client-to-server, LOW), with the cipher
                                    both offers agreed */
    gate_client_stats stats;
} gate_client;

/* Set c up at now_us (the timeout counts from here). Returns TEMPO_OK, or
 *   TEMPO_E_INVALID_ARG  a NULL, slots or a period out of range, unsealed
 *                        with nonce 0, ciphers with a bit outside
 *                        SEAL_CIPHERS_ALL;
 *   TEMPO_E_MALFORMED    a token whose public part does not read;
 *   TEMPO_E_PROTOCOL     a token made for another protocol id;
 *   TEMPO_E_UNSUPPORTED  a token in a build without libsodium, an
 *                        AES-256-GCM offer where seal_aes_available() is false. */
int gate_client_init(gate_client *c, const gate_client_config *cfg, uint64_t now_us);

/* The state at now_us: REQUESTING or RESPONDING become TIMED_OUT once
 * the timeout has passed since init. */
gate_client_state gate_client_update(gate_client *c, uint64_t now_us);

/* True if a datagram should go out now (the first, a retry, or a
 * response just after a challenge). */
bool gate_client_due(const gate_client *c, uint64_t now_us);

/* Write the datagram of the current state into buf: a CONNECT_REQUEST or
 * a CHALLENGE_RESPONSE (which takes next_sequence). Returns its size, or
 * TEMPO_E_STATE (connected, denied, timed out), TEMPO_E_FULL (cap),
 * TEMPO_E_INVALID_ARG (NULL). */
int gate_client_write(gate_client *c, uint64_t now_us, uint8_t *buf, size_t cap);

/* A datagram from `from` at now_us: a CHALLENGE (taken when it opens;
 * sealed, only the first: the connection's keys come from it) or a
 * CONNECT_DENIED (taken only while responding, and sealed after the
 * challenge, under its connection keys). Anything else, and
 * everything once the timeout has passed, is ignored and counted. */
gate_client_event gate_client_on_datagram(gate_client *c, uint64_t now_us,
                                          const tempo_address *from, const uint8_t *data,
                                          size_t size);

/* The caller opened the server's first datagram with c->keys: the
 * handshake is over (state CONNECTED). TEMPO_E_STATE unless responding. */
int gate_client_connected(gate_client *c);

/* Wipe every key c holds. */
void gate_client_wipe(gate_client *c);

#endif /* TEMPO_NET_GATE_H */
