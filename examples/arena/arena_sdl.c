/*
 * arena_sdl.c — tempo-arena-sdl: play arena in a window, through tempo.
 *
 * You fly player 0; bots fly the other ships. By default the bots are the
 * "remote" players of a local tempo session, and their inputs reach tempo
 * through a simulated network (a delay line with jitter that you adjust while
 * playing): tempo predicts them, and rolls back and resimulates when a guess
 * was wrong, so you can see and feel rollback at work. --synctest runs the
 * same game in a synctest session, which replays frames every tick and
 * compares checksums: a visual determinism check.
 *
 * demo_tick is the loop of README.md: poll with the time, add the local
 * input, advance, carry out the requests. The simulation runs at a fixed
 * 60 Hz from an accumulator; drawing runs at the display's rate. Read the
 * file from the bottom (main, run_window) up.
 *
 * Invariant: `game` is the only simulation state. Only ADVANCE requests
 * change it, and tempo saves and restores it (arena mode). The clock is read
 * here, by the program; the library only ever gets the time as an argument.
 */
#include "arena_sdl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "tempo/tempo.h"

/* Exit codes (also in --help). */
#define EXIT_OK 0
#define EXIT_ERROR 1
#define EXIT_USAGE 2
#define EXIT_DESYNC 3    /* the synctest found a mismatch */
#define EXIT_NO_VIDEO 77 /* no usable video driver; CTest reports a skip */

#define FRAME_US 16667u       /* one 60 Hz frame, microseconds */
#define MAX_BEHIND_US 100000u /* after a hitch, drop time rather than race */
#define MAX_DELAY_MS 200      /* the simulated one-way delay's range */
#define MAX_INPUT_DELAY 10
#define SHAKE_TICKS 12
/* A correction smaller than this (arena units, about a pixel) is invisible
 * and not worth a flash. */
#define VISIBLE_CORRECTION 40

typedef struct demo_options {
    bool synctest;
    int players;         /* 2..ARENA_MAX_PLAYERS */
    uint64_t seed;
    int delay_ms;        /* simulated one-way delay at the start */
    int input_delay;     /* frames */
    int max_prediction;  /* frames */
    int check_distance;  /* synctest: frames replayed each tick */
    int frames;          /* window: quit after this many ticks; 0 = play on */
    int headless_frames; /* > 0: no window, no devices, bots on every ship */
    const char *screenshot; /* BMP written at the end */
} demo_options;

/* ---- the simulated network: remote inputs in flight ---------------------- */

/* Room for every remote player's inputs in flight: at most about 15 frames
 * of delay plus an input delay change each, with room to spare. */
#define LAG_CAPACITY (ARENA_MAX_PLAYERS * 64)

typedef struct in_flight {
    uint64_t arrive_us;
    int32_t frame;
    int player;
    uint8_t input[ARENA_INPUT_SIZE];
} in_flight;

typedef struct lag_line {
    in_flight items[LAG_CAPACITY];
    int count;
    tempo_rng rng; /* jitter, seeded: a headless run repeats exactly */
} lag_line;

/* Jitter grows with the delay, as on real links: one-way delay is
 * delay +- jitter / 2, so inputs also arrive out of order. */
static int jitter_of(int delay_ms) { return delay_ms / 4; }

/* Put one input on the wire; false if the line is full. */
static bool lag_send(lag_line *l, uint64_t now_us, int delay_ms, int player, int32_t frame,
                     const uint8_t input[ARENA_INPUT_SIZE])
{
    if (l->count == LAG_CAPACITY)
        return false;
    int half = jitter_of(delay_ms) / 2;
    int ms = delay_ms + (half > 0 ? tempo_rng_range(&l->rng, -half, half) : 0);
    in_flight *f = &l->items[l->count++];
    f->arrive_us = now_us + (uint64_t)ms * 1000u;
    f->frame = frame;
    f->player = player;
    memcpy(f->input, input, ARENA_INPUT_SIZE);
    return true;
}

/* Hand tempo every input that has arrived by now. */
static tempo_result lag_deliver(lag_line *l, tempo_session *s, uint64_t now_us)
{
    int kept = 0;
    for (int i = 0; i < l->count; i++) {
        const in_flight *f = &l->items[i];
        if (f->arrive_us > now_us) {
            l->items[kept++] = *f;
            continue;
        }
        tempo_result r =
            tempo_session_add_remote_input(s, f->player, f->frame, f->input, ARENA_INPUT_SIZE);
        if (r != TEMPO_OK)
            return r;
    }
    l->count = kept;
    return TEMPO_OK;
}

/* ---- the demo ------------------------------------------------------------- */

typedef struct demo {
    demo_options opt;
    arena_state game;       /* the one block tempo saves and loads */
    tempo_session *session;
    arena_bot bots[ARENA_MAX_PLAYERS];
    lag_line lag;
    int32_t next_sent;      /* the remote bots have sent every frame before this */
    int delay_ms;
    arena_ship shown[ARENA_MAX_PLAYERS]; /* the ships as drawn before this tick */
    uint32_t shown_frame;
    uint8_t rolled_back[60]; /* per tick of the last second: did it roll back */
    uint64_t ticks;
    arena_view view;
} demo;

static bool ok(tempo_result r, const char *what)
{
    if (r >= 0)
        return true;
    fprintf(stderr, "tempo-arena-sdl: %s: %s\n", what, tempo_strerror(r));
    return false;
}

/* Set up the game and the session. d must stay where it is while the
 * session lives: tempo keeps a pointer to d->game (arena mode). */
static bool demo_start(demo *d, const demo_options *o)
{
    memset(d, 0, sizeof *d);
    d->opt = *o;
    d->delay_ms = o->synctest ? 0 : o->delay_ms;
    if (!ok(arena_init(&d->game, o->players, o->seed), "arena_init"))
        return false;
    for (int p = 0; p < o->players; p++)
        arena_bot_init(&d->bots[p], o->seed, p);
    tempo_rng_seed(&d->lag.rng, o->seed, 0x6c6167u /* "lag" */);

    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = o->players;
    cfg.input_size = ARENA_INPUT_SIZE;
    cfg.max_prediction = o->max_prediction;
    cfg.arena = &d->game; /* arena mode: tempo copies this block on SAVE/LOAD */
    cfg.arena_size = sizeof d->game;
    tempo_session *s;
    tempo_result r = o->synctest ? tempo_session_create_synctest(&cfg, o->check_distance, &s)
                                 : tempo_session_create_local(&cfg, &s);
    if (!ok(r, "create session"))
        return false;
    d->session = s;
    /* In a synctest every player is local; otherwise the bots are remote
     * and this program delivers their inputs (lag_deliver). */
    r = tempo_session_add_local_player(s, 0);
    for (int p = 1; p < o->players && r == TEMPO_OK; p++)
        r = o->synctest ? tempo_session_add_local_player(s, p)
                        : tempo_session_add_remote_player(s, p, NULL);
    if (r == TEMPO_OK && !o->synctest)
        r = tempo_session_set_input_delay(s, 0, o->input_delay);
    if (!ok(r, "add players"))
        return false;

    arena_view *v = &d->view;
    v->game = &d->game;
    v->human = -1;
    v->overlay = true;
    v->synctest = o->synctest;
    v->max_prediction = o->max_prediction;
    v->check_distance = o->check_distance;
    return true;
}

/* After tempo replayed the frame that was on screen: tint every ship whose
 * replayed state differs from what was drawn, and remember how far the
 * correction moved it (the ghost then follows the ship at that offset, so it
 * shows the size of the correction, not where the ship flew since). */
static void mark_corrections(demo *d)
{
    for (uint32_t p = 0; p < d->game.num_players; p++) {
        const arena_ship *was = &d->shown[p], *now = &d->game.ships[p];
        int32_t dx = was->x - now->x, dy = was->y - now->y;
        if (abs(dx) + abs(dy) < VISIBLE_CORRECTION && was->state == now->state)
            continue;
        d->view.flash[p] = ARENA_FLASH_TICKS;
        d->view.ghost_dx[p] = dx;
        d->view.ghost_dy[p] = dy;
    }
}

static int total_deaths(const arena_state *g)
{
    int n = 0;
    for (uint32_t p = 0; p < g->num_players; p++)
        n += g->ships[p].deaths;
    return n;
}

/* Carry out one ADVANCE request (arena mode hands out nothing else). */
static void run_frame(demo *d, const tempo_request *r)
{
    int deaths = total_deaths(&d->game);
    arena_step(&d->game, r->inputs, r->status);
    if (r->resimulating) {
        /* A frame the player already saw, replayed with corrected inputs. */
        if (r->frame + 1 == (int32_t)d->shown_frame)
            mark_corrections(d);
        /* One-shot effects (sound, screen shake, particles) stay muted here:
         * they fired when the frame first ran, and firing them again would
         * double them. The price: a kill that only a correction reveals gets
         * no shake. Games that mind remember which (frame, event) effects
         * fired and play the missing ones late. */
        return;
    }
    for (uint32_t p = 0; p < d->game.num_players; p++)
        d->view.predicted[p] = r->status[p] == TEMPO_INPUT_PREDICTED;
    if (total_deaths(&d->game) > deaths)
        d->view.shake = SHAKE_TICKS;
}

/* The remote bots play on their own machines in step with ours and, like
 * us, with the input delay: by now they have sampled every frame before
 * frame + delay. Each of those inputs goes on the wire with its own delay. */
static tempo_result send_remote_inputs(demo *d, uint64_t now_us)
{
    tempo_session *s = d->session;
    int32_t horizon = tempo_session_frame(s) + tempo_session_input_delay(s, 0);
    for (; d->next_sent < horizon; d->next_sent++)
        for (int p = 1; p < d->opt.players; p++) {
            uint8_t in[ARENA_INPUT_SIZE];
            arena_bot_next(&d->bots[p], in);
            if (!lag_send(&d->lag, now_us, d->delay_ms, p, d->next_sent, in)) {
                tempo_result r = tempo_session_add_remote_input(s, p, d->next_sent, in, sizeof in);
                if (r != TEMPO_OK)
                    return r;
            }
        }
    return TEMPO_OK;
}

/* Fill the overlay's numbers from the tick and the session's counters. */
static void note_tick(demo *d, const tempo_tick *t)
{
    arena_view *v = &d->view;
    tempo_session_stats st;
    tempo_session_get_stats(d->session, &st);
    v->frame = st.frame;
    v->confirmed = st.confirmed_frame;
    d->rolled_back[d->ticks % 60] = t->rollback_depth > 0;
    v->rollbacks_per_s = 0;
    for (int i = 0; i < 60; i++)
        v->rollbacks_per_s += d->rolled_back[i];
    if (t->rollback_depth > 0)
        v->last_rollback_depth = t->rollback_depth;
    v->depth_history[v->history_pos] = (uint8_t)(t->rollback_depth < 255 ? t->rollback_depth : 255);
    v->history_pos = (v->history_pos + 1) % ARENA_VIEW_HISTORY;
    v->waiting_for = t->status == TEMPO_TICK_WAITING ? t->waiting_for : 0;
    v->delay_ms = d->delay_ms;
    v->jitter_ms = jitter_of(d->delay_ms);
    int delay = tempo_session_input_delay(d->session, 0);
    v->input_delay = delay > 0 ? delay : 0;
    tempo_synctest_report rep;
    if (d->opt.synctest && tempo_session_synctest_report(d->session, &rep) == TEMPO_OK) {
        v->synctest_checks = rep.checks;
        v->synctest_mismatches = rep.mismatches;
    }
    d->ticks++;
}

/* One fixed-rate tick: README.md's loop. mine is the human's input, or
 * NULL for a bot to fly player 0. */
static tempo_result demo_tick(demo *d, const arena_input *mine, uint64_t now_us)
{
    tempo_session *s = d->session;
    arena_view *v = &d->view;
    for (int p = 0; p < ARENA_MAX_PLAYERS; p++)
        if (v->flash[p] > 0)
            v->flash[p]--;
    if (v->shake > 0)
        v->shake--;

    /* 1. The network: remote inputs that have arrived, and the time. */
    tempo_result r = lag_deliver(&d->lag, s, now_us);
    if (r == TEMPO_OK)
        r = tempo_session_poll(s, now_us);
    /* 2. This machine's input (in a synctest, every player's). */
    uint8_t in[ARENA_INPUT_SIZE];
    if (mine)
        arena_input_pack(mine, in);
    else
        arena_bot_next(&d->bots[0], in);
    if (r == TEMPO_OK)
        r = tempo_session_add_local_input(s, 0, in, sizeof in);
    for (int p = 1; d->opt.synctest && p < d->opt.players && r == TEMPO_OK; p++) {
        arena_bot_next(&d->bots[p], in);
        r = tempo_session_add_local_input(s, p, in, sizeof in);
    }
    if (!ok(r, "input"))
        return r;

    /* 3. Plan the tick (it may roll back), then carry out its requests. */
    memcpy(d->shown, d->game.ships, sizeof d->shown);
    d->shown_frame = d->game.frame;
    tempo_tick tick;
    r = tempo_session_advance(s, &tick);
    if (r != TEMPO_OK && r != TEMPO_E_DESYNC) { /* a desync is counted, not fatal */
        ok(r, "advance");
        return r;
    }
    const tempo_request *req;
    while (tempo_session_next(s, &req) > 0)
        run_frame(d, req);
    tempo_event ev; /* a local session's events repeat what the tick says */
    while (tempo_session_poll_event(s, &ev) > 0) {
    }

    /* 4. The remote bots answer over the simulated network. */
    if (!d->opt.synctest && !ok(r = send_remote_inputs(d, now_us), "remote input"))
        return r;
    note_tick(d, &tick);
    return TEMPO_OK;
}

static void change_delay(demo *d, int delta_ms)
{
    int ms = d->delay_ms + delta_ms;
    d->delay_ms = ms < 0 ? 0 : ms > MAX_DELAY_MS ? MAX_DELAY_MS : ms;
}

/* Both ends change their input delay together, as matched peers would. */
static void change_input_delay(demo *d, int delta)
{
    int cap = d->opt.max_prediction < MAX_INPUT_DELAY ? d->opt.max_prediction : MAX_INPUT_DELAY;
    int frames = tempo_session_input_delay(d->session, 0) + delta;
    if (frames >= 0 && frames <= cap)
        tempo_session_set_input_delay(d->session, 0, frames);
}

static void print_summary(const demo *d)
{
    tempo_session_stats st;
    tempo_session_get_stats(d->session, &st);
    printf("tempo-arena-sdl: %s, %d players, %llu ticks, frame %d, score %d:%d\n",
           d->opt.synctest ? "synctest" : "local rollback", d->opt.players,
           (unsigned long long)d->ticks, (int)st.frame, arena_team_score(&d->game, 0),
           arena_team_score(&d->game, 1));
    if (d->opt.synctest)
        printf("  synctest: %llu checks, %llu mismatches\n",
               (unsigned long long)d->view.synctest_checks,
               (unsigned long long)d->view.synctest_mismatches);
    else
        printf("  rollbacks %llu, frames resimulated %llu, deepest %d, waiting ticks %llu\n",
               (unsigned long long)st.rollbacks, (unsigned long long)st.resim_frames,
               st.max_rollback_depth, (unsigned long long)st.waiting_ticks);
}

/* ---- running it ------------------------------------------------------------ */

/* Save what the renderer holds (call before SDL_RenderPresent). */
static bool save_screenshot(SDL_Renderer *r, const char *path)
{
    int w, h;
    if (SDL_GetRendererOutputSize(r, &w, &h) != 0)
        return false;
    SDL_Surface *shot = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_RGB888);
    bool saved = shot && SDL_RenderReadPixels(r, NULL, shot->format->format, shot->pixels,
                                              shot->pitch) == 0 &&
                 SDL_SaveBMP(shot, path) == 0;
    SDL_FreeSurface(shot);
    if (!saved)
        fprintf(stderr, "tempo-arena-sdl: screenshot %s: %s\n", path, SDL_GetError());
    return saved;
}

/* No window and no devices: bots on every ship, virtual time (frame n
 * happens at n * FRAME_US, so a run repeats exactly), and one picture drawn
 * by SDL's software renderer into a plain surface, which needs no video
 * driver at all. */
static int run_headless(const demo_options *o)
{
    if (SDL_Init(0) != 0) {
        fprintf(stderr, "tempo-arena-sdl: SDL_Init: %s\n", SDL_GetError());
        return EXIT_NO_VIDEO;
    }
    demo *d = calloc(1, sizeof *d); /* big (the lag line): not on the stack */
    SDL_Surface *canvas =
        SDL_CreateRGBSurfaceWithFormat(0, ARENA_VIEW_W, ARENA_VIEW_H, 32, SDL_PIXELFORMAT_RGB888);
    SDL_Renderer *ren = canvas ? SDL_CreateSoftwareRenderer(canvas) : NULL;
    int code = ren && d && demo_start(d, o) ? EXIT_OK : EXIT_ERROR;
    if (!ren)
        fprintf(stderr, "tempo-arena-sdl: software renderer: %s\n", SDL_GetError());
    for (int t = 1; t <= o->headless_frames && code == EXIT_OK; t++)
        if (demo_tick(d, NULL, (uint64_t)t * FRAME_US) != TEMPO_OK)
            code = EXIT_ERROR;
    if (code == EXIT_OK) {
        arena_draw(ren, &d->view);
        SDL_RenderPresent(ren);
        if (o->screenshot && SDL_SaveBMP(canvas, o->screenshot) != 0) {
            fprintf(stderr, "tempo-arena-sdl: %s: %s\n", o->screenshot, SDL_GetError());
            code = EXIT_ERROR;
        }
        print_summary(d);
        if (d->view.synctest_mismatches > 0)
            code = EXIT_DESYNC;
    }
    if (d)
        tempo_session_destroy(d->session);
    free(d);
    if (ren)
        SDL_DestroyRenderer(ren);
    SDL_FreeSurface(canvas);
    SDL_Quit();
    return code;
}

static uint64_t clock_us(void)
{
    return SDL_GetPerformanceCounter() * 1000000u / SDL_GetPerformanceFrequency();
}

/* A key press that steers the demo rather than the ship. */
static void on_key(demo *d, SDL_Scancode key, bool *running, bool *shot)
{
    switch (key) {
    case SDL_SCANCODE_ESCAPE: *running = false; break;
    case SDL_SCANCODE_F1: d->view.overlay = !d->view.overlay; break;
    case SDL_SCANCODE_F12: *shot = true; break;
    case SDL_SCANCODE_TAB: d->view.autopilot = !d->view.autopilot; break;
    case SDL_SCANCODE_LEFTBRACKET: change_delay(d, -10); break;
    case SDL_SCANCODE_RIGHTBRACKET: change_delay(d, 10); break;
    case SDL_SCANCODE_MINUS: if (!d->opt.synctest) change_input_delay(d, -1); break;
    case SDL_SCANCODE_EQUALS: if (!d->opt.synctest) change_input_delay(d, 1); break;
    default: break;
    }
}

static int run_window(const demo_options *o)
{
    if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_GAMECONTROLLER) != 0) {
        fprintf(stderr, "tempo-arena-sdl: no video: %s (try --headless-frames N)\n",
                SDL_GetError());
        return EXIT_NO_VIDEO;
    }
    SDL_Window *win = SDL_CreateWindow("tempo arena", SDL_WINDOWPOS_CENTERED,
                                       SDL_WINDOWPOS_CENTERED, ARENA_VIEW_W, ARENA_VIEW_H,
                                       SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    SDL_Renderer *ren = win ? SDL_CreateRenderer(win, -1, SDL_RENDERER_PRESENTVSYNC) : NULL;
    if (win && !ren)
        ren = SDL_CreateRenderer(win, -1, SDL_RENDERER_SOFTWARE);
    if (!ren) {
        fprintf(stderr, "tempo-arena-sdl: no window: %s\n", SDL_GetError());
        SDL_Quit();
        return EXIT_NO_VIDEO;
    }
    SDL_RendererInfo info;
    bool vsync = SDL_GetRendererInfo(ren, &info) == 0 && (info.flags & SDL_RENDERER_PRESENTVSYNC);
    SDL_RenderSetLogicalSize(ren, ARENA_VIEW_W, ARENA_VIEW_H);

    demo *d = calloc(1, sizeof *d); /* big (the lag line): not on the stack */
    arena_controls pads;
    arena_controls_open(&pads);
    int code = d && demo_start(d, o) ? EXIT_OK : EXIT_ERROR;
    if (d)
        d->view.human = 0;
    uint64_t sim_us = clock_us(); /* the time the simulation has reached */
    for (bool running = code == EXIT_OK; running;) {
        bool shot = false;
        SDL_Event ev;
        while (SDL_PollEvent(&ev)) {
            if (ev.type == SDL_QUIT)
                running = false;
            else if (ev.type == SDL_KEYDOWN && !ev.key.repeat)
                on_key(d, ev.key.keysym.scancode, &running, &shot);
            arena_controls_handle_event(&pads, &ev);
        }
        /* Fixed timestep ("Fix Your Timestep!", Glenn Fiedler): run as many
         * 60 Hz ticks as the clock says are due, each at its own time. */
        uint64_t now = clock_us();
        if (now - sim_us > MAX_BEHIND_US)
            sim_us = now - MAX_BEHIND_US;
        arena_input mine = arena_controls_sample(&pads);
        while (running && now - sim_us >= FRAME_US) {
            sim_us += FRAME_US;
            if (demo_tick(d, d->view.autopilot ? NULL : &mine, sim_us) != TEMPO_OK) {
                code = EXIT_ERROR;
                running = false;
            }
            if (o->frames > 0 && d->ticks >= (uint64_t)o->frames)
                running = false;
        }
        d->view.has_pad = pads.pad != NULL;
        arena_draw(ren, &d->view);
        if (shot) {
            char path[64];
            snprintf(path, sizeof path, "tempo-arena-%llu.bmp", (unsigned long long)d->ticks);
            if (save_screenshot(ren, path))
                printf("tempo-arena-sdl: saved %s\n", path);
        }
        if (!running && o->screenshot && code == EXIT_OK && !save_screenshot(ren, o->screenshot))
            code = EXIT_ERROR;
        SDL_RenderPresent(ren);
        if (!vsync)
            SDL_Delay(1); /* no vsync to pace us: do not spin a core */
    }
    if (d && d->session) {
        print_summary(d);
        if (code == EXIT_OK && d->view.synctest_mismatches > 0)
            code = EXIT_DESYNC;
        tempo_session_destroy(d->session);
    }
    free(d);
    arena_controls_close(&pads);
    SDL_DestroyRenderer(ren);
    SDL_DestroyWindow(win);
    SDL_Quit();
    return code;
}

/* ---- command line ---------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tempo-arena-sdl [options]\n"
            "  Play arena against bots through a tempo session.\n"
            "  --synctest            synctest session (replays frames, compares checksums)\n"
            "  --players N           ships, 2..8 (default 4: you and 3 bots)\n"
            "  --seed S              board and bots (default 1)\n"
            "  --delay MS            simulated one-way network delay, 0..200 (default 80)\n"
            "  --input-delay F       input delay in frames, 0..10 (default 1)\n"
            "  --max-prediction F    prediction window, 1..64 (default 16)\n"
            "  --check-distance F    synctest frames replayed per tick (default 7)\n"
            "  --frames N            quit after N frames\n"
            "  --headless-frames N   no window: bots everywhere, N frames, then exit\n"
            "  --screenshot FILE     write the last picture as a BMP\n"
            "exit: 0 ok, 1 error, 2 usage, 3 synctest mismatch, 77 no video driver\n");
}

static bool int_arg(const char *text, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

static bool seed_arg(const char *text, uint64_t *out)
{
    char *end;
    unsigned long long v = strtoull(text, &end, 0);
    *out = v;
    return *text != '\0' && *text != '-' && *end == '\0';
}

static bool parse(int argc, char **argv, demo_options *o)
{
    *o = (demo_options){.players = 4, .seed = 1, .delay_ms = 80, .input_delay = 1,
                        .max_prediction = 16, .check_distance = 7};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        bool good = true;
        if (strcmp(a, "--synctest") == 0) {
            o->synctest = true;
            continue;
        }
        if (!val)
            return false;
        if (strcmp(a, "--players") == 0)
            good = int_arg(val, 2, ARENA_MAX_PLAYERS, &o->players);
        else if (strcmp(a, "--seed") == 0)
            good = seed_arg(val, &o->seed);
        else if (strcmp(a, "--delay") == 0)
            good = int_arg(val, 0, MAX_DELAY_MS, &o->delay_ms);
        else if (strcmp(a, "--input-delay") == 0)
            good = int_arg(val, 0, MAX_INPUT_DELAY, &o->input_delay);
        else if (strcmp(a, "--max-prediction") == 0)
            good = int_arg(val, 1, TEMPO_MAX_PREDICTION, &o->max_prediction);
        else if (strcmp(a, "--check-distance") == 0)
            good = int_arg(val, 1, TEMPO_MAX_PREDICTION, &o->check_distance);
        else if (strcmp(a, "--frames") == 0)
            good = int_arg(val, 1, 100000000, &o->frames);
        else if (strcmp(a, "--headless-frames") == 0)
            good = int_arg(val, 1, 100000000, &o->headless_frames);
        else if (strcmp(a, "--screenshot") == 0)
            o->screenshot = val;
        else
            return false;
        if (!good)
            return false;
        i++;
    }
    /* tempo checks these too; saying so here gives a clearer message. */
    return o->input_delay <= o->max_prediction && o->check_distance <= o->max_prediction;
}

int main(int argc, char **argv)
{
    demo_options o;
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return EXIT_OK;
    }
    if (!parse(argc, argv, &o)) {
        usage(stderr);
        return EXIT_USAGE;
    }
    return o.headless_frames > 0 ? run_headless(&o) : run_window(&o);
}
