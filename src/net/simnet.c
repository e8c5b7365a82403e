/* SPDX-License-Identifier: MIT */
/*
 * simnet.c — the seeded simulated network (see tempo/simnet.h, docs/SIMNET.md).
 *
 * A datagram's fate is decided when it is sent: blackout, loss (independent
 * or Gilbert–Elliott), the bandwidth queue, then a delivery time (latency,
 * jitter, jitter spikes, reordering) for it and for its duplicate. Scheduled
 * datagrams wait in a min-heap keyed by (delivery time, send order); once
 * their time has come they move, in heap order, to their node's ready list,
 * which recv drains. Everything is allocated at create. A datagram injected
 * with a forged source (tempo_simnet_inject) crosses no link: it is due at
 * once and carries its source address with it.
 *
 * Invariants: every packet slot is in exactly one of the free list, the heap
 * or one ready list; ready lists are sorted by (delivery time, send order);
 * each link draws only from its own random stream, so a link's behaviour
 * depends on the seed and its own traffic, never on other links'.
 */
#include "base/common.h"
#include "net/addr_map.h"

#include "tempo/rng.h"
#include "tempo/simnet.h"

#include <string.h>

#define SIMNET_MAX_NODES 1024
#define SIMNET_MAX_IN_FLIGHT (1 << 18)
#define SIMNET_MAX_BLACKOUTS 64
#define SIMNET_DEFAULT_QUEUE_BYTES 65536u
#define SIMNET_NIL UINT32_MAX
#define SIMNET_FORGED UINT16_MAX /* simnet_packet.from of an injected datagram */

typedef struct simnet_link {
    tempo_link_params p;
    tempo_rng rng;
    bool spiking;            /* jitter chain in the spike state */
    bool bad;                /* Gilbert–Elliott chain in the bad state */
    uint64_t floor_us;       /* delivery time of the last in-order datagram */
    uint64_t busy_until_ns;  /* when the bandwidth queue has drained */
    uint64_t next_seq;       /* send sequence on this link */
    uint64_t seq_end;        /* 1 + highest sequence delivered so far */
    tempo_link_stats stats;
} simnet_link;

typedef struct simnet_packet {
    uint64_t deliver_us, sent_us;
    uint64_t order;          /* net-wide send order: breaks delivery ties */
    uint64_t seq;            /* per-link sequence: detects reordering */
    uint32_t next;           /* ready list */
    uint16_t from, to, size; /* from: a node, or SIMNET_FORGED */
    tempo_address src;       /* an injected datagram's claimed source */
} simnet_packet;

typedef struct simnet_node {
    tempo_simnet *net;
    tempo_address addr;
    uint32_t ready_head, ready_tail;
} simnet_node;

typedef struct simnet_blackout {
    int from, to; /* node index, -1 for any */
    uint64_t start_us, end_us;
} simnet_blackout;

struct tempo_simnet {
    tempo_allocator alloc;
    uint64_t now_us, order, hash;
    int max_nodes, num_nodes, num_blackouts;
    uint32_t max_in_flight, free_count, heap_count, ready_count;
    simnet_node *nodes;
    addr_map by_addr;        /* a node's index by its address: every send looks one up */
    simnet_link *links;      /* [from * max_nodes + to] */
    simnet_packet *packets;
    uint8_t *data;           /* packet i's bytes at i * TEMPO_MAX_DATAGRAM */
    uint32_t *free_list;
    uint32_t *heap;
    simnet_blackout blackouts[SIMNET_MAX_BLACKOUTS];
};

/* ---- random draws, all from the link's own PCG32 stream ---------------- */

static bool chance(tempo_rng *r, double p)
{
    return p > 0.0 && (double)tempo_rng_next(r) * (1.0 / 4294967296.0) < p;
}

/* Uniform in [0, max] (multiply-shift; the bias is below 2^-32). */
static uint64_t uniform_us(tempo_rng *r, uint32_t max)
{
    return ((uint64_t)tempo_rng_next(r) * ((uint64_t)max + 1u)) >> 32;
}

/* Standard normal, approximately: the sum of 12 uniforms minus 6 (Irwin–Hall),
 * which has variance 1 and stays within +-6. Integer sums and one exact
 * scaling, so the result is the same on every platform (no libm). */
static double normal(tempo_rng *r)
{
    uint64_t sum = 0;
    for (int i = 0; i < 12; i++)
        sum += tempo_rng_next(r);
    return ((double)sum - 6.0 * 4294967296.0) * (1.0 / 4294967296.0);
}

/* A two-state Markov chain stepped once per packet. */
static bool step_chain(tempo_rng *r, bool state, double enter, double exit)
{
    return state ? !chance(r, exit) : chance(r, enter);
}

static uint64_t mix64(uint64_t h, uint64_t v)
{
    /* splitmix64's finalizer (Steele, Lea, Flood 2014) over h ^ v. */
    uint64_t z = (h ^ v) + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* ---- the heap of scheduled packets, keyed by (deliver_us, order) ------- */

static bool earlier(const tempo_simnet *net, uint32_t a, uint32_t b)
{
    const simnet_packet *pa = &net->packets[a], *pb = &net->packets[b];
    return pa->deliver_us != pb->deliver_us ? pa->deliver_us < pb->deliver_us
                                            : pa->order < pb->order;
}

static void heap_push(tempo_simnet *net, uint32_t idx)
{
    uint32_t i = net->heap_count++;
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (!earlier(net, idx, net->heap[parent]))
            break;
        net->heap[i] = net->heap[parent];
        i = parent;
    }
    net->heap[i] = idx;
}

static uint32_t heap_pop(tempo_simnet *net)
{
    uint32_t top = net->heap[0];
    uint32_t last = net->heap[--net->heap_count];
    uint32_t i = 0, n = net->heap_count;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && earlier(net, net->heap[c + 1], net->heap[c]))
            c++;
        if (!earlier(net, net->heap[c], last))
            break;
        net->heap[i] = net->heap[c];
        i = c;
    }
    if (n > 0)
        net->heap[i] = last;
    return top;
}

/* ---- nodes, links, validation ------------------------------------------ */

static int find_node(const tempo_simnet *net, const tempo_address *a)
{
    return addr_map_find(&net->by_addr, a);
}

static simnet_link *link_of(const tempo_simnet *net, int from, int to)
{
    return &net->links[(size_t)from * (size_t)net->max_nodes + (size_t)to];
}

static bool probability(double p) { return p >= 0.0 && p <= 1.0; } /* false for NaN */

static bool params_valid(const tempo_link_params *p)
{
    return probability(p->spike_enter) && probability(p->spike_exit) && probability(p->loss) &&
           probability(p->burst_enter) && probability(p->burst_exit) &&
           probability(p->burst_loss) && probability(p->duplicate) && probability(p->reorder);
}

/* ---- sending ----------------------------------------------------------- */

static bool blacked_out(const tempo_simnet *net, int from, int to)
{
    for (int i = 0; i < net->num_blackouts; i++) {
        const simnet_blackout *b = &net->blackouts[i];
        if ((b->from < 0 || b->from == from) && (b->to < 0 || b->to == to) &&
            net->now_us >= b->start_us && net->now_us < b->end_us)
            return true;
    }
    return false;
}

static bool lost(simnet_link *l)
{
    l->bad = step_chain(&l->rng, l->bad, l->p.burst_enter, l->p.burst_exit);
    return chance(&l->rng, l->bad ? l->p.burst_loss : l->p.loss);
}

/* The bandwidth queue: admit the datagram if the bytes still waiting plus
 * its own fit, and set *depart_us to when its last bit has left. */
static bool admit(simnet_link *l, uint64_t now_us, size_t size, uint64_t *depart_us)
{
    if (l->p.bandwidth_bps == 0) {
        *depart_us = now_us;
        return true;
    }
    uint64_t now_ns = now_us * 1000u;
    uint64_t start_ns = l->busy_until_ns > now_ns ? l->busy_until_ns : now_ns;
    double waiting_bytes = (double)(start_ns - now_ns) * l->p.bandwidth_bps / 8e9;
    uint32_t cap = l->p.queue_bytes ? l->p.queue_bytes : SIMNET_DEFAULT_QUEUE_BYTES;
    if (waiting_bytes + (double)size > (double)cap)
        return false;
    l->busy_until_ns = start_ns + (uint64_t)size * 8000000000u / l->p.bandwidth_bps;
    *depart_us = (l->busy_until_ns + 999u) / 1000u;
    return true;
}

/* One-way delay of one copy: latency, jitter (never below zero), spikes. */
static uint64_t sample_delay(simnet_link *l)
{
    double d = (double)l->p.latency_us;
    if (l->p.jitter_us)
        d += (double)l->p.jitter_us * normal(&l->rng);
    l->spiking = step_chain(&l->rng, l->spiking, l->p.spike_enter, l->p.spike_exit);
    if (l->spiking)
        d += (double)uniform_us(&l->rng, l->p.spike_us);
    return d > 0.0 ? (uint64_t)(d + 0.5) : 0u;
}

static void schedule(tempo_simnet *net, simnet_link *l, int from, int to, uint64_t seq,
                     const uint8_t *data, size_t size, uint64_t depart_us)
{
    if (net->free_count == 0) {
        l->stats.pool_dropped++;
        return;
    }
    uint64_t t = depart_us + sample_delay(l);
    if (chance(&l->rng, l->p.reorder)) {
        t += uniform_us(&l->rng, l->p.reorder_us); /* free of the order floor */
    } else {
        if (t < l->floor_us)
            t = l->floor_us;
        l->floor_us = t;
    }
    uint32_t idx = net->free_list[--net->free_count];
    simnet_packet *pk = &net->packets[idx];
    pk->deliver_us = t;
    pk->sent_us = net->now_us;
    pk->order = net->order++;
    pk->seq = seq;
    pk->next = SIMNET_NIL;
    pk->from = (uint16_t)from;
    pk->to = (uint16_t)to;
    pk->size = (uint16_t)size;
    memcpy(net->data + (size_t)idx * TEMPO_MAX_DATAGRAM, data, size);
    heap_push(net, idx);
}

static int simnet_send(void *ctx, const tempo_address *to, const uint8_t *data, size_t size)
{
    simnet_node *src = ctx;
    if (!src || !to || !data || size == 0 || size > TEMPO_MAX_DATAGRAM)
        return TEMPO_E_INVALID_ARG;
    tempo_simnet *net = src->net;
    int dst = find_node(net, to);
    if (dst < 0)
        return TEMPO_E_ADDRESS;
    int from = (int)(src - net->nodes);
    simnet_link *l = link_of(net, from, dst);
    uint64_t seq = l->next_seq++;
    uint64_t depart_us = 0;
    l->stats.sent++;
    l->stats.bytes_sent += size;
    if (blacked_out(net, from, dst)) {
        l->stats.blackout_dropped++;
    } else if (lost(l)) {
        l->stats.lost++;
    } else if (!admit(l, net->now_us, size, &depart_us)) {
        l->stats.queue_dropped++;
    } else {
        bool twice = chance(&l->rng, l->p.duplicate);
        schedule(net, l, from, dst, seq, data, size, depart_us);
        if (twice) {
            l->stats.duplicated++;
            schedule(net, l, from, dst, seq, data, size, depart_us);
        }
    }
    return 0;
}

/* An injected datagram: due now, after everything already due (its send
 * order is the newest), on no link. */
tempo_result tempo_simnet_inject(tempo_simnet *net, const tempo_address *from, const tempo_address *to,
                                 const uint8_t *data, size_t size)
{
    if (!net || !from || !to || !data || size == 0 || size > TEMPO_MAX_DATAGRAM ||
        from->family == TEMPO_ADDRESS_NONE)
        return TEMPO_E_INVALID_ARG;
    int dst = find_node(net, to);
    if (dst < 0)
        return TEMPO_E_ADDRESS;
    if (net->free_count == 0)
        return TEMPO_E_FULL;
    uint32_t idx = net->free_list[--net->free_count];
    simnet_packet *pk = &net->packets[idx];
    pk->deliver_us = net->now_us;
    pk->sent_us = net->now_us;
    pk->order = net->order++;
    pk->seq = 0;
    pk->next = SIMNET_NIL;
    pk->from = SIMNET_FORGED;
    pk->to = (uint16_t)dst;
    pk->size = (uint16_t)size;
    pk->src = *from;
    memcpy(net->data + (size_t)idx * TEMPO_MAX_DATAGRAM, data, size);
    heap_push(net, idx);
    return TEMPO_OK;
}

/* ---- delivering -------------------------------------------------------- */

/* Move every packet whose time has come to its node's ready list, counting
 * and hashing it: the trace follows delivery order, not recv call order. */
static void deliver_due(tempo_simnet *net)
{
    while (net->heap_count > 0 && net->packets[net->heap[0]].deliver_us <= net->now_us) {
        uint32_t idx = heap_pop(net);
        simnet_packet *pk = &net->packets[idx];
        if (pk->from != SIMNET_FORGED) {
            simnet_link *l = link_of(net, pk->from, pk->to);
            uint64_t latency = pk->deliver_us - pk->sent_us;
            l->stats.delivered++;
            l->stats.bytes_delivered += pk->size;
            l->stats.latency_us_sum += latency;
            l->stats.latency_us_sq_sum += latency * latency;
            if (pk->seq + 1u < l->seq_end)
                l->stats.reordered++;
            else
                l->seq_end = pk->seq + 1u;
        }
        uint64_t h = mix64(net->hash, pk->deliver_us);
        h = mix64(h, ((uint64_t)pk->from << 32) | ((uint64_t)pk->to << 16) | pk->size);
        net->hash = mix64(h, tempo_checksum(net->data + (size_t)idx * TEMPO_MAX_DATAGRAM,
                                            pk->size));
        simnet_node *node = &net->nodes[pk->to];
        if (node->ready_tail == SIMNET_NIL)
            node->ready_head = idx;
        else
            net->packets[node->ready_tail].next = idx;
        node->ready_tail = idx;
        net->ready_count++;
    }
}

static int simnet_recv(void *ctx, tempo_address *from, uint8_t *buf, size_t capacity)
{
    simnet_node *node = ctx;
    if (!node || !from || !buf || capacity == 0)
        return TEMPO_E_INVALID_ARG;
    tempo_simnet *net = node->net;
    deliver_due(net);
    uint32_t idx = node->ready_head;
    if (idx == SIMNET_NIL)
        return 0;
    simnet_packet *pk = &net->packets[idx];
    node->ready_head = pk->next;
    if (node->ready_head == SIMNET_NIL)
        node->ready_tail = SIMNET_NIL;
    net->ready_count--;
    size_t n = pk->size < capacity ? pk->size : capacity;
    memcpy(buf, net->data + (size_t)idx * TEMPO_MAX_DATAGRAM, n);
    *from = pk->from == SIMNET_FORGED ? pk->src : net->nodes[pk->from].addr;
    net->free_list[net->free_count++] = idx;
    return pk->size;
}

/* ---- public API -------------------------------------------------------- */

void tempo_simnet_config_default(tempo_simnet_config *cfg)
{
    if (!cfg)
        return;
    memset(cfg, 0, sizeof *cfg);
    cfg->seed = 1;
    cfg->max_nodes = 32;
    cfg->max_in_flight = 16384;
}

void tempo_simnet_destroy(tempo_simnet *net)
{
    if (!net)
        return;
    tempo_allocator a = net->alloc;
    tempo__free(&a, net->nodes);
    tempo__free(&a, net->by_addr.e);
    tempo__free(&a, net->links);
    tempo__free(&a, net->packets);
    tempo__free(&a, net->data);
    tempo__free(&a, net->free_list);
    tempo__free(&a, net->heap);
    tempo__free(&a, net);
}

tempo_result tempo_simnet_create(const tempo_simnet_config *cfg, tempo_simnet **out)
{
    if (!out)
        return TEMPO_E_INVALID_ARG;
    *out = NULL;
    if (!cfg || cfg->max_nodes < 1 || cfg->max_nodes > SIMNET_MAX_NODES ||
        cfg->max_in_flight < 1 || cfg->max_in_flight > SIMNET_MAX_IN_FLIGHT ||
        !params_valid(&cfg->default_link))
        return TEMPO_E_INVALID_ARG;
    const tempo_allocator *a = &cfg->allocator;
    tempo_simnet *net = tempo__calloc(a, 1, sizeof *net);
    if (!net)
        return TEMPO_E_NO_MEMORY;
    net->alloc = *a;
    net->max_nodes = cfg->max_nodes;
    net->max_in_flight = (uint32_t)cfg->max_in_flight;
    size_t nlinks = (size_t)cfg->max_nodes * (size_t)cfg->max_nodes;
    size_t npk = (size_t)cfg->max_in_flight;
    net->nodes = tempo__calloc(a, (size_t)cfg->max_nodes, sizeof *net->nodes);
    addr_map_entry *entries =
        tempo__calloc(a, addr_map_entries(cfg->max_nodes), sizeof *entries);
    net->links = tempo__calloc(a, nlinks, sizeof *net->links);
    net->packets = tempo__calloc(a, npk, sizeof *net->packets);
    net->data = tempo__alloc(a, npk * TEMPO_MAX_DATAGRAM);
    net->free_list = tempo__calloc(a, npk, sizeof *net->free_list);
    net->heap = tempo__calloc(a, npk, sizeof *net->heap);
    net->by_addr.e = entries;
    if (!net->nodes || !entries || !net->links || !net->packets || !net->data ||
        !net->free_list || !net->heap) {
        tempo_simnet_destroy(net);
        return TEMPO_E_NO_MEMORY;
    }
    /* Lookups are exact whatever the key; one from the seed keeps a run
     * reproducible down to its memory layout. */
    uint8_t key[ADDR_MAP_KEY_SIZE];
    for (int i = 0; i < ADDR_MAP_KEY_SIZE; i++)
        key[i] = (uint8_t)(cfg->seed >> (8 * (i % 8)) ^ (uint64_t)(0x5Bu * (unsigned)i));
    addr_map_init(&net->by_addr, entries, cfg->max_nodes, key);
    for (size_t i = 0; i < nlinks; i++) {
        net->links[i].p = cfg->default_link;
        tempo_rng_seed(&net->links[i].rng, cfg->seed, (uint64_t)i);
    }
    /* Free slots are handed out lowest index first. */
    for (uint32_t i = 0; i < net->max_in_flight; i++)
        net->free_list[i] = net->max_in_flight - 1u - i;
    net->free_count = net->max_in_flight;
    *out = net;
    return TEMPO_OK;
}

tempo_result tempo_simnet_add_node(tempo_simnet *net, const tempo_address *addr,
                                   tempo_transport *out)
{
    if (!net || !addr || !out || addr->family == TEMPO_ADDRESS_NONE)
        return TEMPO_E_INVALID_ARG;
    if (find_node(net, addr) >= 0)
        return TEMPO_E_ALREADY;
    if (net->num_nodes == net->max_nodes)
        return TEMPO_E_FULL;
    if (!addr_map_add(&net->by_addr, addr, net->num_nodes))
        return TEMPO_E_FULL;
    simnet_node *node = &net->nodes[net->num_nodes++];
    node->net = net;
    node->addr = *addr;
    node->ready_head = node->ready_tail = SIMNET_NIL;
    out->send = simnet_send;
    out->recv = simnet_recv;
    out->ctx = node;
    out->flush = NULL; /* delivery is the simulator's: nothing held here */
    return TEMPO_OK;
}

tempo_result tempo_simnet_set_link(tempo_simnet *net, const tempo_address *from,
                                   const tempo_address *to, const tempo_link_params *p)
{
    if (!net || !from || !to || !p || !params_valid(p))
        return TEMPO_E_INVALID_ARG;
    int f = find_node(net, from), t = find_node(net, to);
    if (f < 0 || t < 0)
        return TEMPO_E_ADDRESS;
    link_of(net, f, t)->p = *p;
    return TEMPO_OK;
}

tempo_result tempo_simnet_add_blackout(tempo_simnet *net, const tempo_address *from,
                                       const tempo_address *to, uint64_t start_us,
                                       uint64_t end_us)
{
    if (!net || end_us < start_us)
        return TEMPO_E_INVALID_ARG;
    int f = from ? find_node(net, from) : -1, t = to ? find_node(net, to) : -1;
    if ((from && f < 0) || (to && t < 0))
        return TEMPO_E_ADDRESS;
    if (net->num_blackouts == SIMNET_MAX_BLACKOUTS)
        return TEMPO_E_FULL;
    simnet_blackout *b = &net->blackouts[net->num_blackouts++];
    b->from = f;
    b->to = t;
    b->start_us = start_us;
    b->end_us = end_us;
    return TEMPO_OK;
}

void tempo_simnet_set_time(tempo_simnet *net, uint64_t now_us)
{
    if (!net || now_us <= net->now_us)
        return;
    net->now_us = now_us;
    deliver_due(net);
}

uint64_t tempo_simnet_time(const tempo_simnet *net) { return net ? net->now_us : 0; }

tempo_result tempo_simnet_link_stats(const tempo_simnet *net, const tempo_address *from,
                                     const tempo_address *to, tempo_link_stats *out)
{
    if (!net || !from || !to || !out)
        return TEMPO_E_INVALID_ARG;
    int f = find_node(net, from), t = find_node(net, to);
    if (f < 0 || t < 0)
        return TEMPO_E_ADDRESS;
    *out = link_of(net, f, t)->stats;
    return TEMPO_OK;
}

uint64_t tempo_simnet_trace_hash(const tempo_simnet *net) { return net ? net->hash : 0; }

int tempo_simnet_next_delivery(const tempo_simnet *net, uint64_t *at_us)
{
    if (!net || !at_us)
        return TEMPO_E_INVALID_ARG;
    if (net->ready_count > 0) {
        *at_us = net->now_us;
        return 1;
    }
    if (net->heap_count > 0) {
        *at_us = net->packets[net->heap[0]].deliver_us;
        return 1;
    }
    return 0;
}
