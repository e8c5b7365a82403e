/* SPDX-License-Identifier: MIT */
/*
 * replay_main.c — main() for compilers without libFuzzer: runs the linked
 * fuzz target once over every file named on the command line, and over every
 * file in each directory named. Exits 1 if a path cannot be read or nothing
 * was replayed (an empty corpus is a broken setup, not a pass).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_target.h"

#define MAX_INPUT (1u << 20)

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return -1;
    uint8_t *data = malloc(MAX_INPUT);
    size_t n = data ? fread(data, 1, MAX_INPUT, f) : 0;
    int bad = data == NULL || ferror(f);
    fclose(f);
    /* the target gets a block of exactly n bytes, so ASan sees a read past it */
    uint8_t *input = bad || n == 0 ? NULL : malloc(n);
    if (input != NULL)
        memcpy(input, data, n);
    if (!bad && (n == 0 || input != NULL))
        (void)LLVMFuzzerTestOneInput(input, n);
    free(input);
    free(data);
    return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
    int files = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: cannot read %s\n", argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (run_file(argv[i]) != 0)
                return 1;
            files++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (d == NULL)
            return 1;
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            char path[4096];
            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            if (run_file(path) != 0) {
                closedir(d);
                return 1;
            }
            files++;
        }
        closedir(d);
    }
    printf("replay: %d inputs, no failure\n", files);
    return files > 0 ? 0 : 1;
}
