/* report_plots.h: the report's figures, each an SVG document written with svg.h from one
 * device's loaded data (report_data.h). Every function hands back the SVG text in *out
 * (malloc'd; caller frees) and returns 0, or -1 when out of memory. Nothing here knows a family:
 * parameters, values and problems come from the data. */
#pragma once
#include <stddef.h>
#include "report_data.h"

/* Bandwidth against problem size for every dtype of op (one panel each): the tuned config, the
 * classic default and the fastest peer library, with the copy ceiling drawn. An op whose
 * problems have flops is drawn in TFLOP/s instead, with each panel's peak (report_data.h's
 * rp_throughput). Problems that are not header entries (size_key -1) are hollow markers off the
 * lines. */
int rp_plot_bandwidth(const rp_device *dev, const char *op, char **out, size_t *len);

/* Parameter importance for every problem of op: a heatmap of spreads (rows: dtype and problem,
 * columns: parameters), the most important parameter of each row outlined. */
int rp_plot_importance(const rp_device *dev, const char *op, char **out, size_t *len);

/* Two-parameter slices of a group: per problem (every one, or the largest only), a heatmap for
 * each pair among the group's most important parameters (up to four of them), cells the best
 * time with both fixed over the winner's, the winner's cell outlined. */
int rp_plot_slices(const rp_device *dev, const rp_group *g, int largest_only, char **out,
                   size_t *len);

/* The distribution of all variants' times of a group, one histogram strip per problem on a
 * shared log axis of time over the winner's, with the winner, the default and the peer marked
 * and the statuses counted. */
int rp_plot_distribution(const rp_device *dev, const rp_group *g, char **out, size_t *len);

/* Time against energy for the problems of a group with configs measured with energy (one panel
 * each): every such config as a dot at its median time and least energy
 * per run, the Pareto front (rp_pareto) joined in time order, and rings on the time winner and
 * the energy winner. Axes are logarithmic where they span a factor of ten, else linear. */
int rp_plot_energy(const rp_device *dev, const rp_group *g, char **out, size_t *len);

/* Convergence of one non-exhaustive run: best so far over the best known, against evaluations,
 * one thin line per problem and the median over problems. */
int rp_plot_convergence(const rp_device *dev, const rp_run *run, char **out, size_t *len);

/* The short name of the peer libraries for legends ("torch 2.11.0+cu130" from
 * "torch 2.11.0+cu130: torch.mul"), or "reference library" when none is recorded. */
void rp_peer_name(const rp_device *dev, char *buf, size_t len);
