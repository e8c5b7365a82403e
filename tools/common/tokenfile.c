/* SPDX-License-Identifier: MIT */
/*
 * tokenfile.c — connect tokens from files, and the client's own look at
 * one (tokenfile.h).
 */
#include "tokenfile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

bool token_read_file(const char *program, const char *path, uint8_t token[TEMPO_TOKEN_SIZE])
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: --token-file %s: %s\n", program, path, strerror(errno));
        return false;
    }
    size_t n = fread(token, 1, TEMPO_TOKEN_SIZE, f);
    int extra = fgetc(f);
    fclose(f);
    tempo_token_public pub;
    if (n != TEMPO_TOKEN_SIZE || extra != EOF ||
        tempo_token_read_public(token, TEMPO_TOKEN_SIZE, &pub) != TEMPO_OK) {
        fprintf(stderr, "%s: --token-file %s: not a connect token (want the %d bytes "
                        "tempo-token --out writes)\n",
                program, path, TEMPO_TOKEN_SIZE);
        tempo_wipe(token, TEMPO_TOKEN_SIZE);
        return false;
    }
    tempo_wipe(&pub, sizeof pub);
    return true;
}

/* "90 s", "5 min", "3 h", "2 days": a duration as a person says it. */
static void say_duration(uint64_t s, char *buf, size_t size)
{
    if (s < 120)
        snprintf(buf, size, "%" PRIu64 " s", s);
    else if (s < 7200)
        snprintf(buf, size, "%" PRIu64 " min", s / 60);
    else if (s < 172800)
        snprintf(buf, size, "%" PRIu64 " h", s / 3600);
    else
        snprintf(buf, size, "%" PRIu64 " days", s / 86400);
}

bool token_check(const uint8_t token[TEMPO_TOKEN_SIZE], const tempo_address *server,
                 const uint64_t *protocol_id, uint64_t now_seconds, char *why, size_t size)
{
    why[0] = '\0';
    tempo_token_public pub;
    if (tempo_token_read_public(token, TEMPO_TOKEN_SIZE, &pub) != TEMPO_OK) {
        snprintf(why, size, "it does not read as a connect token");
        return false;
    }
    bool ok = true;
    char d[32];
    if (now_seconds >= pub.expire_seconds) {
        say_duration(now_seconds - pub.expire_seconds, d, sizeof d);
        snprintf(why, size, "it expired %s ago by this machine's clock (tempo-token "
                            "--expire-seconds sets how long one lasts)", d);
        ok = false;
    } else if (pub.create_seconds > now_seconds + 60) {
        say_duration(pub.create_seconds - now_seconds, d, sizeof d);
        snprintf(why, size, "it was made %s in the future by this machine's clock: are the "
                            "clocks apart?", d);
        ok = false;
    }
    bool named = server == NULL;
    for (int i = 0; server && i < pub.num_servers; i++)
        named = named || tempo_address_equal(&pub.servers[i], server);
    if (ok && !named) {
        char want[TEMPO_ADDRESS_STRLEN], has[TEMPO_ADDRESS_STRLEN];
        tempo_address_format(server, want, sizeof want);
        tempo_address_format(&pub.servers[0], has, sizeof has);
        snprintf(why, size, "it names %s%s, not %s: it was minted for another server "
                            "(tempo-token --connect)",
                 has, pub.num_servers > 1 ? " and others" : "", want);
        ok = false;
    }
    if (ok && protocol_id != NULL && pub.protocol_id != *protocol_id) {
        snprintf(why, size, "it is for protocol id %" PRIu64 ", not %" PRIu64
                            " (tempo-token --protocol-id)",
                 pub.protocol_id, *protocol_id);
        ok = false;
    }
    tempo_wipe(&pub, sizeof pub);
    return ok;
}
