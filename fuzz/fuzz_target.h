/* SPDX-License-Identifier: MIT */
/*
 * fuzz_target.h — the entry point every fuzz target defines, called by
 * libFuzzer or by replay_main.c. Returns 0; a broken property aborts.
 */
#ifndef TEMPO_FUZZ_TARGET_H
#define TEMPO_FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* TEMPO_FUZZ_TARGET_H */
