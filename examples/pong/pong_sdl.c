/* SPDX-License-Identifier: MIT */
/*
 * pong_sdl.c — tempo-pong-sdl: play Pong in a window against a tempo-pong
 * server.
 *
 * The window is a client (pong_client.c): your paddle moves the moment you
 * press a key, because the client predicts it, and the server's snapshots
 * correct the rest. The overlay shows what that costs and how well it
 * works: ping, how far the client runs ahead of the server (lead) and how
 * much tick sync stretches its ticks (dilation), corrections per second
 * and how far they moved your paddle, and the ticks the server had to play
 * without your input. R switches reconciliation between REPLAY and NONE:
 * with NONE every snapshot drags your paddle back to where the server had
 * it, a round trip ago, which is why clients replay their inputs. --local
 * plays against bots with no server at all.
 *
 * The simulation ticks at the length tick sync asks for, from an
 * accumulator; drawing runs at the display's rate. The clock is read here,
 * by the program; the library only ever gets the time as an argument.
 */
#include "pong_sdl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pong_app.h"

#define PROGRAM "tempo-pong-sdl"
#define EXIT_OK 0
#define EXIT_ERROR 1
#define EXIT_USAGE 2
#define EXIT_NO_VIDEO 77 /* no usable video driver; CTest reports a skip */

#define TICK_US 16667u        /* --local: 60 Hz */
#define MAX_BEHIND_US 100000u /* after a hitch, drop time rather than race */
#define WINDOW_TICKS 60       /* the overlay's "per second" */

typedef struct app {
    pong_options opt;
    pong_client client;       /* not --local */
    pong_state local;         /* --local: the game */
    pong_view view;
    bool bot;
    uint64_t played;          /* ticks since play began */
    /* Counters at each of the last WINDOW_TICKS ticks, for rates. */
    uint64_t corrections[WINDOW_TICKS];
    double correction_sum[WINDOW_TICKS];
    uint64_t bytes[WINDOW_TICKS];
    uint64_t ticks;
} app;

static uint64_t clock_us(void)
{
    return SDL_GetPerformanceCounter() * 1000000u / SDL_GetPerformanceFrequency();
}

/* The arrows or W/S: one byte of pong input. */
static uint8_t sample_keys(void)
{
    const Uint8 *k = SDL_GetKeyboardState(NULL);
    uint8_t in = 0;
    if (k[SDL_SCANCODE_UP] || k[SDL_SCANCODE_W])
        in |= PONG_INPUT_UP;
    if (k[SDL_SCANCODE_DOWN] || k[SDL_SCANCODE_S])
        in |= PONG_INPUT_DOWN;
    return in;
}

static bool app_start(app *a, const pong_options *o)
{
    memset(a, 0, sizeof *a);
    a->opt = *o;
    a->bot = o->bot;
    a->view.overlay = true;
    a->view.reconcile = o->reconcile;
    if (o->mode == PONG_MODE_LOCAL) {
        pong_init(&a->local, o->players, o->seed);
        a->view.local = true;
        a->view.me = 0;
        return true;
    }
    a->view.me = -1;
    return pong_client_open(&a->client, o, PROGRAM);
}

/* --local: you are player 0, bots play the rest. */
static void local_tick(app *a, uint8_t mine)
{
    uint8_t in[PONG_MAX_PLAYERS] = {0};
    for (int p = 0; p < a->opt.players; p++)
        in[p] = p == 0 && !a->bot ? mine : pong_bot_input(&a->local, p, a->opt.seed);
    pong_step(&a->local, in, NULL);
    a->played++;
}

/* The overlay's numbers from the client's counters. */
static void note_client(app *a)
{
    pong_view *v = &a->view;
    tempo_client_stats st;
    tempo_client_get_stats(a->client.client, &st);
    int i = (int)(a->ticks % WINDOW_TICKS);
    uint64_t corrections = st.corrections - a->corrections[i];
    double moved = st.correction_sum - a->correction_sum[i];
    v->bytes_per_s = st.bytes_received - a->bytes[i];
    a->corrections[i] = st.corrections;
    a->correction_sum[i] = st.correction_sum;
    a->bytes[i] = st.bytes_received;
    if (a->ticks < WINDOW_TICKS) { /* not a full second yet */
        corrections = st.corrections - a->corrections[0];
        moved = st.correction_sum - a->correction_sum[0];
        v->bytes_per_s = st.bytes_received - a->bytes[0];
    }
    v->corrections_per_s = (int)corrections;
    v->correction_mean_px = corrections ? moved / (double)corrections : 0.0;
    v->ping_ms = st.rtt_ms;
    v->lead_ticks = st.lead_ticks;
    v->dilation = st.dilation;
    v->late_inputs = st.late_inputs;
    v->tick = st.frame;
    v->server_tick = st.server_frame;
    a->ticks++;
}

/* One tick of the simulation. False once the client has ended. */
static bool app_tick(app *a, uint64_t now_us, uint8_t mine)
{
    if (a->opt.mode == PONG_MODE_LOCAL) {
        local_tick(a, mine);
        a->view.tick = (int32_t)a->local.frame;
        return true;
    }
    pong_client *pc = &a->client;
    pc->bot = a->bot;
    tempo_client_state state = pong_client_tick(pc, now_us, mine);
    if (pc->placed_tick >= 0)
        a->played++;
    note_client(a);
    a->view.me = pc->me;
    a->view.status = state == TEMPO_CLIENT_CONNECTING                          ? "CONNECTING"
                     : state == TEMPO_CLIENT_CONNECTED && pc->placed_tick < 0 ? "WAITING FOR THE SERVER"
                                                                              : NULL;
    return state == TEMPO_CLIENT_CONNECTING || state == TEMPO_CLIENT_CONNECTED;
}

/* When the tick after the one due at `due` is due: every TICK_US locally,
 * when the client says otherwise (tick sync). */
static uint64_t app_next_tick(const app *a, uint64_t due)
{
    return a->opt.mode == PONG_MODE_LOCAL ? due + TICK_US : pong_client_next_tick_at(&a->client);
}

/* R: replay <-> none (dumb goes to replay). */
static void toggle_reconcile(app *a)
{
    if (a->opt.mode == PONG_MODE_LOCAL)
        return;
    tempo_reconcile_mode next = a->view.reconcile == TEMPO_RECONCILE_REPLAY
                                    ? TEMPO_RECONCILE_NONE
                                    : TEMPO_RECONCILE_REPLAY;
    if (pong_client_set_reconcile(&a->client, next) == TEMPO_OK) {
        a->view.reconcile = next;
        printf("%s: reconciliation %s\n", PROGRAM, pong_reconcile_name(next));
    }
}

static void on_key(app *a, SDL_Scancode key, bool *running, bool *shot)
{
    switch (key) {
    case SDL_SCANCODE_ESCAPE: *running = false; break;
    case SDL_SCANCODE_F1: a->view.overlay = !a->view.overlay; break;
    case SDL_SCANCODE_F12: *shot = true; break;
    case SDL_SCANCODE_R: toggle_reconcile(a); break;
    case SDL_SCANCODE_B: a->bot = !a->bot; break;
    default: break;
    }
}

/* Save what the renderer holds (call before SDL_RenderPresent). */
static bool save_screenshot(SDL_Renderer *r, const char *path)
{
    int w, h;
    if (SDL_GetRendererOutputSize(r, &w, &h) != 0)
        return false;
    SDL_Surface *shot = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_RGB888);
    bool saved = shot &&
                 SDL_RenderReadPixels(r, NULL, shot->format->format, shot->pixels, shot->pitch) == 0 &&
                 SDL_SaveBMP(shot, path) == 0;
    SDL_FreeSurface(shot);
    if (!saved)
        fprintf(stderr, "%s: screenshot %s: %s\n", PROGRAM, path, SDL_GetError());
    return saved;
}

/* One summary on stdout; returns the exit code the run deserves. */
static int finish(app *a)
{
    if (a->opt.mode == PONG_MODE_LOCAL) {
        printf("%s: local, %llu ticks, score %u:%u\n", PROGRAM, (unsigned long long)a->played,
               a->local.score[PONG_LEFT], a->local.score[PONG_RIGHT]);
        return EXIT_OK;
    }
    pong_client *pc = &a->client;
    printf("%s: %llu ticks played, score %u:%u, reconciliation %s\n", PROGRAM,
           (unsigned long long)a->played, pc->game.score[PONG_LEFT], pc->game.score[PONG_RIGHT],
           pong_reconcile_name(a->view.reconcile));
    pong_client_print_stats(pc, stdout);
    if (a->played == 0) {
        fprintf(stderr, "%s: never played: no snapshot came from the server\n", PROGRAM);
        return EXIT_ERROR;
    }
    return EXIT_OK;
}

static int run(const pong_options *o)
{
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "%s: no video: %s\n", PROGRAM, SDL_GetError());
        return EXIT_NO_VIDEO;
    }
    int win_w = PONG_VIEW_W, win_h = PONG_VIEW_H;
    if (!o->screenshot) /* a screenshot keeps the canvas's own size */
        arena_window_fit(&win_w, &win_h);
    SDL_Window *win = SDL_CreateWindow("tempo pong", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED,
                                       win_w, win_h, SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    SDL_Renderer *ren = win ? SDL_CreateRenderer(win, -1, SDL_RENDERER_PRESENTVSYNC) : NULL;
    if (win && !ren)
        ren = SDL_CreateRenderer(win, -1, SDL_RENDERER_SOFTWARE);
    if (!ren) {
        fprintf(stderr, "%s: no window: %s\n", PROGRAM, SDL_GetError());
        if (win)
            SDL_DestroyWindow(win);
        SDL_Quit();
        return EXIT_NO_VIDEO;
    }
    SDL_RendererInfo info;
    bool vsync = SDL_GetRendererInfo(ren, &info) == 0 && (info.flags & SDL_RENDERER_PRESENTVSYNC);
    SDL_RenderSetLogicalSize(ren, PONG_VIEW_W, PONG_VIEW_H);

    app *a = calloc(1, sizeof *a);
    int code = a && app_start(a, o) ? EXIT_OK : EXIT_ERROR;
    bool opened = code == EXIT_OK;
    if (opened) {
        a->view.game = o->mode == PONG_MODE_LOCAL ? &a->local : &a->client.game;
        a->view.bot = a->bot;
    }
    const uint64_t start = clock_us();
    uint64_t next = start;
    for (bool running = opened; running;) {
        bool shot = false;
        SDL_Event ev;
        while (SDL_PollEvent(&ev)) {
            if (ev.type == SDL_QUIT)
                running = false;
            else if (ev.type == SDL_KEYDOWN && !ev.key.repeat)
                on_key(a, ev.key.keysym.scancode, &running, &shot);
        }
        uint64_t now = clock_us();
        if (now > next + MAX_BEHIND_US)
            next = now - MAX_BEHIND_US;
        uint8_t mine = sample_keys();
        while (running && now >= next) {
            if (!app_tick(a, now, mine))
                running = false;
            next = app_next_tick(a, next);
            if (o->frames > 0 && a->played >= (uint64_t)o->frames)
                running = false;
        }
        if (a->played == 0 && now - start > (uint64_t)o->connect_timeout_s * 1000000u) {
            fprintf(stderr, "%s: nothing to play after %d s\n", PROGRAM, o->connect_timeout_s);
            running = false;
        }
        a->view.bot = a->bot;
        a->view.server = o->mode == PONG_MODE_CLIENT && a->client.placed_tick >= 0
                             ? &a->client.server
                             : NULL;
        pong_draw(ren, &a->view);
        if (shot) {
            char path[64];
            snprintf(path, sizeof path, "tempo-pong-%llu.bmp", (unsigned long long)a->played);
            if (save_screenshot(ren, path))
                printf("%s: saved %s\n", PROGRAM, path);
        }
        if (!running && o->screenshot && !save_screenshot(ren, o->screenshot))
            code = EXIT_ERROR;
        SDL_RenderPresent(ren);
        if (!vsync)
            SDL_Delay(1); /* no vsync to pace us: do not spin a core */
    }
    if (opened) {
        int end = finish(a);
        code = code == EXIT_OK ? end : code;
        if (o->mode == PONG_MODE_CLIENT)
            pong_client_close(&a->client, clock_us());
    }
    free(a);
    SDL_DestroyRenderer(ren);
    SDL_DestroyWindow(win);
    SDL_Quit();
    return code;
}

int main(int argc, char **argv)
{
    pong_options o;
    switch (pong_options_parse(PONG_PROGRAM_SDL, argc, argv, &o)) {
    case PONG_OPTIONS_HELP: return EXIT_OK;
    case PONG_OPTIONS_USAGE: return EXIT_USAGE;
    case PONG_OPTIONS_RUN: break;
    }
    return run(&o);
}
