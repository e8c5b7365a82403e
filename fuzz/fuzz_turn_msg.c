/* SPDX-License-Identifier: MIT */
/*
 * fuzz_turn_msg.c — turn-based lockstep's message decoder against arbitrary
 * data.
 *
 * The input is 1 byte choosing the type (30 + byte % 7: the six messages of
 * turn_msg.h, and 36, which is none of them), then the body. Properties:
 * decoding never touches a byte outside the body (it is copied into an
 * exactly sized buffer, so ASan sees it); a type past TURN_MSG_LAST is
 * always refused as BAD_TYPE; a body that decodes is canonical: encoded
 * again it gives exactly the same bytes, and the lists it names are well
 * formed and lie inside the body.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_target.h"
#include "tempo/base.h"
#include "wire/turn_msg.h"

static turn_msg msg;
static uint8_t again[1 << 17];

static void check_lists(const turn_list *list, int nlists, const uint8_t *body, size_t n)
{
    for (int i = 0; i < nlists; i++) {
        const turn_list *l = &list[i];
        if (!turn_cmds_valid(l->cmds, l->cmds_size, l->count) ||
            (l->cmds_size > 0 && (l->cmds < body || l->cmds_size + (l->cmds - body) > (ptrdiff_t)n)))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t type = (uint8_t)(TURN_MSG_FIRST + data[0] % (TURN_MSG_LAST - TURN_MSG_FIRST + 2));
    size_t n = size - 1;
    uint8_t *body = malloc(n ? n : 1);
    if (body == NULL)
        abort();
    if (n > 0)
        memcpy(body, data + 1, n);
    tempo_drop_reason why;
    if (turn_msg_decode(type, body, n, &msg, &why) == TEMPO_OK) {
        if (why != TEMPO_DROP_NONE || type > TURN_MSG_LAST || msg.type != type)
            abort();
        if (type == TURN_MSG_TURNS)
            check_lists(msg.u.turns.list, msg.u.turns.nlists, body, n);
        if (type == TURN_MSG_RELAY) {
            if (msg.u.relay.final < msg.u.relay.first)
                abort();
            check_lists(msg.u.relay.list, msg.u.relay.nlists, body, n);
        }
        int k = turn_msg_encode(&msg, again, sizeof again);
        if (k < 0 || (size_t)k != n || (n > 0 && memcmp(again, body, n) != 0))
            abort();
    } else if (why == TEMPO_DROP_NONE || (type > TURN_MSG_LAST && why != TEMPO_DROP_BAD_TYPE)) {
        abort();
    }
    free(body);
    return 0;
}
