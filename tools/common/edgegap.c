/* SPDX-License-Identifier: MIT */
/*
 * edgegap.c — a deployment's self-stop on Edgegap (edgegap.h).
 */
#include "edgegap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_conn.h"
#include "platform.h"

static bool has_control(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return true;
    return false;
}

bool edgegap_from_env(edgegap_stop *out, const char *program)
{
    memset(out, 0, sizeof *out);
    const char *url = getenv("ARBITRIUM_DELETE_URL");
    const char *token = getenv("ARBITRIUM_DELETE_TOKEN");
    if (!url || !*url)
        return false;
    if (!token)
        token = "";
    if (strlen(url) >= sizeof out->url || strlen(token) >= sizeof out->token ||
        has_control(url) || has_control(token) ||
        (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)) {
        fprintf(stderr,
                "%s: ARBITRIUM_DELETE_URL or ARBITRIUM_DELETE_TOKEN is not usable (want an "
                "http:// or https:// URL under %zu bytes, a token under %zu, no control "
                "characters): the deployment will not stop itself\n",
                program, sizeof out->url, sizeof out->token);
        return false;
    }
    snprintf(out->url, sizeof out->url, "%s", url);
    snprintf(out->token, sizeof out->token, "%s", token);
    return true;
}

/* http://host[:port][/path]: "host:port" for platform_resolve, the Host
 * header and the path. */
static bool split_url(const char *url, char *hostport, size_t hp_size, char *host, size_t h_size,
                      const char **path)
{
    const char *h = url + 7;
    const char *slash = strchr(h, '/');
    size_t hl = slash ? (size_t)(slash - h) : strlen(h);
    if (hl == 0 || hl >= h_size || hl + 4 >= hp_size || memchr(h, '@', hl))
        return false;
    memcpy(host, h, hl);
    host[hl] = '\0';
    *path = slash ? slash : "/";
    const char *close = strrchr(host, ']');
    const char *colon = strrchr(host, ':');
    bool has_port = colon && (!close || colon > close);
    snprintf(hostport, hp_size, has_port ? "%s" : "%s:80", host);
    return true;
}

static bool call_http(const edgegap_stop *e, const char *program, int timeout_ms)
{
    char hostport[300], host[260];
    const char *path;
    if (!split_url(e->url, hostport, sizeof hostport, host, sizeof host, &path)) {
        fprintf(stderr, "%s: edgegap: cannot read the host of ARBITRIUM_DELETE_URL\n", program);
        return false;
    }
    tempo_address to;
    char why[160];
    if (!platform_resolve(hostport, TEMPO_ADDRESS_NONE, &to, why, sizeof why)) {
        fprintf(stderr, "%s: edgegap: ARBITRIUM_DELETE_URL: %s\n", program, why);
        return false;
    }
    http_conn c;
    if (!http_conn_init(&c, &to, host, 4096, (uint32_t)timeout_ms)) {
        fprintf(stderr, "%s: edgegap: out of memory\n", program);
        return false;
    }
    char headers[600];
    snprintf(headers, sizeof headers, "authorization: %s\r\n", e->token);
    bool ok = false;
    uint64_t now = platform_now_us();
    if (!http_conn_request(&c, "DELETE", path, headers, NULL, 0, false, now)) {
        fprintf(stderr, "%s: edgegap: the DELETE request is too long\n", program);
    } else {
        for (;;) {
            http_event ev = http_conn_step(&c, platform_now_us());
            if (ev == HTTP_RESPONSE) {
                ok = c.status >= 200 && c.status < 300;
                fprintf(stderr, "%s: edgegap: DELETE %s: HTTP %d%s\n", program, path, c.status,
                        ok ? ": the deployment stops" : "");
                break;
            }
            if (ev == HTTP_FAILED) {
                fprintf(stderr, "%s: edgegap: DELETE %s failed: %s\n", program, path, c.why);
                break;
            }
            platform_sleep_until_us(platform_now_us() + 5000u);
        }
    }
    http_conn_free(&c);
    return ok;
}

static bool call_curl(const edgegap_stop *e, const char *program, int timeout_ms)
{
    /* curl's config syntax: the header line quoted, '"' and '\' escaped */
    char config[1200];
    size_t n = (size_t)snprintf(config, sizeof config, "header = \"authorization: ");
    for (const char *p = e->token; *p && n + 4 < sizeof config; p++) {
        if (*p == '"' || *p == '\\')
            config[n++] = '\\';
        config[n++] = *p;
    }
    n += (size_t)snprintf(config + n, sizeof config - n, "\"\n");
    char seconds[16];
    snprintf(seconds, sizeof seconds, "%d", timeout_ms / 1000 > 0 ? timeout_ms / 1000 : 1);
    char url[sizeof e->url];
    snprintf(url, sizeof url, "%s", e->url);
    char *argv[] = {"curl",   "--silent", "--show-error", "--fail", "--max-time", seconds,
                    "--request", "DELETE", "--config", "-", url, NULL};
    char why[200];
    int rc = platform_run(argv, config, n, timeout_ms + 2000, why, sizeof why);
    memset(config, 0, sizeof config);
    if (rc == 0) {
        fprintf(stderr, "%s: edgegap: DELETE sent: the deployment stops\n", program);
        return true;
    }
    if (rc < 0)
        fprintf(stderr, "%s: edgegap: %s (an https ARBITRIUM_DELETE_URL needs curl in the image)\n",
                program, why);
    else
        fprintf(stderr, "%s: edgegap: curl exited %d: the DELETE failed\n", program, rc);
    return false;
}

bool edgegap_call(const edgegap_stop *e, const char *program, int timeout_ms)
{
    if (!e->url[0])
        return false;
    if (strncmp(e->url, "https://", 8) == 0)
        return call_curl(e, program, timeout_ms);
    return call_http(e, program, timeout_ms);
}
