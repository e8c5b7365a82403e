/* SPDX-License-Identifier: MIT */
/*
 * tempo_token.c — mint connect tokens from a key file, for tests and LAN
 * play (a real game's backend calls tempo_token_create itself).
 *
 *   tempo-token --key-file F --new-key
 *       write a new random 32-byte private key to F (never over a file
 *       that exists)
 *   tempo-token --key-file F --client-id N --server HOST:PORT [--server ...]
 *               --expire-seconds S [--protocol-id P] [--now T] --out FILE
 *       write a TEMPO_TOKEN_SIZE-byte token for client N, valid for S
 *       seconds from now, naming the servers in the order given
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

#include "options.h"
#include "platform.h"
#include "tempo/secure.h"

typedef struct options {
    const char *key_file, *out, *show;
    bool new_key;
    uint64_t client_id, protocol_id, now;
    int expire_seconds;
    int nservers;
    tempo_address servers[TEMPO_TOKEN_MAX_SERVERS];
} options;

static bool parse_server(void *field, const char *value, char *why, size_t why_size)
{
    options *o = field;
    if (o->nservers == TEMPO_TOKEN_MAX_SERVERS) {
        snprintf(why, why_size, "a token names at most %d servers", TEMPO_TOKEN_MAX_SERVERS);
        return false;
    }
    tempo_address a;
    if (!platform_resolve(value, TEMPO_ADDRESS_NONE, &a, why, why_size))
        return false;
    if (a.port == 0) {
        snprintf(why, why_size, "port 0: want the server's port, 1..65535");
        return false;
    }
    o->servers[o->nservers++] = a;
    return true;
}

#define FIELD(f) offsetof(options, f)
static const option_spec token_specs[] = {
    {.name = "key-file", .kind = OPTION_TEXT, .value = "F", .offset = FIELD(key_file),
     .help = "the backend's private key: exactly 32 bytes"},
    {.name = "new-key", .kind = OPTION_FLAG, .offset = FIELD(new_key),
     .help = "write a new random key to --key-file and stop"},
    {.name = "client-id", .kind = OPTION_U64, .value = "N", .offset = FIELD(client_id),
     .range = "0..2^64-1", .help = "the client the token is for"},
    {.name = "server", .kind = OPTION_CUSTOM, .value = "HOST:PORT", .offset = 0,
     .parse = parse_server, .flags = OPTION_REPEAT, .range = "HOST a name, a.b.c.d or [v6]; 1..8 times",
     .help = "a server the client may try; once per server,\nin the order to try them"},
    {.name = "expire-seconds", .kind = OPTION_INT, .value = "S", .offset = FIELD(expire_seconds),
     .min = 1, .max = 365 * 86400, .help = "how long the token stays valid"},
    {.name = "protocol-id", .kind = OPTION_U64, .value = "P", .offset = FIELD(protocol_id),
     .range = "0..2^64-1", .help = "the game's protocol id, default 0"},
    {.name = "now", .kind = OPTION_U64, .value = "T", .offset = FIELD(now), .range = "0..2^64-1",
     .help = "the time the token is made (or checked) at,\nUnix seconds; default the system's"},
    {.name = "out", .kind = OPTION_TEXT, .value = "FILE", .offset = FIELD(out),
     .help = "where to write the token"},
    {.name = "show", .kind = OPTION_TEXT, .value = "FILE", .offset = FIELD(show),
     .help = "print the token in FILE (its private part too\nwhen --key-file is given)"},
};

static const option_command token_command = {
    .program = "tempo-token",
    .synopsis = "  Mint connect tokens for tests and LAN play (docs/SECURITY.md).",
    .specs = token_specs,
    .count = (int)(sizeof token_specs / sizeof token_specs[0]),
    .epilogue = "examples:\n"
                "  tempo-token --key-file backend.key --new-key\n"
                "  tempo-token --key-file backend.key --client-id 7 --server 127.0.0.1:7001 \\\n"
                "              --expire-seconds 300 --out token.bin\n"
                "exit: 0 done, 1 error, 2 usage\n",
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

static int mint(const options *o)
{
    uint8_t key[TEMPO_KEY_SIZE], token[TEMPO_TOKEN_SIZE];
    if (!read_exact(o->key_file, key, sizeof key, "key file"))
        return 1;
    uint64_t expire = o->now + (uint64_t)o->expire_seconds;
    int rc = tempo_token_create(key, o->protocol_id, o->client_id, expire, o->now, o->servers,
                                o->nservers, NULL, token);
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
    if (!read_exact(o->key_file, key, sizeof key, "key file"))
        return 1;
    tempo_token_private priv;
    rc = tempo_token_open_private(key, o->protocol_id, o->now, NULL, token, sizeof token, &priv);
    tempo_wipe(key, sizeof key);
    tempo_wipe(token, sizeof token);
    if (rc != TEMPO_OK)
        return fail("private part refused", rc);
    printf("client %" PRIu64 "\n", priv.client_id);
    tempo_wipe(&priv, sizeof priv);
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    memset(&o, 0, sizeof o);
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
    if (!options_given(c, given, "client-id") || o.nservers == 0 ||
        !options_given(c, given, "expire-seconds") || o.out == NULL)
        return options_error(c, "a token needs --client-id, --server, --expire-seconds and --out");
    return mint(&o);
}
