/* SPDX-License-Identifier: MIT */
/*
 * address.c — tempo_address as text: parse and format (the OS's inet
 * functions convert IPv6). Comparing and building values needs no OS and
 * is the wire layer's (wire/address.c), where tokens and cookies bind to
 * addresses.
 *
 * Parsing is strict and never looks a name up: IPv4 is exactly four decimal
 * octets (0..255, no leading zeros, no other forms such as "127.1") and a
 * port; IPv6 is what inet_pton accepts (no zone ids), either bracketed with a
 * port or bare without one; an opaque id is "id:" and 2..32 hex digits (an
 * even count), then optionally ":port". A failed parse leaves *out all zero
 * (family NONE). Only an opaque address's first id_size bytes mean anything;
 * the rest stay zero, so equal addresses are also equal bytes.
 */
#include "base/common.h"
#include "tempo/transport.h"

#ifdef _WIN32
/* inet_pton and inet_ntop of ws2_32 (Vista and later); they convert text
 * only, and their documented errors do not include an unstarted Winsock. */
#include <winsock2.h>
#include <ws2tcpip.h>
#else
#include <arpa/inet.h>
#include <netinet/in.h>
#endif
#include <stdio.h>
#include <string.h>

/* Parse 1..max_digits decimal digits at *p into a value <= max. A leading
 * zero is allowed only for the value 0 itself, so "01" and "00" are rejected:
 * such forms mean octal to some parsers. Advances *p past the digits. */
static bool parse_decimal(const char **p, int max_digits, uint32_t max, uint32_t *out)
{
    const char *s = *p;
    uint32_t v = 0;
    int n = 0;
    while (s[n] >= '0' && s[n] <= '9') {
        if (n == max_digits)
            return false;
        v = v * 10u + (uint32_t)(s[n] - '0');
        n++;
    }
    if (n == 0 || (n > 1 && s[0] == '0') || v > max)
        return false;
    *p = s + n;
    *out = v;
    return true;
}

/* ":port" ending the text. */
static bool parse_port_suffix(const char *s, uint16_t *port)
{
    uint32_t v;
    if (*s++ != ':' || !parse_decimal(&s, 5, 65535u, &v) || *s != '\0')
        return false;
    *port = (uint16_t)v;
    return true;
}

static bool parse_ipv4(const char *s, tempo_address *out)
{
    for (int i = 0; i < 4; i++) {
        uint32_t octet;
        if (i > 0 && *s++ != '.')
            return false;
        if (!parse_decimal(&s, 3, 255u, &octet))
            return false;
        out->bytes[i] = (uint8_t)octet;
    }
    out->family = TEMPO_ADDRESS_IPV4;
    return parse_port_suffix(s, &out->port);
}

/* IPv6 text of `len` characters at s (not terminated there). */
static bool parse_ipv6_bytes(const char *s, size_t len, tempo_address *out)
{
    char tmp[INET6_ADDRSTRLEN];
    if (len == 0 || len >= sizeof tmp)
        return false;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    struct in6_addr a;
    if (inet_pton(AF_INET6, tmp, &a) != 1)
        return false;
    memcpy(out->bytes, a.s6_addr, 16);
    out->family = TEMPO_ADDRESS_IPV6;
    return true;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* "0123abcd" or "0123abcd:port" after the "id:" prefix. */
static bool parse_opaque(const char *s, tempo_address *out)
{
    size_t n = 0;
    while (hex_digit(s[2 * n]) >= 0 && hex_digit(s[2 * n + 1]) >= 0) {
        if (n == TEMPO_ADDRESS_ID_MAX)
            return false;
        out->bytes[n] = (uint8_t)(hex_digit(s[2 * n]) << 4 | hex_digit(s[2 * n + 1]));
        n++;
    }
    s += 2 * n;
    if (n == 0 || (*s != '\0' && !parse_port_suffix(s, &out->port)))
        return false;
    out->family = TEMPO_ADDRESS_OPAQUE;
    out->id_size = (uint8_t)n;
    return true;
}

int tempo_address_parse(tempo_address *out, const char *text)
{
    if (!out || !text)
        return TEMPO_E_INVALID_ARG;
    memset(out, 0, sizeof *out);
    bool ok;
    if (strncmp(text, "id:", 3) == 0) {
        ok = parse_opaque(text + 3, out);
    } else if (text[0] == '[') {
        const char *close = strchr(text, ']');
        ok = close && parse_ipv6_bytes(text + 1, (size_t)(close - text - 1), out) &&
             parse_port_suffix(close + 1, &out->port);
    } else if (strchr(text, ':') != strrchr(text, ':')) {
        /* Two or more colons: a bare IPv6 address, port 0. */
        ok = parse_ipv6_bytes(text, strlen(text), out);
    } else {
        ok = parse_ipv4(text, out);
    }
    if (!ok) {
        memset(out, 0, sizeof *out);
        return TEMPO_E_ADDRESS;
    }
    return TEMPO_OK;
}

int tempo_address_format(const tempo_address *a, char *buf, size_t size)
{
    if (!a || !buf)
        return TEMPO_E_INVALID_ARG;
    char tmp[TEMPO_ADDRESS_STRLEN];
    int n;
    if (a->family == TEMPO_ADDRESS_IPV4) {
        n = snprintf(tmp, sizeof tmp, "%u.%u.%u.%u:%u", a->bytes[0], a->bytes[1], a->bytes[2],
                     a->bytes[3], (unsigned)a->port);
    } else if (a->family == TEMPO_ADDRESS_IPV6) {
        char host[INET6_ADDRSTRLEN];
        struct in6_addr in6;
        memcpy(in6.s6_addr, a->bytes, 16);
        if (!inet_ntop(AF_INET6, &in6, host, sizeof host))
            return TEMPO_E_ADDRESS;
        n = snprintf(tmp, sizeof tmp, "[%s]:%u", host, (unsigned)a->port);
    } else if (a->family == TEMPO_ADDRESS_OPAQUE) {
        if (a->id_size == 0 || a->id_size > TEMPO_ADDRESS_ID_MAX)
            return TEMPO_E_INVALID_ARG;
        n = snprintf(tmp, sizeof tmp, "id:");
        for (int i = 0; i < a->id_size; i++)
            n += snprintf(tmp + n, sizeof tmp - (size_t)n, "%02x", a->bytes[i]);
        if (a->port != 0)
            n += snprintf(tmp + n, sizeof tmp - (size_t)n, ":%u", (unsigned)a->port);
    } else if (a->family == TEMPO_ADDRESS_NONE) {
        n = snprintf(tmp, sizeof tmp, "none");
    } else {
        return TEMPO_E_INVALID_ARG;
    }
    TEMPO_ASSERT(n > 0 && (size_t)n < sizeof tmp);
    if ((size_t)n >= size) {
        if (size > 0) {
            memcpy(buf, tmp, size - 1);
            buf[size - 1] = '\0';
        }
        return TEMPO_E_FULL;
    }
    memcpy(buf, tmp, (size_t)n + 1);
    return n;
}
