/* fuzz_protocol.c: libFuzzer target of the worker protocol's parser (tuner/worker/protocol.c),
 * the code both the parent and the worker run on every line the other side sends. The input is
 * one line; wp_parse must parse it or say why in one line, and a parsed message must survive a
 * round trip (formatted again with wp_add, parsed back to the same type, keys and values) and
 * go through every message reader (device, eval, result) without a crash, a leak or UB. */
#include "fuzz.h"
#include "worker/protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512] = "";
    wp_msg m, back;
    memset(&m, 0, sizeof m);
    memset(&back, 0, sizeof back);
    if (wp_parse((const char *)data, size, &m, err, sizeof err) != 0) {
        fuzz_one_line("wp_parse", err);
        wp_msg_clear(&m);
        return 0;
    }
    /* the round trip */
    wp_buf b = {0};
    wp_begin(&b, m.type);
    for (int i = 0; i < m.n; i++)
        wp_add(&b, m.keys[i], m.vals[i]);
    FUZZ_ASSERT(wp_end(&b) == 0, "wp_end failed");
    FUZZ_ASSERT(wp_parse(b.s, b.len, &back, err, sizeof err) == 0, "a formatted message does not "
                "parse: %s", err);
    FUZZ_ASSERT(strcmp(m.type, back.type) == 0 && m.n == back.n, "round trip changed the type or "
                "the field count");
    for (int i = 0; i < m.n; i++)
        FUZZ_ASSERT(strcmp(m.keys[i], back.keys[i]) == 0 && strcmp(m.vals[i], back.vals[i]) == 0,
                    "round trip changed field %d", i);
    wp_msg_clear(&back);
    wp_buf_free(&b);
    /* the readers */
    device_info dev;
    memset(&dev, 0, sizeof dev);
    err[0] = 0;
    if (wp_parse_device(&m, &dev, err, sizeof err) != 0)
        fuzz_one_line("wp_parse_device", err);
    wp_eval ev;
    err[0] = 0;
    if (wp_parse_eval(&m, &ev, err, sizeof err) != 0)
        fuzz_one_line("wp_parse_eval", err);
    eval_result r;
    memset(&r, 0, sizeof r);
    err[0] = 0;
    if (wp_parse_result(&m, &r, err, sizeof err) != 0)
        fuzz_one_line("wp_parse_result", err);
    else
        FUZZ_ASSERT(r.status != EVAL_OK || r.n_samples > 0 || r.n_playoff > 0,
                    "an ok result without samples");
    eval_result_clear(&r);
    wp_msg_clear(&m);
    return 0;
}
