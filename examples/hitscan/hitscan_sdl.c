/* SPDX-License-Identifier: MIT */
/*
 * hitscan_sdl.c — the hitscan demo in a window: client 0's screen, with an
 * overlay of what tempo does for it.
 *
 *   tempo-hitscan-sdl [--profile P] [--clients N] [--seed S] [--bot]
 *   tempo-hitscan-sdl --headless --frames N --screenshot FILE.bmp ...
 *
 * You fly ship 1 (blue): W A S D move, the mouse aims, the left button
 * fires; the other ships are bots on their own clients. Your ship is
 * predicted (it answers at once); the others are drawn between two
 * server snapshots, behind by the playout delay shown in the overlay. L
 * switches the server's lag compensation: off, the server judges your
 * shots against where the ships are now, not where you saw them, and
 * hits you saw are rejected. The match runs on a simulated network in
 * virtual time kept to the real clock; --headless runs it without a
 * window, as fast as it goes, and draws one picture at the end.
 */
#include <SDL.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena_sdl.h" /* the 5x7 font: arena_text */
#include "hitscan_match.h"
#include "options.h"

#define VIEW_W 1240
#define VIEW_H 500
#define PX 18 /* pixels per metre */
#define FIELD_X 20
#define FIELD_Y 20
#define PANEL_X (FIELD_X + HS_FIELD_W * PX + 20)

typedef struct hs_sdl_cli {
    int clients;
    const char *profile;
    uint64_t seed;
    bool bot;
    bool headless;
    int frames;
    const char *screenshot;
} hs_sdl_cli;

/* --headless-frames N, the old spelling of --headless --frames N. */
static bool parse_headless_frames(void *field, const char *value, char *why, size_t why_size)
{
    hs_sdl_cli *o = field;
    char *end;
    long n = strtol(value, &end, 10);
    if (end == value || *end || n < 1 || n > 1000000) {
        snprintf(why, why_size, "want 1..1000000");
        return false;
    }
    o->headless = true;
    o->frames = (int)n;
    return true;
}

#define FIELD(f) offsetof(hs_sdl_cli, f)
static const option_spec specs[] = {
    {.name = "clients", .kind = OPTION_INT, .value = "N", .offset = FIELD(clients), .min = 2,
     .max = HS_MAX_SHIPS, .help = "ships, one client each, default 4"},
    {.name = "profile", .kind = OPTION_CUSTOM, .value = "NAME", .offset = FIELD(profile),
     .parse = options_parse_profile, .range = "a profile listed below",
     .help = "the simulated links, default transatlantic"},
    {.name = "seed", .kind = OPTION_U64, .value = "S", .offset = FIELD(seed), .range = "0..2^64-1",
     .help = "network and bots, default 1"},
    {.name = "bot", .kind = OPTION_FLAG, .offset = FIELD(bot), .help = "a bot flies your ship too"},
    {.name = "frames", .kind = OPTION_INT, .value = "N", .offset = FIELD(frames), .min = 1,
     .max = 1000000, .help = "quit after N frames"},
    {.name = "headless", .kind = OPTION_FLAG, .offset = FIELD(headless),
     .help = "no window: run --frames N frames in virtual time,\nthen draw once"},
    {.name = "headless-frames", .kind = OPTION_CUSTOM, .value = "N", .parse = parse_headless_frames,
     .range = "1..1000000", .flags = OPTION_HIDDEN, .help = "the old --headless --frames N"},
    {.name = "screenshot", .kind = OPTION_TEXT, .value = "FILE", .offset = FIELD(screenshot),
     .help = "save the last picture as a BMP"},
};
static const option_command command = {
    .program = "tempo-hitscan-sdl",
    .synopsis = "  The hitscan demo in a window: W A S D move, the mouse aims and fires,\n"
                "  L switches lag compensation, Esc quits.",
    .specs = specs,
    .count = (int)(sizeof specs / sizeof specs[0]),
    .epilogue = "exit: 0 done, 1 error, 2 usage, 77 no video driver\n",
    .more_help = options_list_profiles,
};

/* Your ship is always the first colour, the others take the rest in
 * slot order. */
static SDL_Color ship_colour(const hs_client *c, int j);
static const SDL_Color SHIP_COLOUR[HS_MAX_SHIPS] = {
    {70, 140, 255, 255}, {255, 150, 40, 255}, {60, 200, 120, 255}, {230, 70, 90, 255},
    {200, 120, 255, 255}, {240, 220, 60, 255}, {80, 220, 230, 255}, {250, 250, 250, 255}};

static SDL_Color ship_colour(const hs_client *c, int j)
{
    if (j == c->me)
        return SHIP_COLOUR[0];
    return SHIP_COLOUR[1 + (j < c->me || c->me < 0 ? j : j - 1) % (HS_MAX_SHIPS - 1)];
}

static int px_x(int32_t x) { return FIELD_X + (int)((int64_t)x * PX / HS_UNIT); }
static int px_y(int32_t y) { return FIELD_Y + (int)((int64_t)y * PX / HS_UNIT); }

static void line(SDL_Renderer *r, int y, const char *fmt, double a, double b)
{
    char buf[64];
    snprintf(buf, sizeof buf, fmt, a, b);
    arena_text(r, PANEL_X, y, 2, buf);
}

static void draw(SDL_Renderer *r, hs_match *m, bool lagcomp_on)
{
    hs_client *c = &m->cl[0];
    SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_BLEND);
    SDL_SetRenderDrawColor(r, 18, 20, 26, 255);
    SDL_RenderClear(r);
    SDL_SetRenderDrawColor(r, 34, 38, 48, 255);
    SDL_RenderFillRect(r, &(SDL_Rect){FIELD_X, FIELD_Y, HS_FIELD_W * PX, HS_FIELD_H * PX});
    SDL_SetRenderDrawColor(r, 44, 48, 60, 255);
    for (int x = 0; x <= HS_FIELD_W; x += 5)
        SDL_RenderDrawLine(r, FIELD_X + x * PX, FIELD_Y, FIELD_X + x * PX, FIELD_Y + HS_FIELD_H * PX);
    for (int y = 0; y <= HS_FIELD_H; y += 5)
        SDL_RenderDrawLine(r, FIELD_X, FIELD_Y + y * PX, FIELD_X + HS_FIELD_W * PX, FIELD_Y + y * PX);
    /* tracers: the newest state the client has of every ship's last shot */
    for (int j = 0; j < c->g.ships; j++) {
        const hs_ship *s = j == c->me ? &c->g.s[j] : &c->snaps[c->view.to_handle].s[j];
        if (c->view.kind == TEMPO_INTERP_EMPTY && j != c->me)
            continue;
        int age = c->g.tick - s->tracer_tick;
        if (s->tracer_tick == 0 || age < 0 || age > 10)
            continue;
        SDL_Color k = ship_colour(c, j);
        SDL_SetRenderDrawColor(r, k.r, k.g, k.b, (Uint8)(220 - age * 20));
        int32_t sx = j == c->me ? c->drawn[j][0] : s->x, sy = j == c->me ? c->drawn[j][1] : s->y;
        for (int w = -1; w <= 1; w++)
            SDL_RenderDrawLine(r, px_x(sx) + w, px_y(sy), px_x(s->tx) + w, px_y(s->ty));
    }
    for (int j = 0; j < c->g.ships; j++) {
        SDL_Color k = ship_colour(c, j);
        int half = PX / 2;
        if (c->drawn_down[j]) { /* down: an outline where it fell */
            SDL_SetRenderDrawColor(r, k.r, k.g, k.b, 90);
            SDL_RenderDrawRect(r, &(SDL_Rect){px_x(c->drawn[j][0]) - half, px_y(c->drawn[j][1]) - half,
                                              2 * half, 2 * half});
            continue;
        }
        if (!c->drawn_valid[j])
            continue;
        SDL_SetRenderDrawColor(r, k.r, k.g, k.b, 255);
        SDL_RenderFillRect(r, &(SDL_Rect){px_x(c->drawn[j][0]) - half, px_y(c->drawn[j][1]) - half,
                                          2 * half, 2 * half});
        tempo_client_stats now;
        tempo_client_get_stats(c->c, &now);
        if (j == c->me && now.server_frame >= 0) { /* where the newest snapshot had it, as a ring */
            const hs_ship *srv = &c->snaps[now.server_frame % HS_SNAPS].s[j];
            if (!srv->alive)
                continue;
            SDL_SetRenderDrawColor(r, 255, 255, 255, 120);
            SDL_RenderDrawRect(r, &(SDL_Rect){px_x(srv->x) - half - 2, px_y(srv->y) - half - 2,
                                              2 * half + 4, 2 * half + 4});
        }
    }
    tempo_interp_stats is;
    tempo_interp_stats_get(c->ip, &is);
    tempo_client_stats cs;
    tempo_client_get_stats(c->c, &cs);
    SDL_SetRenderDrawColor(r, 235, 235, 235, 255);
    int y = FIELD_Y;
    arena_text(r, PANEL_X, y, 3, "TEMPO HITSCAN");
    y += 40;
    SDL_SetRenderDrawColor(r, 170, 175, 190, 255);
    line(r, y, "PING %.0f MS  LEAD %.1f", cs.rtt_ms, cs.lead_ticks), y += 24;
    line(r, y, "DILATION %+.1f%%", cs.dilation * 100.0, 0), y += 24;
    line(r, y, "PLAYOUT DELAY %.0f MS", is.delay_us / 1000.0, 0), y += 24;
    line(r, y, "UNDERRUNS %.0f  JITTER %.0f MS", (double)is.underruns, is.jitter_us / 1000.0), y += 24;
    line(r, y, "EXTRAPOLATED %.2f S", (double)is.extrapolated_us / 1e6, 0), y += 24;
    double off = hypot((double)c->offset[0], (double)c->offset[1]) / HS_UNIT;
    line(r, y, "CORRECTION OFFSET %.2f M", off, 0), y += 24;
    line(r, y, "OWN CORRECTIONS %.0f", (double)c->smooth.corrections, 0), y += 36;
    const hs_ship *me = c->me >= 0 ? &m->sg.s[c->me] : NULL;
    SDL_SetRenderDrawColor(r, 235, 235, 235, 255);
    line(r, y, "YOUR HITS SEEN %.0f", me ? (double)me->claims : 0.0, 0), y += 24;
    line(r, y, "  CONFIRMED %.0f  REJECTED %.0f", me ? (double)me->confirmed : 0.0,
         me ? (double)(me->claims - me->confirmed) : 0.0), y += 24;
    line(r, y, "SCORE %.0f  DOWNED %.0f", me ? (double)me->score : 0.0, me ? (double)me->deaths : 0.0),
        y += 36;
    SDL_SetRenderDrawColor(r, lagcomp_on ? 120 : 255, lagcomp_on ? 220 : 120, 120, 255);
    arena_text(r, PANEL_X, y, 2, lagcomp_on ? "LAG COMPENSATION ON (L)" : "LAG COMPENSATION OFF (L)");
    y += 36;
    SDL_SetRenderDrawColor(r, 120, 125, 140, 255);
    arena_text(r, PANEL_X, y, 2, "WASD MOVE, MOUSE AIMS AND FIRES");
    arena_text(r, PANEL_X, y + 24, 2, "BLUE: YOU. GREY OUTLINE: WHERE THE");
    arena_text(r, PANEL_X, y + 48, 2, "NEWEST SNAPSHOT HAD YOU. OUTLINE IN");
    arena_text(r, PANEL_X, y + 72, 2, "A SHIP'S COLOUR: IT IS DOWN, BACK");
    arena_text(r, PANEL_X, y + 96, 2, "IN A MOMENT");
}

static int run(const hs_sdl_cli *o)
{
    bool headless = o->headless;
    if (SDL_Init(headless ? 0 : SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "tempo-hitscan-sdl: SDL_Init: %s\n", SDL_GetError());
        return 77;
    }
    static hs_match m;
    hs_match_config cfg = {o->clients, o->profile, o->seed, true};
    if (!hs_match_start(&m, &cfg)) {
        SDL_Quit();
        return 1;
    }
    tempo_lagcomp *lc = m.judge.lc;
    SDL_Window *win = NULL;
    SDL_Surface *canvas = NULL;
    SDL_Renderer *ren = NULL;
    if (headless) {
        canvas = SDL_CreateRGBSurfaceWithFormat(0, VIEW_W, VIEW_H, 32, SDL_PIXELFORMAT_RGB888);
        ren = canvas ? SDL_CreateSoftwareRenderer(canvas) : NULL;
    } else {
        int win_w = VIEW_W, win_h = VIEW_H;
        if (!o->screenshot) /* a screenshot keeps the canvas's own size */
            arena_window_fit(&win_w, &win_h);
        win = SDL_CreateWindow("tempo hitscan", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, win_w,
                               win_h, SDL_WINDOW_RESIZABLE);
        ren = win ? SDL_CreateRenderer(win, -1, SDL_RENDERER_PRESENTVSYNC) : NULL;
        if (ren)
            SDL_RenderSetLogicalSize(ren, VIEW_W, VIEW_H);
    }
    if (!ren) {
        fprintf(stderr, "tempo-hitscan-sdl: no renderer: %s\n", SDL_GetError());
        hs_match_stop(&m);
        SDL_Quit();
        return 77;
    }
    hs_client *me = &m.cl[0];
    me->human_on = !o->bot && !headless;
    int code = 0;
    if (headless) {
        hs_match_run(&m, (uint64_t)o->frames * 16667u);
        draw(ren, &m, true);
    } else {
        uint64_t start = SDL_GetTicks64() * 1000u;
        for (bool running = true; running;) {
            SDL_Event ev;
            while (SDL_PollEvent(&ev)) {
                if (ev.type == SDL_QUIT || (ev.type == SDL_KEYDOWN && ev.key.keysym.sym == SDLK_ESCAPE))
                    running = false;
                if (ev.type == SDL_KEYDOWN && ev.key.keysym.sym == SDLK_l)
                    m.judge.lc = m.judge.lc ? NULL : lc;
            }
            const Uint8 *k = SDL_GetKeyboardState(NULL);
            int mx, my;
            Uint32 buttons = SDL_GetMouseState(&mx, &my);
            float lx, ly;
            SDL_RenderWindowToLogical(ren, mx, my, &lx, &ly);
            me->human.dx = k[SDL_SCANCODE_D] - k[SDL_SCANCODE_A];
            me->human.dy = k[SDL_SCANCODE_S] - k[SDL_SCANCODE_W];
            if (me->me >= 0) {
                const hs_ship *s = &me->g.s[me->me];
                double ang = atan2(ly - px_y(s->y), lx - px_x(s->x));
                me->human.aim = (uint8_t)lround(ang * 256.0 / 6.283185307179586);
                me->human.fire = (buttons & SDL_BUTTON_LMASK) && s->cooldown == 0;
                /* the ship the ray passes nearest, as drawn: the claim's target */
                me->human.claim_target = 0;
                for (int j = 0; j < m.cfg.clients; j++)
                    if (j != me->me && me->drawn_valid[j] &&
                        hs_ray_hits(s->x, s->y, me->human.aim, me->drawn[j][0], me->drawn[j][1]))
                        me->human.claim_target = j;
            }
            hs_match_run(&m, SDL_GetTicks64() * 1000u - start);
            draw(ren, &m, m.judge.lc != NULL);
            SDL_RenderPresent(ren);
            if (o->frames > 0 && SDL_GetTicks64() * 1000u - start >= (uint64_t)o->frames * 16667u)
                running = false;
        }
    }
    if (o->screenshot) {
        SDL_Surface *shot = canvas;
        if (!headless) {
            shot = SDL_CreateRGBSurfaceWithFormat(0, VIEW_W, VIEW_H, 32, SDL_PIXELFORMAT_RGB888);
            if (shot)
                SDL_RenderReadPixels(ren, NULL, shot->format->format, shot->pixels, shot->pitch);
        }
        if (!shot || SDL_SaveBMP(shot, o->screenshot) != 0) {
            fprintf(stderr, "tempo-hitscan-sdl: %s: %s\n", o->screenshot, SDL_GetError());
            code = 1;
        }
        if (!headless)
            SDL_FreeSurface(shot);
    }
    const hs_judge *j = &m.judge;
    printf("tempo-hitscan-sdl: %" PRIu64 " shots, %" PRIu64 " hits seen by their shooters, %" PRIu64
           " confirmed\n", j->shots, j->claims, j->confirmed);
    m.judge.lc = lc;
    hs_match_stop(&m);
    SDL_DestroyRenderer(ren);
    SDL_FreeSurface(canvas);
    if (win)
        SDL_DestroyWindow(win);
    SDL_Quit();
    return code;
}

int main(int argc, char **argv)
{
    hs_sdl_cli o = {.clients = 4, .profile = "transatlantic", .seed = 1};
    option_status st = options_parse(&command, argc, argv, &o, NULL);
    if (st != OPTIONS_OK)
        return st == OPTIONS_HELP ? 0 : 2;
    if (o.headless && o.frames == 0) {
        options_error(&command, "--headless needs --frames N, how long to play");
        return 2;
    }
    return run(&o);
}
