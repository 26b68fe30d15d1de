/* fuzz_config.c: libFuzzer target of the config text parsers: the kernel library's
 * tk_config_parse (what every family's *_config_from_text and the tuned-config lookup call), over
 * each built-in family's parameter space, and the tuner's space_config_parse, over the committed
 * space files of spaces/ (loaded once, from the repository root: TUNEKIT_ROOT, default the
 * current folder). The input is a config text
 * ("k=v,k=v"). A text that parses must hold only supported values, and the canonical text made
 * from those values must parse to the same values again; nothing may crash, overflow or leak. */
#include "fuzz.h"
#include <inttypes.h>
#include "tunekit.h"
#include "space/space.h"
#include "ops/user_kernel.h"

typedef const tk_config_space *(*space_fn)(void);
static const space_fn families[] = {
    tk_elementwise_config_space, tk_atomic_config_space, tk_conv1d_config_space,
    tk_index_add_config_space, tk_reduce_config_space, tk_relu_mask_config_space,
    tk_upsample_config_space,
};
#define N_FAMILIES ((int)(sizeof families / sizeof families[0]))
static const char *const space_files[] = {
    "spaces/elementwise.yaml", "spaces/reduce.yaml", "spaces/conv1d.yaml", "spaces/upsample.yaml",
};
#define N_SPACES ((int)(sizeof space_files / sizeof space_files[0]))
static space *spaces[N_SPACES];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc; (void)argv;
    const char *root = getenv("TUNEKIT_ROOT");
    for (int i = 0; i < N_SPACES; i++) {
        char err[2048], path[4096];
        snprintf(path, sizeof path, "%s/%s", root && *root ? root : ".", space_files[i]);
        spaces[i] = user_space_load(path, NULL, err, sizeof err);
        FUZZ_ASSERT(spaces[i], "run from the repository root, or set TUNEKIT_ROOT: %s", err);
    }
    return 0;
}

static void check_tk(const tk_config_space *sp, const char *text)
{
    int64_t values[64], again[64];
    FUZZ_ASSERT(sp->n_params <= 64, "too many parameters");
    if (tk_config_parse(sp, text, values) != TK_OK)
        return;
    char canon[4096];
    size_t at = 0;
    for (int k = 0; k < sp->n_params; k++) {
        const tk_param_desc *d = &sp->params[k];
        FUZZ_ASSERT(tk_param_supports(d, values[k]), "%s: %s=%" PRId64 " parsed but unsupported",
                    sp->family, d->name, values[k]);
        if (d->str_values)
            at += (size_t)snprintf(canon + at, sizeof canon - at, "%s%s=%s", k ? "," : "",
                                   d->name, d->str_values[values[k]]);
        else
            at += (size_t)snprintf(canon + at, sizeof canon - at, "%s%s=%" PRId64, k ? "," : "",
                                   d->name, values[k]);
        FUZZ_ASSERT(at < sizeof canon, "canonical text too long");
    }
    FUZZ_ASSERT(tk_config_parse(sp, canon, again) == TK_OK, "%s: '%s' parsed, its canonical "
                "form '%s' does not", sp->family, text, canon);
    FUZZ_ASSERT(memcmp(values, again, (size_t)sp->n_params * sizeof *values) == 0,
                "%s: '%s' and '%s' parse to other values", sp->family, text, canon);
}

static void check_space(const space *sp, const char *text)
{
    int choice[256], again[256];
    FUZZ_ASSERT(sp->n_params <= 256, "too many parameters");
    if (space_config_parse(sp, text, choice) != 0)
        return;
    for (int k = 0; k < sp->n_params; k++)
        FUZZ_ASSERT(choice[k] >= 0 && choice[k] < sp->params[k].n_values, "choice out of range");
    char canon[4096];
    int n = space_config_text(sp, choice, canon, sizeof canon);
    FUZZ_ASSERT(n > 0 && n < (int)sizeof canon, "canonical text does not fit");
    FUZZ_ASSERT(space_config_parse(sp, canon, again) == 0 &&
                memcmp(choice, again, (size_t)sp->n_params * sizeof *choice) == 0,
                "%s: '%s' and its canonical form '%s' differ", sp->path, text, canon);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    for (int i = 0; i < N_FAMILIES; i++)
        check_tk(families[i](), text);
    for (int i = 0; i < N_SPACES; i++)
        check_space(spaces[i], text);
    free(text);
    return 0;
}
