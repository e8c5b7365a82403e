/* SPDX-License-Identifier: MIT */
/*
 * sim_settings.h — every tempo-sim setting in one table (sim_settings.c):
 * its names on the command line and in scenario files, how its value is
 * read and written, its range and its help text.
 *
 * The command-line parser (tempo_sim.c), the scenario reader
 * (sim_scenario.c), the scenario writer (sim_scenario_write.c) and --help
 * all work from this table, so a setting has one parser and one range
 * wherever it is given. Structured settings (links, faults, peer lines)
 * have their own syntax and parsers; their rows give the help text and the
 * range of their main number, which both parsers check through
 * sim_setting_check_int / sim_setting_check_double.
 */
#ifndef TEMPO_SIM_SETTINGS_H
#define TEMPO_SIM_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim.h"

/* Rows of the table, in the order scenario files write them; the
 * command-line-only settings last. */
typedef enum sim_setting_id {
    SIM_SET_SEED,
    SIM_SET_FRAMES,
    SIM_SET_MODE,
    SIM_SET_CLIENTS,
    SIM_SET_GAME,
    SIM_SET_RECONCILE,
    SIM_SET_PLAYERS,
    SIM_SET_LOCAL_PER_PEER,
    SIM_SET_PEER,
    SIM_SET_SPECTATORS,
    SIM_SET_SPECTATOR,
    SIM_SET_PROFILE,
    SIM_SET_LINK,
    SIM_SET_NAT,
    SIM_SET_CLOCK_DRIFT,
    SIM_SET_START_SKEW,
    SIM_SET_HICCUP,
    SIM_SET_CLOCK_JUMP,
    SIM_SET_BLACKOUT,
    SIM_SET_DROP,
    SIM_SET_SPOOFER,
    SIM_SET_ONPATH,
    SIM_SET_HANDSHAKE_FLOOD,
    SIM_SET_INPUT_DELAY,
    SIM_SET_TIMESYNC,
    SIM_SET_TIMESYNC_WINDOW,
    SIM_SET_STALL_THRESHOLD,
    SIM_SET_MAX_PREDICTION,
    SIM_SET_SAVE_POLICY,
    SIM_SET_DESYNC_INTERVAL,
    SIM_SET_DESYNC_AT,
    SIM_SET_SEAL,
    SIM_SET_TOPOLOGY,
    SIM_SET_LOCKSTEP_TURNS,
    SIM_SET_COMPARE,
    SIM_SET_CHECK_DISTANCE,
    SIM_SET_NONDETERMINISTIC_AT,
    SIM_SET_SYNCTEST,
    SIM_SET_SCENARIO,
    SIM_SET_SOAK,
    SIM_SET_SOAK_FRAMES,
    SIM_SET_SOAK_PRINT,
    SIM_SET_ATTACK,
    SIM_SET_JSON,
    SIM_SET_REPORT,
    SIM_SET_CSV,
    SIM_SET_RECORD,
    SIM_SET_QUIET,
    SIM_SET_PRINT_SCENARIO,
    SIM_SET_LIST_SETTINGS,
    SIM_SET_HELP,
    SIM_NUM_SETTINGS
} sim_setting_id;

typedef enum sim_setting_kind {
    SIM_KIND_INT,       /* a whole number in min..max (and `keyword`, if any) */
    SIM_KIND_DOUBLE,    /* a decimal in lo..hi (bounds excluded when `open`) */
    SIM_KIND_FLAG,      /* no value: sets a bool (or the caller acts) */
    SIM_KIND_ENUM,      /* one of names[], stored as values[] */
    SIM_KIND_DURATION,  /* a length in frames: N, or seconds as 60s; written in seconds when whole */
    SIM_KIND_FRAME,     /* a moment: frame N, or seconds as 10s; written as a frame */
    SIM_KIND_PROFILE,   /* a link profile's name */
    SIM_KIND_PATH,      /* a file name */
    SIM_KIND_STRUCTURED /* its own syntax and parser; min..max bound its main number */
} sim_setting_kind;

/* The C type of the sim_options field a row stores into. */
typedef enum sim_field {
    SIM_FIELD_NONE,   /* the caller acts on the value */
    SIM_FIELD_INT,
    SIM_FIELD_INT64,
    SIM_FIELD_UINT64,
    SIM_FIELD_DOUBLE,
    SIM_FIELD_BOOL,
    SIM_FIELD_ENUM,   /* an enum type the size of an int */
    SIM_FIELD_STRING  /* const char *, pointing to argv or a static string */
} sim_field;

typedef struct sim_setting {
    const char *name;      /* for messages and the settings list */
    const char *option;    /* "--frames"; NULL: not on the command line */
    const char *directive; /* "duration"; "timesync window": a keyword of the
                            * timesync line; NULL: not in scenario files */
    sim_setting_kind kind;
    sim_field field;
    size_t offset;         /* in sim_options, unless field is SIM_FIELD_NONE */
    int64_t min, max;      /* INT, DURATION, FRAME, STRUCTURED */
    double lo, hi;         /* DOUBLE */
    bool open;             /* DOUBLE: lo and hi themselves are refused */
    const char *unit;      /* shown after the range ("ms", "%"), or NULL */
    const char *keyword;   /* INT: a word accepted instead of a number... */
    size_t keyword_offset; /* ...which sets this bool (and the number to 0) */
    const char *const *names; /* ENUM: NULL-terminated */
    const int *values;        /* ENUM: the value stored for each name */
    const char *cli_arg;   /* the value's placeholder on the command line ("N") */
    const char *file_arg;  /* its values in a scenario file; NULL: as cli_arg */
    const char *group;     /* --help prints the rows group by group */
    const char *help;
} sim_setting;

extern const sim_setting sim_settings[SIM_NUM_SETTINGS];

/* tempo-sim's defaults: a match of your own (4 players one per peer,
 * broadband, 3600 frames, seed 1, ...). */
void sim_settings_defaults(sim_options *o);

/* The row for a command-line option or a scenario directive; NULL if none. */
const sim_setting *sim_setting_by_option(const char *option);
const sim_setting *sim_setting_by_directive(const char *directive);

/* Read text as row s's value into *o. On error, writes the message (the
 * same text from the command line and from a file) into msg and returns
 * false. Rows of kind FLAG and STRUCTURED are not read here. */
bool sim_setting_parse(const sim_setting *s, const char *text, sim_options *o, char *msg, size_t size);

/* Row s's range as text: "1..8", "0..64 or auto", "over 0 and under 10". */
void sim_setting_range(const sim_setting *s, char *buf, size_t size);

/* The message for a value of row s that is refused: "bad value for
 * --players / players: '9' (1..8)". */
void sim_setting_error(const sim_setting *s, const char *text, char *msg, size_t size);

/* Whether v is within row s's range (for the structured rows' numbers). */
bool sim_setting_check_int(const sim_setting *s, int64_t v);
bool sim_setting_check_double(const sim_setting *s, double v);

/* Row s's value in *o as a scenario file writes it; false if the value is
 * outside the range, which means "not set" (0 or -1) and is not written. */
bool sim_setting_format(const sim_setting *s, const sim_options *o, char *buf, size_t size);

/* A whole decimal number in lo..hi and nothing after it, into *out; false
 * on anything else (the one integer reader of options and scenario files). */
bool sim_setting_read_int(const char *s, int64_t lo, int64_t hi, int64_t *out);

/* The shortest decimal that reads back as exactly v. */
void sim_format_double(double v, char *buf, size_t size);

/* The link profile's own static name string (so options own no memory), or NULL. */
const char *sim_profile_name(const char *name);

/* --help, generated from the table. */
void sim_settings_help(FILE *f);

/* One line per row, tab-separated, for scripts: name, option, directive,
 * kind, lowest and highest accepted value, and a value just below and just
 * above the range ("-" where a column does not apply). */
void sim_settings_list(FILE *f);

#endif /* TEMPO_SIM_SETTINGS_H */
