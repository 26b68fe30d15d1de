/* pareto.c: the Pareto front of two objectives (pareto.h). The points are sorted by x, then y;
 * a sweep keeps the least y of every point of smaller x. Of the points of one x, those above
 * the group's least y are dominated by it (same x, lower y); those at it are dominated exactly
 * when some point of smaller x has a y no higher (lower x, no higher y). */
#include "pareto.h"

#include <stdlib.h>

typedef struct pareto_point {
    double x, y;
    int i;
} pareto_point;

static int by_x_then_y(const void *a, const void *b)
{
    const pareto_point *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    if (p->y != q->y)
        return p->y < q->y ? -1 : 1;
    return (p->i > q->i) - (p->i < q->i);
}

int pareto_front(const double *x, const double *y, int n, unsigned char *on_front)
{
    if (n <= 0)
        return 0;
    pareto_point *v = malloc((size_t)n * sizeof *v);
    if (!v)
        return -1;
    for (int i = 0; i < n; i++)
        v[i] = (pareto_point){x[i], y[i], i};
    qsort(v, (size_t)n, sizeof *v, by_x_then_y);
    int count = 0, have_before = 0;
    double least_before = 0;   /* the least y of the points of smaller x (when have_before) */
    for (int g = 0; g < n;) {
        int end = g;
        while (end < n && v[end].x == v[g].x)
            end++;
        const double least = v[g].y;   /* the group's least y: sorted by y within the group */
        const int beaten = have_before && least_before <= least;
        for (int k = g; k < end; k++) {
            const int front = !beaten && v[k].y == least;
            on_front[v[k].i] = (unsigned char)front;
            count += front;
        }
        if (!have_before || least < least_before)
            least_before = least;
        have_before = 1;
        g = end;
    }
    free(v);
    return count;
}
