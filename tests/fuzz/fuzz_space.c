/* fuzz_space.c: libFuzzer target of the space file loader. The input is a space file (YAML);
 * user_space_load (what `tuner space` and `tuner run` call) must return a space or one line of
 * error, never crash, leak or run away. A space that loads is then held to what its readers
 * rely on: its first configs (of the first op, dtype and problem) enumerate, each is allowed by
 * space_allows, and its canonical text parses back to the same choices. */
#include "fuzz.h"
#include "space/space.h"
#include "ops/user_kernel.h"

/* The loader checks every config of a space within a budget of enumeration steps; the
 * default (100 million, seconds under the sanitizers) would make slow inputs of every large
 * space: a ten-thousandth of it keeps each input fast and still runs the limit's code. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc; (void)argv;
    space_max_enum_steps = SPACE_MAX_ENUM_STEPS / 10000;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[2048] = "";
    space *sp = user_space_load(fuzz_path(data, size), NULL, err, sizeof err);
    if (!sp) {
        fuzz_one_line("space_load", err);
        return 0;
    }
    FUZZ_ASSERT(sp->n_ops > 0 && sp->n_dtypes > 0 && sp->n_problems > 0, "a loaded space is empty");
    space_binding b = {sp->ops[0], sp->dtypes[0], &sp->problems[0], NULL};
    space_iter it;
    space_iter_init(&it, sp, &b);
    int *choice = calloc((size_t)sp->n_params + 1, sizeof *choice);
    int *back = calloc((size_t)sp->n_params + 1, sizeof *back);
    FUZZ_ASSERT(choice && back, "out of memory");
    for (int k = 0; k < 32 && space_iter_next(&it, choice) == 1; k++) {
        char text[4096];
        int n = space_config_text(sp, choice, text, sizeof text);
        FUZZ_ASSERT(space_allows(sp, &b, choice) == 1, "an enumerated config is not allowed: %s", text);
        if (n >= (int)sizeof text)
            continue;
        FUZZ_ASSERT(space_config_parse(sp, text, back) == 0, "config text does not parse back: %s", text);
        FUZZ_ASSERT(memcmp(choice, back, (size_t)sp->n_params * sizeof *choice) == 0,
                    "config text parses back to other choices: %s", text);
    }
    space_iter_free(&it);
    free(choice);
    free(back);
    user_space_free(sp);
    return 0;
}
