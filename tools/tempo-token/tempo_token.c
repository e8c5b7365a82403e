/* SPDX-License-Identifier: MIT */
/*
 * tempo_token.c — mint connect tokens from a key file, for tests and LAN
 * play (a real game's backend calls tempo_token_create itself).
 *
 *   tempo-token --key-file F --new-key
 *       write a new random 32-byte private key to F (never over a file
 *       that exists)
 *   tempo-token --key-file F --client-id N --connect HOST:PORT [--connect ...]
 *               [--expire-seconds S] [--protocol-id P] [--now T] --out FILE
 *       write a TEMPO_TOKEN_SIZE-byte token for client N, valid for S
 *       seconds from now (default an hour), naming the servers in the
 *       order given
 *   ... --match ID --players N --player I[,J...] [--input-size B] [--fps F]
 *       the same, for a relay member: the token's user data is the join
 *       (tempo_relay_join_write) naming relay match ID and the member's
 *       players
 *   tempo-token --show FILE [--key-file F] [--protocol-id P] [--now T]
 *       print a token's public part and, with the key, open its private part
 *
 * "now" is the system's Unix time unless --now gives one, so tokens made
 * here agree with servers that pass Unix time to tempo_token_open_private.
 * Host names are looked up once, here: the token holds addresses.
 *
 * Exit codes: 0 done, 1 runtime error (a file, the library), 2 usage error.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "keyfile.h"
#include "options.h"
#include "platform.h"
#include "tempo/relay.h"
#include "tempo/secure.h"

typedef struct options {
    const char *key_file, *out, *show;
    bool new_key;
    uint64_t client_id, protocol_id, now;
    int expire_seconds;
    int nservers;
    tempo_address servers[TEMPO_TOKEN_MAX_SERVERS];
    uint64_t match;             /* a relay join: the match id, 0 none */
    int players, input_size, fps;
    uint32_t slots;             /* --player: the member's players */
    bool p2p;                   /* --p2p: a peer-to-peer match the relay introduces */
} options;

/* --player I[,J...]: the member's players. */
static bool parse_players(void *field, const char *value, char *why, size_t why_size)
{
    options *o = field;
    return options_player_list(value, TEMPO_MAX_PLAYERS, &o->slots, why, why_size);
}

static bool parse_server(void *field, const char *value, char *why, size_t why_size)
{
    options *o = field;
    if (o->nservers == TEMPO_TOKEN_MAX_SERVERS) {
        snprintf(why, why_size, "a token names at most %d servers", TEMPO_TOKEN_MAX_SERVERS);
        return false;
    }
    tempo_address a;
    if (!platform_resolve_port(value, "server's or relay", &a, why, why_size))
        return false;
    o->servers[o->nservers++] = a;
    return true;
}

#define FIELD(f) offsetof(options, f)
static const option_spec token_specs[] = {
    {.name = "key-file", .kind = OPTION_TEXT, .value = "F", .offset = FIELD(key_file),
     .help = "the backend's private key: 32 raw bytes or 64\nhex digits"},
    {.name = "new-key", .kind = OPTION_FLAG, .offset = FIELD(new_key),
     .help = "write a new random key to --key-file and stop"},
    {.name = "client-id", .kind = OPTION_U64, .value = "N", .offset = FIELD(client_id),
     .range = "0..2^64-1", .help = "the client the token is for"},
    {.name = "connect", .kind = OPTION_CUSTOM, .value = "HOST:PORT", .offset = 0,
     .parse = parse_server, .flags = OPTION_REPEAT, .range = "HOST a name, a.b.c.d or [v6]; 1..8 times",
     .help = "a server (or relay) the token admits to, as it\nnames itself; once per server, in the "
             "order\nto try them"},
    {.name = "expire-seconds", .kind = OPTION_INT, .value = "S", .offset = FIELD(expire_seconds),
     .min = 1, .max = 365 * 86400, .help = "how long the token stays valid, default 3600"},
    {.name = "protocol-id", .kind = OPTION_U64, .value = "ID", .offset = FIELD(protocol_id),
     .range = "0..2^64-1",
     .help = "the game's protocol id, default 1 (tempo-pong's\nand tempo-relay's)"},
    {.name = "now", .kind = OPTION_U64, .value = "T", .offset = FIELD(now), .range = "0..2^64-1",
     .help = "the time the token is made (or checked) at,\nUnix seconds; default the system's"},
    {.name = "match", .kind = OPTION_U64, .value = "ID", .offset = FIELD(match), .min = 1,
     .range = "1..2^64-1",
     .help = "a relay member's token: the relay match it joins\n(with --players and --player)"},
    {.name = "players", .kind = OPTION_INT, .value = "N", .offset = FIELD(players), .min = 1,
     .max = TEMPO_MAX_PLAYERS, .help = "--match: players in the match"},
    {.name = "player", .kind = OPTION_CUSTOM, .value = "I[,J...]", .parse = parse_players,
     .range = "players below --players", .flags = OPTION_REPEAT,
     .help = "--match: the member's players"},
    {.name = "input-size", .kind = OPTION_INT, .value = "B", .offset = FIELD(input_size), .min = 1,
     .max = TEMPO_MAX_INPUT_SIZE,
     .help = "--match: bytes of a player's input, default 4\n(tempo-arena's)"},
    {.name = "fps", .kind = OPTION_INT, .value = "F", .offset = FIELD(fps), .min = 1, .max = 1000,
     .help = "--match: frames a second, default 60"},
    {.name = "p2p", .kind = OPTION_FLAG, .offset = FIELD(p2p),
     .help = "--match: a peer-to-peer match the relay introduces\n(its members punch through "
             "their NATs,\ndocs/NAT.md), not frames through the relay"},
    {.name = "out", .kind = OPTION_TEXT, .value = "FILE", .offset = FIELD(out),
     .help = "where to write the token"},
    {.name = "show", .kind = OPTION_TEXT, .value = "FILE", .offset = FIELD(show),
     .help = "print the token in FILE (its private part too\nwhen --key-file is given)"},
};

static const option_alias token_aliases[] = {{"server", "connect"}};

static const option_command token_command = {
    .program = "tempo-token",
    .synopsis = "  Mint connect tokens for tests and LAN play (docs/SECURITY.md).",
    .specs = token_specs,
    .count = (int)(sizeof token_specs / sizeof token_specs[0]),
    .epilogue = "examples:\n"
                "  tempo-token --key-file backend.key --new-key\n"
                "  tempo-token --key-file backend.key --client-id 7 --connect 127.0.0.1:7001 \\\n"
                "              --out token.bin\n"
                "a tempo-arena member of relay match 5, player 1 of 3:\n"
                "  tempo-token --key-file backend.key --client-id 1 --connect 127.0.0.1:40000 \\\n"
                "              --match 5 --players 3 --player 1 --out t1\n"
                "the same, peer to peer (tempo-arena --relay ... --token-file t1 punches\n"
                "through NATs, the relay forwarding for pairs that cannot):\n"
                "  tempo-token --key-file backend.key --client-id 1 --connect 127.0.0.1:40000 \\\n"
                "              --match 5 --players 3 --player 1 --p2p --out t1\n"
                "exit: 0 done, 1 error, 2 usage\n",
    .aliases = token_aliases,
    .alias_count = (int)(sizeof token_aliases / sizeof token_aliases[0]),
};

/* Read exactly size bytes from path; false (after a message) otherwise. */
static bool read_exact(const char *path, uint8_t *buf, size_t size, const char *what)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "tempo-token: cannot open %s %s\n", what, path);
        return false;
    }
    size_t n = fread(buf, 1, size, f);
    int extra = fgetc(f);
    fclose(f);
    if (n != size || extra != EOF) {
        fprintf(stderr, "tempo-token: %s %s is not exactly %zu bytes\n", what, path, size);
        return false;
    }
    return true;
}

static bool write_all(const char *path, const char *mode, const uint8_t *buf, size_t size)
{
    FILE *f = fopen(path, mode);
    if (f == NULL) {
        fprintf(stderr, "tempo-token: cannot create %s%s\n", path,
                mode[2] == 'x' ? " (it may exist already)" : "");
        return false;
    }
    bool ok = fwrite(buf, 1, size, f) == size;
    ok = fclose(f) == 0 && ok;
    if (!ok)
        fprintf(stderr, "tempo-token: cannot write %s\n", path);
    return ok;
}

static int fail(const char *what, int rc)
{
    fprintf(stderr, "tempo-token: %s: %s\n", what, tempo_strerror(rc));
    return 1;
}

static void print_servers(const tempo_address *s, int n)
{
    for (int i = 0; i < n; i++) {
        char text[TEMPO_ADDRESS_STRLEN];
        tempo_address_format(&s[i], text, sizeof text);
        printf("%s%s", i ? ", " : "", text);
    }
    printf("\n");
}

static int new_key(const options *o)
{
    uint8_t key[TEMPO_KEY_SIZE];
    int rc = tempo_key_generate(key);
    if (rc != TEMPO_OK)
        return fail("no key", rc);
    bool ok = write_all(o->key_file, "wbx", key, sizeof key);
    tempo_wipe(key, sizeof key);
    if (ok)
        printf("tempo-token: new key in %s (keep it secret: it makes tokens)\n", o->key_file);
    return ok ? 0 : 1;
}

static bool read_key(const char *path, uint8_t key[TEMPO_KEY_SIZE])
{
    char why[128];
    if (key_read_file(path, key, why, sizeof why))
        return true;
    fprintf(stderr, "tempo-token: --key-file %s: %s\n", path, why);
    return false;
}

static int mint(const options *o)
{
    uint8_t key[TEMPO_KEY_SIZE], token[TEMPO_TOKEN_SIZE];
    uint8_t user[TEMPO_TOKEN_USER_DATA_SIZE];
    memset(user, 0, sizeof user);
    if (o->match) {
        tempo_relay_join j = {o->match, (uint8_t)o->slots, o->players, o->input_size, o->fps, 0, 0,
                              o->p2p};
        int rj = tempo_relay_join_write(&j, user);
        if (rj != TEMPO_OK)
            return fail("no relay join", rj);
    }
    if (!read_key(o->key_file, key))
        return 1;
    uint64_t expire = o->now + (uint64_t)o->expire_seconds;
    int rc = tempo_token_create(key, o->protocol_id, o->client_id, expire, o->now, o->servers,
                                o->nservers, user, token);
    tempo_wipe(key, sizeof key);
    if (rc != TEMPO_OK)
        return fail("no token", rc);
    bool ok = write_all(o->out, "wb", token, sizeof token);
    tempo_wipe(token, sizeof token);
    if (!ok)
        return 1;
    printf("tempo-token: %s: client %" PRIu64 ", protocol 0x%016" PRIx64 ", valid until %" PRIu64
           " (%d s), servers ",
           o->out, o->client_id, o->protocol_id, expire, o->expire_seconds);
    print_servers(o->servers, o->nservers);
    if (o->match)
        printf("tempo-token: %s: relay match %" PRIu64 ", players mask 0x%02" PRIx32 " of %d, %d-byte "
               "inputs, %d frames a second%s\n",
               o->out, o->match, o->slots, o->players, o->input_size, o->fps,
               o->p2p ? ", peer to peer" : "");
    return 0;
}

static int show(const options *o)
{
    uint8_t token[TEMPO_TOKEN_SIZE];
    if (!read_exact(o->show, token, sizeof token, "token"))
        return 1;
    tempo_token_public pub;
    int rc = tempo_token_read_public(token, sizeof token, &pub);
    if (rc != TEMPO_OK)
        return fail("not a token", rc);
    printf("protocol 0x%016" PRIx64 "\ncreated %" PRIu64 "\nexpires %" PRIu64 "\nservers ",
           pub.protocol_id, pub.create_seconds, pub.expire_seconds);
    print_servers(pub.servers, pub.num_servers);
    tempo_wipe(&pub, sizeof pub);
    if (o->key_file == NULL)
        return 0;
    uint8_t key[TEMPO_KEY_SIZE];
    if (!read_key(o->key_file, key))
        return 1;
    tempo_token_private priv;
    rc = tempo_token_open_private(key, o->protocol_id, o->now, NULL, token, sizeof token, &priv);
    tempo_wipe(key, sizeof key);
    tempo_wipe(token, sizeof token);
    if (rc != TEMPO_OK)
        return fail("private part refused", rc);
    printf("client %" PRIu64 "\n", priv.client_id);
    tempo_relay_join j;
    if (tempo_relay_join_read(priv.user_data, &j) == TEMPO_OK)
        printf("relay match %" PRIu64 "\nplayers mask 0x%02x of %d\ninput size %d\nframes a second %d\n",
               j.match_id, (unsigned)j.slots, j.num_players, j.input_size, j.frames_per_second);
    tempo_wipe(&priv, sizeof priv);
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    memset(&o, 0, sizeof o);
    o.protocol_id = 1;
    o.expire_seconds = 3600;
    o.input_size = 4;
    o.fps = 60;
    uint64_t given;
    option_status st = options_parse(&token_command, argc, argv, &o, &given);
    if (st == OPTIONS_HELP)
        return 0;
    if (st != OPTIONS_OK)
        return 2;
    if (!options_given(&token_command, given, "now"))
        o.now = (uint64_t)time(NULL);
    const option_command *c = &token_command;
    if (o.show != NULL) {
        if (o.new_key || o.out != NULL || o.nservers > 0)
            return options_error(c, "--show takes only --key-file, --protocol-id and --now");
        return show(&o);
    }
    if (o.key_file == NULL)
        return options_error(c, "--key-file is required");
    if (o.new_key) {
        if (o.out != NULL || o.nservers > 0 || options_given(c, given, "client-id"))
            return options_error(c, "--new-key takes only --key-file");
        return new_key(&o);
    }
    if (!options_given(c, given, "client-id") || o.nservers == 0 || o.out == NULL)
        return options_error(c, "a token needs --client-id, --connect and --out");
    bool join = options_given(c, given, "players") || o.slots || options_given(c, given, "input-size") ||
                options_given(c, given, "fps");
    if ((join || o.p2p) && !o.match)
        return options_error(c, "--players, --player, --input-size, --fps and --p2p make a relay "
                                "member's token: give --match too");
    if (o.match && (!o.players || !o.slots))
        return options_error(c, "--match needs --players N and --player I[,J...]");
    if (o.match && o.slots >> o.players)
        return options_error(c, "--player: want players below --players, 0..%d", o.players - 1);
    return mint(&o);
}
