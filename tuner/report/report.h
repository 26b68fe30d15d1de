/* report.h: `tuner report`, the static report of what was measured. Per device model recorded
 * in the inputs it writes DIR/<device-slug>/ with index.html, its Markdown twin README.md and
 * the SVG figures the pages show: per op, dtype and problem the tuned config with its time,
 * GB/s and share of the copy ceiling (TFLOP/s and share of the GPU's peak where the problems
 * have flops), gain over the classic default and speedup over the peer library; bandwidth
 * (or TFLOP/s) against problem size; parameter importance; two-parameter slices (of
 * each op and dtype's largest problem, or of every problem: their panels are most of a
 * report's bytes, and the committed reports must stay small);
 * the distribution of all variants' times with statuses counted; the convergence of
 * non-exhaustive strategy runs; where energy was measured, per op and dtype its time against
 * energy, with the Pareto front and the time and energy winners. Each problem's tuned config is
 * the objective's winner (time: the fastest; energy or edp: docs/energy.md). The
 * output is a function of the inputs alone (no clock, no locale): the same inputs give the same
 * bytes. A device's folder is replaced as a whole. */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "core/objective.h"

typedef struct report_options {
    const char *const *inputs;   /* dumps (.sql) or one database file, in the order given */
    int n_inputs;
    const char *device;          /* a device name, its slug or a card's uuid; NULL: every device */
    const char *out_dir;         /* the folder that receives <device-slug>/ */
    FILE *progress;              /* one line per device written, or NULL */
    int all_problems;            /* slices of every problem; 0: of each op and dtype's largest */
    objective objective;         /* what each problem's winner is chosen by */
    int64_t *no_energy;          /* set to the problems without a winner under energy or edp
                                    (no energy measured); may be NULL */
} report_options;

/* Writes the reports. Returns 0; 2 when o->device matches no recorded device or the inputs
 * hold no device (err says which devices there are); -1 on any other error (err). */
int report_generate(const report_options *o, char *err, size_t len);
