/* SPDX-License-Identifier: MIT */
/*
 * arena_controls.c — keyboard and gamepad to arena_input.
 *
 * Invariant: the output is always 4 valid arena input bytes; every analog
 * value is quantized here, once, so the simulation only ever sees integers
 * (floats never reach arena_step, which is what keeps it deterministic).
 *
 * Keyboard: WASD move at full tilt in 8 directions, the arrow keys fire up,
 * down, left, right, Space or Shift charges. Gamepad (SDL_GameController's
 * Xbox-style names): left stick moves with its real angle and deflection,
 * right stick or Y/A/X/B fire up/down/left/right, either trigger or shoulder
 * charges. Both work at once; a stick that is pushed beats the keys.
 */
#include "arena_sdl.h"

#include <math.h>

/* Sticks rest a little off centre; below this fraction of full deflection a
 * stick counts as released (a worn stick drifts further than arena's own
 * threshold). */
#define STICK_DEAD_ZONE 0.15f
/* arena.h: "magnitude below 24 the ship stands still". Past the dead zone
 * the magnitude starts here, so the ship moves as soon as the stick does. */
#define ARENA_MOVING_MAGNITUDE 24.0f
/* Right stick: push this far along one axis to fire that way. */
#define FIRE_STICK_THRESHOLD 0.5f
/* Triggers read 0..32767; a light squeeze is enough to charge. */
#define TRIGGER_THRESHOLD 8000

#define TURN_RADIANS 6.28318530718f

void arena_quantize_stick(float x, float y, uint8_t *angle, uint8_t *magnitude)
{
    float len = sqrtf(x * x + y * y);
    if (len <= STICK_DEAD_ZONE) {
        *angle = 0;
        *magnitude = 0;
        return;
    }
    /* Rescale so the magnitude rises from arena's moving threshold at the
     * dead zone's edge to 255 at full tilt; a diagonal key press (length
     * 1.41) is full tilt too. */
    float m = (len - STICK_DEAD_ZONE) / (1.0f - STICK_DEAD_ZONE);
    if (m > 1.0f)
        m = 1.0f;
    m = ARENA_MOVING_MAGNITUDE + m * (255.0f - ARENA_MOVING_MAGNITUDE);
    /* atan2 with y down gives 0 right, +pi/2 down: arena's screen angles.
     * 256 steps a turn; the modulo folds -pi..0 onto 128..255. */
    long steps = lroundf(atan2f(y, x) * 256.0f / TURN_RADIANS);
    *angle = (uint8_t)(((steps % 256) + 256) % 256);
    *magnitude = (uint8_t)lroundf(m);
}

void arena_controls_open(arena_controls *c)
{
    c->pad = NULL;
    for (int i = 0; i < SDL_NumJoysticks() && !c->pad; i++)
        if (SDL_IsGameController(i))
            c->pad = SDL_GameControllerOpen(i);
}

void arena_controls_handle_event(arena_controls *c, const SDL_Event *ev)
{
    if (ev->type == SDL_CONTROLLERDEVICEADDED && !c->pad) {
        c->pad = SDL_GameControllerOpen(ev->cdevice.which);
    } else if (ev->type == SDL_CONTROLLERDEVICEREMOVED && c->pad &&
               SDL_JoystickInstanceID(SDL_GameControllerGetJoystick(c->pad)) ==
                   ev->cdevice.which) {
        SDL_GameControllerClose(c->pad);
        arena_controls_open(c); /* another pad may still be plugged in */
    }
}

void arena_controls_close(arena_controls *c)
{
    if (c->pad)
        SDL_GameControllerClose(c->pad);
    c->pad = NULL;
}

static float axis(SDL_GameController *pad, SDL_GameControllerAxis a)
{
    return (float)SDL_GameControllerGetAxis(pad, a) / 32767.0f;
}

static bool button(SDL_GameController *pad, SDL_GameControllerButton b)
{
    return SDL_GameControllerGetButton(pad, b) != 0;
}

static uint8_t pad_buttons(SDL_GameController *pad)
{
    uint8_t bits = 0;
    float rx = axis(pad, SDL_CONTROLLER_AXIS_RIGHTX), ry = axis(pad, SDL_CONTROLLER_AXIS_RIGHTY);
    if (fabsf(ry) >= fabsf(rx) && fabsf(ry) > FIRE_STICK_THRESHOLD)
        bits |= ry < 0 ? ARENA_FIRE_UP : ARENA_FIRE_DOWN;
    else if (fabsf(rx) > FIRE_STICK_THRESHOLD)
        bits |= rx < 0 ? ARENA_FIRE_LEFT : ARENA_FIRE_RIGHT;
    /* Face buttons by position: top, bottom, left, right. */
    if (button(pad, SDL_CONTROLLER_BUTTON_Y))
        bits |= ARENA_FIRE_UP;
    if (button(pad, SDL_CONTROLLER_BUTTON_A))
        bits |= ARENA_FIRE_DOWN;
    if (button(pad, SDL_CONTROLLER_BUTTON_X))
        bits |= ARENA_FIRE_LEFT;
    if (button(pad, SDL_CONTROLLER_BUTTON_B))
        bits |= ARENA_FIRE_RIGHT;
    if (SDL_GameControllerGetAxis(pad, SDL_CONTROLLER_AXIS_TRIGGERLEFT) > TRIGGER_THRESHOLD ||
        SDL_GameControllerGetAxis(pad, SDL_CONTROLLER_AXIS_TRIGGERRIGHT) > TRIGGER_THRESHOLD ||
        button(pad, SDL_CONTROLLER_BUTTON_LEFTSHOULDER) ||
        button(pad, SDL_CONTROLLER_BUTTON_RIGHTSHOULDER))
        bits |= ARENA_CHARGE;
    return bits;
}

arena_input arena_controls_sample(const arena_controls *c)
{
    arena_input in = {0, 0, 0, 0};
    const Uint8 *key = SDL_GetKeyboardState(NULL);
    int dx = key[SDL_SCANCODE_D] - key[SDL_SCANCODE_A];
    int dy = key[SDL_SCANCODE_S] - key[SDL_SCANCODE_W];
    arena_quantize_stick((float)dx, (float)dy, &in.angle, &in.magnitude);
    if (key[SDL_SCANCODE_UP])
        in.buttons |= ARENA_FIRE_UP;
    if (key[SDL_SCANCODE_DOWN])
        in.buttons |= ARENA_FIRE_DOWN;
    if (key[SDL_SCANCODE_LEFT])
        in.buttons |= ARENA_FIRE_LEFT;
    if (key[SDL_SCANCODE_RIGHT])
        in.buttons |= ARENA_FIRE_RIGHT;
    if (key[SDL_SCANCODE_SPACE] || key[SDL_SCANCODE_LSHIFT] || key[SDL_SCANCODE_RSHIFT])
        in.buttons |= ARENA_CHARGE;

    if (c->pad) {
        uint8_t angle, magnitude;
        arena_quantize_stick(axis(c->pad, SDL_CONTROLLER_AXIS_LEFTX),
                             axis(c->pad, SDL_CONTROLLER_AXIS_LEFTY), &angle, &magnitude);
        if (magnitude > 0) {
            in.angle = angle;
            in.magnitude = magnitude;
        }
        in.buttons |= pad_buttons(c->pad);
    }
    return in;
}
