/* pareto.h: the Pareto front of points in two objectives to minimise (time and energy, for the
 * report's time-energy figures, docs/energy.md): the points no other point dominates.
 * A point dominates another when it is no worse in both and better in one; equal points do not
 * dominate each other, so both are on the front. O(n log n). */
#pragma once

/* Sets on_front[i] to 1 for each point (x[i], y[i]) that no other point dominates, 0 for the
 * rest; the values are finite. Returns how many are on the front, or -1 when out of memory
 * (on_front then untouched). n 0: returns 0. */
int pareto_front(const double *x, const double *y, int n, unsigned char *on_front);
