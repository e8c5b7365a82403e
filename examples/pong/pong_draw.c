/* SPDX-License-Identifier: MIT */
/*
 * pong_draw.c — tempo-pong-sdl's picture: the field, the bands of sides
 * with several paddles, the paddles (ours in yellow, with an outline where
 * the newest snapshot put it), the ball, the score and the overlay of
 * netcode numbers.
 *
 * Invariant: reads the view only; draws with filled rectangles and arena's
 * bitmap font, so the demo needs no image or font file.
 */
#include "pong_sdl.h"

#include <stdio.h>

#define TEXT 2         /* overlay letters: 12 pixels apart */
#define LINE 18        /* overlay line height */
#define SCORE_SCALE 8

/* Position units to canvas pixels. */
static int px(int32_t units) { return (int)(units / (PONG_UNIT / PONG_VIEW_SCALE)); }

static void colour(SDL_Renderer *r, Uint8 red, Uint8 green, Uint8 blue, Uint8 alpha)
{
    SDL_SetRenderDrawColor(r, red, green, blue, alpha);
}

static SDL_Rect paddle_rect(const pong_paddle *pd)
{
    int32_t x = pd->side == PONG_LEFT ? PONG_PADDLE_MARGIN
                                      : PONG_FIELD_W - PONG_PADDLE_MARGIN - PONG_PADDLE_W;
    return (SDL_Rect){px(x), px(pd->y - pd->half_h), px(PONG_PADDLE_W), px(2 * pd->half_h)};
}

static void draw_field(SDL_Renderer *r, const pong_state *g)
{
    colour(r, 16, 20, 26, 255);
    SDL_RenderClear(r);
    /* The net: a dashed line down the middle. */
    colour(r, 70, 78, 90, 255);
    for (int y = 6; y < PONG_VIEW_H; y += 32)
        SDL_RenderFillRect(r, &(SDL_Rect){PONG_VIEW_W / 2 - 3, y, 6, 18});
    /* Band edges where a side has several paddles: faint dots across the
     * paddles' column. */
    colour(r, 50, 56, 66, 255);
    for (uint32_t p = 0; p < g->num_players && p < PONG_MAX_PLAYERS; p++) {
        const pong_paddle *pd = &g->paddles[p];
        if (pd->lane == 0)
            continue;
        int y = px(pd->band_top);
        int x0 = pd->side == PONG_LEFT ? 0 : PONG_VIEW_W - 120;
        for (int x = x0; x < x0 + 120; x += 8)
            SDL_RenderFillRect(r, &(SDL_Rect){x, y - 1, 4, 2});
    }
}

static void draw_score(SDL_Renderer *r, const pong_state *g)
{
    char left[8], right[8];
    snprintf(left, sizeof left, "%u", g->score[PONG_LEFT]);
    snprintf(right, sizeof right, "%u", g->score[PONG_RIGHT]);
    colour(r, 120, 130, 145, 255);
    arena_text(r, PONG_VIEW_W / 2 - 40 - arena_text_width(left, SCORE_SCALE), 24, SCORE_SCALE,
               left);
    arena_text(r, PONG_VIEW_W / 2 + 40, 24, SCORE_SCALE, right);
}

static void draw_paddles(SDL_Renderer *r, const pong_view *v)
{
    const pong_state *g = v->game;
    for (uint32_t p = 0; p < g->num_players && p < PONG_MAX_PLAYERS; p++) {
        SDL_Rect box = paddle_rect(&g->paddles[p]);
        if ((int)p == v->me)
            colour(r, 255, 206, 64, 255);
        else
            colour(r, 225, 230, 236, 255);
        SDL_RenderFillRect(r, &box);
    }
    if (v->me < 0 || (uint32_t)v->me >= g->num_players)
        return;
    const pong_paddle *mine = &g->paddles[v->me];
    SDL_Rect box = paddle_rect(mine);
    colour(r, 255, 206, 64, 255);
    int label = box.x + box.w / 2 - arena_text_width("YOU", TEXT) / 2;
    arena_text(r, label, box.y - 20 < 4 ? box.y + box.h + 8 : box.y - 20, TEXT, "YOU");
    /* Where the server's newest snapshot has our paddle: the prediction
     * leads it by the inputs still on their way. */
    if (v->server && (uint32_t)v->me < v->server->num_players) {
        SDL_Rect at = paddle_rect(&v->server->paddles[v->me]);
        at.x += mine->side == PONG_LEFT ? at.w + 6 : -(at.w + 6);
        colour(r, 80, 200, 255, 255);
        SDL_RenderDrawRect(r, &at);
    }
}

static void draw_ball(SDL_Renderer *r, const pong_state *g)
{
    const pong_ball *b = &g->ball;
    if (g->serve_timer > 0)
        colour(r, 130, 136, 146, 255); /* grey while waiting to be served */
    else
        colour(r, 250, 250, 250, 255);
    SDL_RenderFillRect(r, &(SDL_Rect){px(b->x - PONG_BALL_HALF), px(b->y - PONG_BALL_HALF),
                                      px(2 * PONG_BALL_HALF), px(2 * PONG_BALL_HALF)});
}

/* The overlay sits between the left paddles and the net, below the
 * score, so it never hides a paddle. */
#define OVERLAY_X 80
#define OVERLAY_Y 96

static void overlay_line(SDL_Renderer *r, int *y, const char *text)
{
    arena_text(r, OVERLAY_X + 10, *y, TEXT, text);
    *y += LINE;
}

static void draw_overlay(SDL_Renderer *r, const pong_view *v)
{
    char line[96];
    int lines = v->local ? 3 : 9;
    SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_BLEND);
    colour(r, 0, 0, 0, 170);
    SDL_RenderFillRect(r, &(SDL_Rect){OVERLAY_X, OVERLAY_Y, 430, 12 + lines * LINE});
    SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_NONE);
    int y = OVERLAY_Y + 8;
    colour(r, 200, 210, 220, 255);
    if (v->local) {
        overlay_line(r, &y, "LOCAL: NO SERVER, NO NETCODE");
        snprintf(line, sizeof line, "TICK %d", (int)v->tick);
        overlay_line(r, &y, line);
        overlay_line(r, &y, v->bot ? "B: BOT PLAYS YOU" : "UP/DOWN OR W/S; B: BOT");
        return;
    }
    if (v->me >= 0)
        snprintf(line, sizeof line, "PLAYER %d, %s SIDE", v->me,
                 v->me % 2 == PONG_LEFT ? "LEFT" : "RIGHT");
    else
        snprintf(line, sizeof line, "NOT CONNECTED YET");
    overlay_line(r, &y, line);
    snprintf(line, sizeof line, "PING %.0f MS", v->ping_ms);
    overlay_line(r, &y, line);
    snprintf(line, sizeof line, "LEAD %.1f TICKS  DILATION %+.1f%%", v->lead_ticks,
             v->dilation * 100.0);
    overlay_line(r, &y, line);
    snprintf(line, sizeof line, "CORRECTIONS %d/S  MEAN %.1f PX", v->corrections_per_s,
             v->correction_mean_px);
    overlay_line(r, &y, line);
    snprintf(line, sizeof line, "LATE INPUTS AT SERVER %llu", (unsigned long long)v->late_inputs);
    overlay_line(r, &y, line);
    snprintf(line, sizeof line, "TICK %d  SERVER %d  %.1f KB/S", (int)v->tick,
             (int)v->server_tick, (double)v->bytes_per_s / 1000.0);
    overlay_line(r, &y, line);
    if (v->reconcile == TEMPO_RECONCILE_REPLAY)
        colour(r, 110, 230, 120, 255);
    else
        colour(r, 255, 110, 90, 255);
    snprintf(line, sizeof line, "R: RECONCILIATION %s",
             v->reconcile == TEMPO_RECONCILE_REPLAY ? "ON (REPLAY)"
             : v->reconcile == TEMPO_RECONCILE_NONE ? "OFF (SNAP BACK)"
                                                    : "OFF (NO PREDICTION)");
    overlay_line(r, &y, line);
    colour(r, 80, 200, 255, 255);
    overlay_line(r, &y, "OUTLINE: YOUR PADDLE AT THE SERVER");
    colour(r, 200, 210, 220, 255);
    overlay_line(r, &y, v->bot ? "B: BOT PLAYS YOU  F1: OVERLAY" : "UP/DOWN W/S  B: BOT  F1");
}

static void draw_status(SDL_Renderer *r, const char *text)
{
    int scale = 4, w = arena_text_width(text, scale);
    SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_BLEND);
    colour(r, 0, 0, 0, 190);
    SDL_RenderFillRect(r, &(SDL_Rect){PONG_VIEW_W / 2 - w / 2 - 20, PONG_VIEW_H / 2 - 34,
                                      w + 40, 68});
    SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_NONE);
    colour(r, 255, 206, 64, 255);
    arena_text(r, PONG_VIEW_W / 2 - w / 2, PONG_VIEW_H / 2 - 14, scale, text);
}

void pong_draw(SDL_Renderer *r, const pong_view *v)
{
    const pong_state *g = v->game;
    draw_field(r, g);
    if (g->num_players >= PONG_MIN_PLAYERS && g->num_players <= PONG_MAX_PLAYERS) {
        draw_score(r, g);
        draw_paddles(r, v);
        draw_ball(r, g);
    }
    if (v->overlay)
        draw_overlay(r, v);
    if (v->status)
        draw_status(r, v->status);
}
