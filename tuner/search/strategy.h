/* strategy.h: search strategies behind one interface. A strategy proposes configs (as choice
 * arrays over a space's parameters) for one binding (op, dtype, problem, device), observes each
 * result, and says when it is done. The run loop enforces the budget in evaluations and seconds;
 * configs a constraint or the op rejects never count against it (they are observed with status
 * skipped / unsupported). Every strategy is seeded: the same seed gives the same sequence. */
#pragma once
#include <stdint.h>
#include "space/space.h"
#include "core/eval.h"

typedef struct strategy strategy;

typedef struct strategy_vtable {
    const char *name;
    /* Returns a new strategy for this binding, or NULL with err. */
    strategy *(*create)(const space *sp, const space_binding *b, uint64_t seed, int64_t budget,
                        char *err, size_t len);
    /* Writes the next config to choice (int[n_params]); returns 1, or 0 when the strategy has
     * nothing more to propose (the space is exhausted or it has converged). */
    int (*propose)(strategy *s, int *choice);
    /* The result of the last proposed config: status and, when ok, the median time. */
    void (*observe)(strategy *s, const int *choice, eval_status status, double median_us);
    void (*destroy)(strategy *s);
    /* 1 when the strategy stops once it has converged (a local optimum, a plateau) rather than
     * searching on to the budget or to exhaustion; its stop_reason then says why. */
    int converges;
} strategy_vtable;

struct strategy {
    const strategy_vtable *vt;
    const char *stop_reason; /* why propose returned 0, when the strategy says (else NULL) */
};

/* The strategy named name ("exhaustive", "random", ...), or NULL. */
const strategy_vtable *strategy_find(const char *name);
/* All strategies, NULL-terminated. */
const strategy_vtable *const *strategy_all(void);
