/* SPDX-License-Identifier: MIT */
/*
 * arena_draw.c — one picture of the arena with SDL_Renderer rectangles and
 * lines: the board, shots, ships, scores, and the side panel (the netcode
 * overlay or the controls).
 *
 * Invariant: drawing reads the view and never changes it, and depends only on
 * the view (blinks count game frames, not wall time), so the same state
 * always gives the same picture: a headless screenshot is reproducible.
 */
#include "arena_sdl.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

/* Layout of the logical canvas. */
#define TILE_PX 30
#define BOARD_X 16
#define BOARD_Y 60
#define BOARD_PX_W (ARENA_BOARD_W * TILE_PX)
#define BOARD_PX_H (ARENA_BOARD_H * TILE_PX)
#define PANEL_X (BOARD_X + BOARD_PX_W + 16)
#define PANEL_W (ARENA_VIEW_W - PANEL_X - 16)
#define PANEL_H (ARENA_VIEW_H - BOARD_Y - 12)
#define CHIPS_Y (BOARD_Y + BOARD_PX_H + 14)
#define LINE_H 20 /* panel text at scale 2 */

/* Shot boxes, half sizes in arena units: the same numbers as arena.c's
 * collision boxes, so what you see is what hits. */
#define SHOT_HALF 192
#define CHARGED_HALF_LONG 256
#define CHARGED_HALF_WIDE 1408

typedef struct rgb {
    uint8_t r, g, b;
} rgb;

static const rgb BACKGROUND = {16, 17, 21};
static const rgb LIGHT_TILE = {228, 224, 212}, LIGHT_GROUT = {212, 207, 194};
static const rgb DARK_TILE = {36, 39, 48}, DARK_GROUT = {46, 50, 61};
static const rgb SOLID = {92, 97, 110}, SOLID_TOP = {128, 134, 150}, SOLID_BOTTOM = {58, 61, 71};
static const rgb TEXT = {222, 220, 210}, DIM = {130, 132, 140};
static const rgb PANEL = {27, 29, 35}, PANEL_EDGE = {62, 66, 78};
static const rgb FLASH = {255, 48, 200}; /* "a rollback moved this": loud on purpose */
static const rgb GOOD = {90, 210, 120}, BAD = {240, 70, 70}, WARN = {240, 190, 60};

/* Team 0 (light ground) in blues, team 1 (dark ground) in oranges. */
static const rgb PLAYER_COLOUR[ARENA_MAX_PLAYERS] = {
    {36, 112, 226}, {250, 140, 30}, {22, 160, 196}, {236, 86, 52},
    {96, 84, 214},  {248, 196, 48}, {30, 136, 150}, {226, 110, 120},
};

static void colour(SDL_Renderer *r, rgb c, uint8_t alpha)
{
    SDL_SetRenderDrawColor(r, c.r, c.g, c.b, alpha);
}

/* c moved toward white (amount > 0) or black (amount < 0), amount in -1..1. */
static rgb shade(rgb c, float amount)
{
    float target = amount > 0 ? 255.0f : 0.0f, t = fabsf(amount);
    return (rgb){(uint8_t)(c.r + (target - c.r) * t), (uint8_t)(c.g + (target - c.g) * t),
                 (uint8_t)(c.b + (target - c.b) * t)};
}

static void fill(SDL_Renderer *r, int x, int y, int w, int h)
{
    SDL_RenderFillRect(r, &(SDL_Rect){x, y, w, h});
}

static void frame_rect(SDL_Renderer *r, int x, int y, int w, int h)
{
    SDL_RenderDrawRect(r, &(SDL_Rect){x, y, w, h});
}

/* Arena units to canvas pixels (positions relative to the board). */
static int px(int32_t units) { return (int)((int64_t)units * TILE_PX / ARENA_TILE); }

/* Where the board's top-left corner is drawn this picture: screen shake
 * moves the board, never the panel. Deterministic in the game frame. */
typedef struct board_origin {
    int x, y;
} board_origin;

static board_origin origin_of(const arena_view *v)
{
    board_origin o = {BOARD_X, BOARD_Y};
    if (v->shake > 0) {
        int f = (int)v->game->frame;
        o.x += ((f * 7) % 5 - 2) * v->shake / 4;
        o.y += ((f * 11) % 5 - 2) * v->shake / 4;
    }
    return o;
}

/* ---- board, shots, ships ------------------------------------------------- */

/* Pillars are bevelled on their outer edges only, so a pillar of several
 * tiles reads as one raised block. */
static void draw_pillar_tile(SDL_Renderer *r, const arena_state *g, int tx, int ty, int x, int y)
{
    colour(r, SOLID, 255);
    fill(r, x, y, TILE_PX, TILE_PX);
    colour(r, SOLID_TOP, 255);
    if (arena_tile(g, tx, ty - 1) != ARENA_TILE_SOLID)
        fill(r, x, y, TILE_PX, 3);
    if (arena_tile(g, tx - 1, ty) != ARENA_TILE_SOLID)
        fill(r, x, y, 1, TILE_PX);
    colour(r, SOLID_BOTTOM, 255);
    if (arena_tile(g, tx, ty + 1) != ARENA_TILE_SOLID)
        fill(r, x, y + TILE_PX - 4, TILE_PX, 4);
    if (arena_tile(g, tx + 1, ty) != ARENA_TILE_SOLID)
        fill(r, x + TILE_PX - 1, y, 1, TILE_PX);
}

static void draw_board(SDL_Renderer *r, const arena_state *g, board_origin o)
{
    colour(r, PANEL_EDGE, 255);
    frame_rect(r, BOARD_X - 2, BOARD_Y - 2, BOARD_PX_W + 4, BOARD_PX_H + 4);
    for (int ty = 0; ty < ARENA_BOARD_H; ty++)
        for (int tx = 0; tx < ARENA_BOARD_W; tx++) {
            int x = o.x + tx * TILE_PX, y = o.y + ty * TILE_PX, kind = arena_tile(g, tx, ty);
            if (kind == ARENA_TILE_SOLID) {
                draw_pillar_tile(r, g, tx, ty, x, y);
                continue;
            }
            bool light = kind == ARENA_TILE_LIGHT;
            colour(r, light ? LIGHT_TILE : DARK_TILE, 255);
            fill(r, x, y, TILE_PX, TILE_PX);
            colour(r, light ? LIGHT_GROUT : DARK_GROUT, 255);
            fill(r, x + TILE_PX - 1, y, 1, TILE_PX);
            fill(r, x, y + TILE_PX - 1, TILE_PX, 1);
        }
}

static void draw_shots(SDL_Renderer *r, const arena_state *g, board_origin o)
{
    for (int i = 0; i < ARENA_MAX_SHOTS; i++) {
        const arena_shot *s = &g->shots[i];
        if (!s->active)
            continue;
        rgb c = PLAYER_COLOUR[s->owner % ARENA_MAX_PLAYERS];
        bool vertical = s->dir < 2;
        int along = px(s->charged ? CHARGED_HALF_LONG : SHOT_HALF);
        int across = px(s->charged ? CHARGED_HALF_WIDE : SHOT_HALF);
        int hw = vertical ? across : along, hh = vertical ? along : across;
        int cx = o.x + px(s->x), cy = o.y + px(s->y);
        if (s->charged) { /* a translucent band three lanes wide, a hot core */
            colour(r, c, 110);
            fill(r, cx - hw, cy - hh, 2 * hw, 2 * hh);
            colour(r, c, 255);
            fill(r, cx - (vertical ? hw / 2 : hw), cy - (vertical ? hh : hh / 2),
                 vertical ? hw : 2 * hw, vertical ? 2 * hh : hh);
        } else {
            colour(r, shade(c, -0.45f), 255);
            fill(r, cx - hw - 1, cy - hh - 1, 2 * hw + 2, 2 * hh + 2);
            colour(r, c, 255);
            fill(r, cx - hw, cy - hh, 2 * hw, 2 * hh);
        }
        colour(r, shade(c, 0.7f), 255);
        fill(r, cx - hw / 3, cy - hh / 3, 2 * (hw / 3) + 1, 2 * (hh / 3) + 1);
    }
}

/* A destroyed ship: its empty hull where it died, and inside it the seconds
 * until it comes back (somewhere else). */
static void draw_wreck(SDL_Renderer *r, const arena_ship *s, rgb c, int cx, int cy, int half)
{
    colour(r, c, 200);
    frame_rect(r, cx - half, cy - half, 2 * half, 2 * half);
    frame_rect(r, cx - half + 1, cy - half + 1, 2 * half - 2, 2 * half - 2);
    char secs[8];
    snprintf(secs, sizeof secs, "%d", (s->timer + 59) / 60);
    arena_text(r, cx - arena_text_width(secs, 2) / 2 + 1, cy - 6, 2, secs);
}

static void draw_meters(SDL_Renderer *r, const arena_ship *s, rgb c, int cx, int cy, int half)
{
    for (int k = 0; k < ARENA_AMMO_MAX; k++) { /* rounds left, above the ship */
        colour(r, k < s->ammo ? c : shade(c, -0.6f), 255);
        fill(r, cx - half + k * 5, cy - half - 7, 4, 4);
    }
    if (s->charge == 0)
        return;
    int width = 2 * half * s->charge / ARENA_CHARGE_FULL;
    bool full = s->charge >= ARENA_CHARGE_FULL;
    colour(r, BACKGROUND, 255);
    fill(r, cx - half - 1, cy + half + 3, 2 * half + 2, 6);
    colour(r, full && (s->charge & 4) ? shade(c, 0.8f) : c, 255);
    fill(r, cx - half, cy + half + 4, width, 4);
}

/* A small "?" on a dark plate: this ship's newest input is a guess. */
static void guess_mark(SDL_Renderer *r, int x, int y)
{
    colour(r, BACKGROUND, 230);
    fill(r, x, y, 9, 11);
    colour(r, TEXT, 255);
    arena_text(r, x + 2, y + 2, 1, "?");
}

/* The overlay's marks: where a rollback moved the ship from, and a dot when
 * its newest input was a guess. */
static void draw_netcode_marks(SDL_Renderer *r, const arena_view *v, int p, int cx, int cy,
                               int half)
{
    if (v->flash[p] > 0) {
        uint8_t a = (uint8_t)(255 * v->flash[p] / ARENA_FLASH_TICKS);
        int gx = cx + px(v->ghost_dx[p]), gy = cy + px(v->ghost_dy[p]);
        colour(r, FLASH, a);
        frame_rect(r, gx - half, gy - half, 2 * half, 2 * half);
        frame_rect(r, gx - half + 1, gy - half + 1, 2 * half - 2, 2 * half - 2);
        SDL_RenderDrawLine(r, gx, gy, cx, cy);
        for (int k = 2; k <= 3; k++)
            frame_rect(r, cx - half - k, cy - half - k, 2 * (half + k), 2 * (half + k));
        colour(r, FLASH, (uint8_t)(a / 2));
        fill(r, cx - half, cy - half, 2 * half, 2 * half);
    }
    if (v->predicted[p]) { /* right of the ship, or left at the board's right edge */
        bool room = cx + half + 12 < BOARD_X + BOARD_PX_W;
        guess_mark(r, room ? cx + half + 3 : cx - half - 12, cy - 5);
    }
}

static void draw_ship(SDL_Renderer *r, const arena_view *v, int p, board_origin o)
{
    const arena_ship *s = &v->game->ships[p];
    rgb c = PLAYER_COLOUR[p];
    int cx = o.x + px(s->x), cy = o.y + px(s->y), half = px(ARENA_SHIP_HALF);
    if (s->state == ARENA_SHIP_DEAD) {
        draw_wreck(r, s, c, cx, cy, half);
        return;
    }
    if (s->state != ARENA_SHIP_ALIVE)
        return;
    /* Each team flies over its own ground: the edge contrasts with it. */
    rgb edge = s->team == 0 ? shade(c, -0.6f) : shade(c, 0.55f);
    bool shielded = s->timer > 0, blink = shielded && (v->game->frame / 4) % 2;
    colour(r, BACKGROUND, 70); /* a soft shadow lifts the ship off the floor */
    fill(r, cx - half + 2, cy - half + 3, 2 * half + 2, 2 * half + 2);
    if (shielded) {
        colour(r, edge, 160);
        frame_rect(r, cx - half - 4, cy - half - 4, 2 * half + 8, 2 * half + 8);
    }
    colour(r, edge, 255);
    fill(r, cx - half - 1, cy - half - 1, 2 * half + 2, 2 * half + 2);
    colour(r, blink ? shade(c, 0.6f) : c, 255);
    fill(r, cx - half + 1, cy - half + 1, 2 * half - 2, 2 * half - 2);
    /* The cockpit sits toward where the ship last moved: its facing. */
    float a = (float)s->facing * 6.28318530718f / 256.0f;
    int kx = cx + (int)lroundf(cosf(a) * (float)half * 0.45f);
    int ky = cy + (int)lroundf(sinf(a) * (float)half * 0.45f);
    colour(r, shade(c, 0.55f), 255);
    fill(r, kx - half / 2, ky - half / 2, half, half);
    draw_meters(r, s, c, cx, cy, half);
    if (p == v->human) {
        colour(r, s->team == 0 ? DARK_TILE : LIGHT_TILE, 255);
        arena_text(r, cx - arena_text_width("YOU", 1) / 2, cy + half + 11, 1, "YOU");
    }
    if (v->overlay)
        draw_netcode_marks(r, v, p, cx, cy, half);
}

/* ---- scores and the player strip ---------------------------------------- */

static void draw_top_bar(SDL_Renderer *r, const arena_view *v)
{
    colour(r, TEXT, 255);
    arena_text(r, BOARD_X, 16, 3, "TEMPO ARENA");
    colour(r, DIM, 255);
    arena_text(r, BOARD_X + 216, 23, 2,
               v->mode == ARENA_MODE_SYNCTEST ? "SYNCTEST"
               : v->mode == ARENA_MODE_P2P    ? (v->relay ? "THROUGH A RELAY" : "PEER TO PEER")
               : v->mode == ARENA_MODE_REPLAY ? "REPLAY"
                                              : "LOCAL ROLLBACK");

    char score[16];
    int mid = BOARD_X + BOARD_PX_W / 2;
    snprintf(score, sizeof score, "%d", arena_team_score(v->game, 0));
    colour(r, PLAYER_COLOUR[0], 255);
    arena_text(r, mid - 24 - arena_text_width(score, 5), 10, 5, score);
    colour(r, DIM, 255);
    arena_text(r, mid - 7, 10, 5, ":");
    snprintf(score, sizeof score, "%d", arena_team_score(v->game, 1));
    colour(r, PLAYER_COLOUR[1], 255);
    arena_text(r, mid + 24, 10, 5, score);

    char status[48] = "";
    if (v->replay_line[0]) {
        snprintf(status, sizeof status, "%s", v->replay_line);
        colour(r, DIM, 255);
    } else if (v->message_ticks > 0) { /* the session's latest news */
        snprintf(status, sizeof status, "%s", v->message);
        colour(r, v->desyncs ? BAD : WARN, 255);
    } else if (v->status == TEMPO_TICK_SYNCHRONIZING) {
        snprintf(status, sizeof status, "CONNECTING...");
        colour(r, WARN, 255);
    } else if (v->waiting_for && v->waiting_ticks >= ARENA_SPINNER_TICKS) {
        int n = snprintf(status, sizeof status, "WAITING FOR");
        for (int p = 0; p < ARENA_MAX_PLAYERS; p++)
            if ((v->waiting_for >> p) & 1u && n < (int)sizeof status - 4)
                n += snprintf(status + n, sizeof status - (size_t)n, " P%d", p + 1);
        colour(r, WARN, 255);
    } else if (v->autopilot) {
        snprintf(status, sizeof status, "AUTOPILOT (TAB)");
        colour(r, DIM, 255);
    }
    arena_text(r, PANEL_X, 23, 2, status);
}

/* One chip per player under the board: colour, score, respawn countdown. */
static void draw_chips(SDL_Renderer *r, const arena_view *v)
{
    int players = (int)v->game->num_players, width = BOARD_PX_W / players;
    int timer_scale = width >= 160 ? 2 : 1; /* eight chips leave little room */
    for (int p = 0; p < players; p++) {
        const arena_ship *s = &v->game->ships[p];
        int x = BOARD_X + p * width;
        rgb c = s->state == ARENA_SHIP_GONE ? DIM : PLAYER_COLOUR[p];
        colour(r, c, 255);
        fill(r, x, CHIPS_Y, 14, 14);
        if (s->state == ARENA_SHIP_DEAD) {
            colour(r, BACKGROUND, 255);
            fill(r, x + 3, CHIPS_Y + 3, 8, 8);
        }
        char label[24];
        snprintf(label, sizeof label, "P%d %d", p + 1, s->score);
        colour(r, TEXT, 255);
        int w = arena_text(r, x + 18, CHIPS_Y, 2, label);
        if (s->state == ARENA_SHIP_DEAD) {
            snprintf(label, sizeof label, "%d.%dS", s->timer / 60, s->timer % 60 / 6);
            colour(r, WARN, 255);
            arena_text(r, x + 28 + w, CHIPS_Y + 7 * (2 - timer_scale), timer_scale, label);
        }
        if (p == v->human) {
            colour(r, TEXT, 255);
            fill(r, x, CHIPS_Y + 18, width - 12, 2);
        }
    }
}

/* ---- the side panel ------------------------------------------------------ */

/* Panel text writer: one line at a time, top to bottom. */
typedef struct panel {
    SDL_Renderer *r;
    int x, y;
} panel;

static void line(panel *pn, rgb c, const char *text)
{
    colour(pn->r, c, 255);
    arena_text(pn->r, pn->x, pn->y, 2, text);
    pn->y += LINE_H;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void linef(panel *pn, rgb c, const char *fmt, ...)
{
    char text[64];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    line(pn, c, text);
}

static void bar(panel *pn, int used, int capacity)
{
    int w = PANEL_W - 28, filled = capacity > 0 ? w * used / capacity : 0;
    rgb c = used * 4 < capacity * 3 ? GOOD : used < capacity ? WARN : BAD;
    colour(pn->r, PANEL_EDGE, 255);
    fill(pn->r, pn->x, pn->y - 4, w, 8);
    colour(pn->r, c, 255);
    fill(pn->r, pn->x, pn->y - 4, filled > w ? w : filled, 8);
    pn->y += 10;
}

/* Rollback depth per tick over the last two seconds, newest on the right. */
static void depth_graph(panel *pn, const arena_view *v)
{
    int h = 60, w = ARENA_VIEW_HISTORY * 2, top = pn->y;
    colour(pn->r, BACKGROUND, 255);
    fill(pn->r, pn->x, top, w, h);
    colour(pn->r, FLASH, 255);
    for (int i = 0; i < ARENA_VIEW_HISTORY; i++) {
        int d = v->depth_history[(v->history_pos + i) % ARENA_VIEW_HISTORY];
        int bh = v->max_prediction > 0 ? d * h / v->max_prediction : 0;
        if (bh > h)
            bh = h;
        if (bh > 0)
            fill(pn->r, pn->x + 2 * i, top + h - bh, 2, bh);
    }
    pn->y += h + 10;
}

static void legend(panel *pn, rgb c, bool guess, const char *text)
{
    colour(pn->r, c, 255);
    if (guess)
        guess_mark(pn->r, pn->x + 1, pn->y);
    else
        fill(pn->r, pn->x, pn->y, 12, 12);
    colour(pn->r, TEXT, 255);
    arena_text(pn->r, pn->x + 22, pn->y, 2, text);
    pn->y += LINE_H;
}

/* Fixed text, one line per entry; "" is half a line of space. */
static void paragraph(panel *pn, rgb c, const char *const *text, int n)
{
    for (int i = 0; i < n; i++) {
        if (text[i][0] == '\0')
            pn->y += LINE_H / 2;
        else
            line(pn, c, text[i]);
    }
}

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *const SYNCTEST_INTRO[] = {
    "EACH TICK, TEMPO LOADS", "AN OLDER FRAME, REPLAYS", "TO THE PRESENT AND", "COMPARES CHECKSUMS.", "",
};
static const char *const SYNCTEST_OUTRO[] = {"A TINTED SHIP WOULD BE", "A DETERMINISM BUG."};
static const char *const ROLLBACK_INTRO[] = {
    "BOTS ARE REMOTE PEERS:", "THEIR INPUTS ARRIVE", "LATE, SO YOU SEE THEM", "PREDICTED, THEN FIXED.", "",
};
static const char *const P2P_INTRO[] = {
    "PEER TO PEER OVER UDP:", "REMOTE INPUTS ARRIVE", "LATE; TEMPO PREDICTS", "THEM, THEN FIXES.", "",
};
static const char *const RELAY_INTRO[] = {
    "THROUGH A RELAY: IT", "TIMES THE FRAMES AND", "SENDS EVERY INPUT;", "TEMPO PREDICTS, FIXES.", "",
};
static const char *const ROLLBACK_TRY[] = {
    "TRY ] FOR MORE DELAY,", "= TO HIDE IT BEHIND", "INPUT DELAY.",
};
static const char *const CONTROLS[] = {
    "MOVE    WASD, L-STICK", "FIRE    ARROWS, R-STICK", "        OR Y A X B",
    "CHARGE  SPACE, SHIFT,", "        TRIGGER", "",
    "[ ]     NETWORK DELAY", "- =     INPUT DELAY", "TAB     AUTOPILOT",
    "F1      NETCODE VIEW", "F12     SCREENSHOT", "ESC     QUIT", "",
};
static const char *const RULES[] = {
    "SHOTS PAINT THE FLOOR.", "YOU FLY ON YOUR TEAM'S", "COLOUR ONLY. HOLD",
    "CHARGE FOR A WIDE SHOT.",
};

static void synctest_panel(panel *pn, const arena_view *v)
{
    line(pn, TEXT, "SYNCTEST VIEW      F1");
    paragraph(pn, DIM, SYNCTEST_INTRO, COUNT(SYNCTEST_INTRO));
    linef(pn, TEXT, "FRAME          %7d", (int)v->frame);
    linef(pn, TEXT, "REPLAYED/TICK  %7d", v->check_distance);
    linef(pn, TEXT, "CHECKS         %7d", (int)v->synctest_checks);
    linef(pn, v->synctest_mismatches ? BAD : GOOD, "MISMATCHES     %7d",
          (int)v->synctest_mismatches);
    pn->y += LINE_H / 2;
    legend(pn, FLASH, false, "DIFFERS WHEN REPLAYED");
    paragraph(pn, DIM, SYNCTEST_OUTRO, COUNT(SYNCTEST_OUTRO));
}

static const char *const REPLAY_INTRO[] = {
    "A RECORDED MATCH: ITS", "INPUTS, FRAME BY FRAME,", "CHECKED AGAINST THE", "RECORDED CHECKSUMS.", "",
};
static const char *const REPLAY_KEYS[] = {
    "SPACE       PAUSE", "UP DOWN     SPEED X2 /2", "LEFT RIGHT  SEEK 10 S", "HOME        RESTART",
    "F2          SUB-FRAMES", "ESC         QUIT",
};

static void replay_panel(panel *pn, const arena_view *v)
{
    line(pn, TEXT, "REPLAY VIEW        F1");
    paragraph(pn, DIM, REPLAY_INTRO, COUNT(REPLAY_INTRO));
    linef(pn, TEXT, "FRAME          %7d", (int)v->frame);
    pn->y += LINE_H / 2;
    paragraph(pn, DIM, REPLAY_KEYS, COUNT(REPLAY_KEYS));
}

static void rollback_panel(panel *pn, const arena_view *v)
{
    bool p2p = v->mode == ARENA_MODE_P2P;
    line(pn, TEXT, "NETCODE VIEW       F1");
    if (p2p && v->relay)
        paragraph(pn, DIM, RELAY_INTRO, COUNT(RELAY_INTRO));
    else if (p2p)
        paragraph(pn, DIM, P2P_INTRO, COUNT(P2P_INTRO));
    else
        paragraph(pn, DIM, ROLLBACK_INTRO, COUNT(ROLLBACK_INTRO));
    linef(pn, TEXT, "FRAME          %7d", (int)v->frame);
    linef(pn, TEXT, "CONFIRMED      %7d", (int)v->confirmed);
    int used = (int)(v->frame - v->confirmed);
    linef(pn, TEXT, "PREDICTING   %3d / %-3d", used, v->max_prediction);
    bar(pn, used, v->max_prediction);
    linef(pn, TEXT, "ROLLBACKS/S    %7d", v->rollbacks_per_s);
    linef(pn, TEXT, "LAST ROLLBACK %2d FRAMES", v->last_rollback_depth);
    linef(pn, TEXT, "INPUT DELAY   %2d FR - =", v->input_delay);
    linef(pn, TEXT, "%s    %3d MS [ ]", p2p ? "ADD DELAY" : "NET DELAY", v->delay_ms);
    linef(pn, TEXT, "JITTER      +-%2d MS", v->jitter_ms / 2);
    if (p2p) { /* measured by tempo: round trips of its own pings */
        linef(pn, TEXT, "PING         %3d MS", v->ping_ms);
        linef(pn, TEXT, "LOSS         %3d %%", v->loss_pct);
        linef(pn, TEXT, "AHEAD BY    %+4.1f FR", v->advantage);
        linef(pn, TEXT, "SYNC STALLS  %3d", (int)v->sync_stalls);
        linef(pn, v->desyncs ? BAD : TEXT, "DESYNCS      %3d", (int)v->desyncs);
    } else {
        linef(pn, TEXT, "PING         %3d MS", 2 * v->delay_ms);
    }
    pn->y += LINE_H / 2;
    line(pn, DIM, "ROLLBACK DEPTH, 2 S");
    depth_graph(pn, v);
    legend(pn, FLASH, false, "MOVED BY A ROLLBACK");
    legend(pn, TEXT, true, "INPUT IS A GUESS");
    if (!p2p) { /* (p2p fills the panel with measurements instead) */
        pn->y += LINE_H / 2;
        paragraph(pn, DIM, ROLLBACK_TRY, COUNT(ROLLBACK_TRY));
    }
}

static void controls_panel(panel *pn, const arena_view *v)
{
    line(pn, TEXT, "CONTROLS           F1");
    pn->y += LINE_H / 2;
    paragraph(pn, TEXT, CONTROLS, COUNT(CONTROLS));
    line(pn, v->has_pad ? GOOD : DIM, v->has_pad ? "GAMEPAD CONNECTED" : "NO GAMEPAD");
    pn->y += LINE_H / 2;
    paragraph(pn, DIM, RULES, COUNT(RULES));
}

static void draw_panel(SDL_Renderer *r, const arena_view *v)
{
    colour(r, PANEL, 255);
    fill(r, PANEL_X, BOARD_Y - 2, PANEL_W, PANEL_H);
    colour(r, PANEL_EDGE, 255);
    frame_rect(r, PANEL_X, BOARD_Y - 2, PANEL_W, PANEL_H);
    panel pn = {r, PANEL_X + 14, BOARD_Y + 12};
    if (!v->overlay)
        controls_panel(&pn, v);
    else if (v->mode == ARENA_MODE_SYNCTEST)
        synctest_panel(&pn, v);
    else if (v->mode == ARENA_MODE_REPLAY)
        replay_panel(&pn, v);
    else
        rollback_panel(&pn, v);
}

/* After ARENA_SPINNER_TICKS ticks of waiting, as INVERSUS does: a short
 * wait is a hitch nobody needs named; a long one gets a spinner over the
 * board and the names of the players it waits for. */
static void draw_spinner(SDL_Renderer *r, const arena_view *v)
{
    if (!v->waiting_for || v->waiting_ticks < ARENA_SPINNER_TICKS)
        return;
    int cx = BOARD_X + BOARD_PX_W / 2, cy = BOARD_Y + BOARD_PX_H / 2;
    colour(r, BACKGROUND, 200);
    fill(r, cx - 150, cy - 70, 300, 140);
    const int dots = 12;
    int lit = (v->waiting_ticks / 4) % dots; /* one turn every 48 ticks */
    for (int i = 0; i < dots; i++) {
        float a = (float)i * 6.2831853f / (float)dots;
        int x = cx + (int)lroundf(cosf(a) * 28.0f), y = cy - 16 + (int)lroundf(sinf(a) * 28.0f);
        int age = (lit - i + dots) % dots; /* 0: the newest */
        colour(r, WARN, (uint8_t)(age < 6 ? 255 - age * 36 : 40));
        fill(r, x - 4, y - 4, 8, 8);
    }
    char names[40];
    int n = snprintf(names, sizeof names, "WAITING FOR");
    for (int p = 0; p < ARENA_MAX_PLAYERS; p++)
        if ((v->waiting_for >> p) & 1u && n < (int)sizeof names - 4)
            n += snprintf(names + n, sizeof names - (size_t)n, " P%d", p + 1);
    colour(r, WARN, 255);
    arena_text(r, cx - arena_text_width(names, 2) / 2, cy + 32, 2, names);
}

void arena_draw(SDL_Renderer *r, const arena_view *v)
{
    SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_BLEND);
    colour(r, BACKGROUND, 255);
    SDL_RenderClear(r);
    board_origin o = origin_of(v);
    draw_board(r, v->game, o);
    /* Shots leaving the board vanish at its edge, not over the margin. */
    SDL_RenderSetClipRect(r, &(SDL_Rect){o.x, o.y, BOARD_PX_W, BOARD_PX_H});
    draw_shots(r, v->game, o);
    SDL_RenderSetClipRect(r, NULL);
    for (int p = 0; p < (int)v->game->num_players; p++)
        draw_ship(r, v, p, o);
    draw_top_bar(r, v);
    draw_chips(r, v);
    draw_panel(r, v);
    draw_spinner(r, v);
}
