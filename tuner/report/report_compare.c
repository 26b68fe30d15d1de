/* report_compare.c: a winner against the classic default and the fastest peer (see
 * report_compare.h). */
#include "report_compare.h"

#include <stdio.h>
#include <string.h>

#include "db/db_peers.h"
#include "ops/ops.h"

/* 1 when the comma-separated "key=value" list has key. */
static int has_key(const char *list, const char *key, size_t key_len)
{
    for (const char *p = list; p && *p;) {
        const char *eq = strchr(p, '='), *comma = strchr(p, ',');
        if (!eq || (comma && comma < eq)) return 0;
        if ((size_t)(eq - p) == key_len && strncmp(p, key, key_len) == 0) return 1;
        p = comma ? comma + 1 : NULL;
    }
    return 0;
}

int default_config_like(const char *op, const char *dtype, const char *like_config, char *buf,
                        size_t len)
{
    char kernel[128], def[1024];
    const char *dot = strchr(op, '.');
    if (!dot || len == 0) return -1;
    snprintf(kernel, sizeof kernel, "%.*s", (int)(dot - op), op);
    const op_family *fam = op_family_find(kernel);
    if (!fam || !fam->default_config || fam->default_config(fam, dtype, def, sizeof def) != 0)
        return -1;
    /* every parameter of like_config must have a default value */
    for (const char *p = like_config; *p;) {
        const char *eq = strchr(p, '='), *comma = strchr(p, ',');
        if (!eq) return -1;
        if (!has_key(def, p, (size_t)(eq - p))) return -1;
        p = comma ? comma + 1 : p + strlen(p);
    }
    size_t n = 0;
    buf[0] = 0;
    for (const char *p = def; *p;) {
        const char *eq = strchr(p, '='), *comma = strchr(p, ',');
        size_t item = comma ? (size_t)(comma - p) : strlen(p);
        if (!eq) return -1;
        if (has_key(like_config, p, (size_t)(eq - p))) {
            if (n + item + 2 > len) return -1;
            if (n) buf[n++] = ',';
            memcpy(buf + n, p, item);
            n += item;
            buf[n] = 0;
        }
        p += item + (comma ? 1 : 0);
    }
    return 0;
}

int winner_compare(db *d, const best_row *r, winner_comparison *c)
{
    memset(c, 0, sizeof *c);
    if (default_config_like(r->op, r->dtype, r->config, c->default_config,
                            sizeof c->default_config) == 0) {
        eval_result res;
        int found = db_find_evaluation(d, r->device_uuid, r->op, r->dtype, r->shape,
                                       c->default_config, &res);
        if (found == 1 && res.status == EVAL_OK) c->default_us = res.stats.median;
        eval_result_clear(&res);
        if (found < 0) return -1;
    } else {
        c->default_config[0] = 0;
    }
    int p = db_find_peer(d, r->device_uuid, r->op, r->dtype, r->shape, &c->peer_us, c->peer,
                         sizeof c->peer);
    if (p != 1) {
        c->peer_us = 0;
        c->peer[0] = 0;
    }
    return p < 0 ? -1 : 0;
}
