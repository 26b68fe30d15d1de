/* objective.h: what a search minimises and a winner is chosen by (docs/energy.md): time (the
 * median), energy (joules per run) or the energy-delay product (joules x seconds). One score per
 * evaluation, lower is better; every reader of results (the run loop, best, header, report)
 * ranks through it. */
#pragma once

/* The energy window (measure.energy) an energy or edp search takes when the space sets none. */
#define ENERGY_DEFAULT_S 1.0

typedef enum objective {
    OBJECTIVE_TIME = 0,
    OBJECTIVE_ENERGY,
    OBJECTIVE_EDP,
    OBJECTIVE_COUNT
} objective;

const char *objective_name(objective o);
/* The objective named ("time", "energy", "edp"), or -1. */
int objective_parse(const char *name);
/* The score of an ok evaluation of median_us that used joules per run (0: not measured):
 * time: median_us; energy: joules; edp: joules x median_us / 1e6 (J s). -1 when the objective
 * needs an energy that was not measured. */
double objective_score(objective o, double median_us, double joules);
/* The unit of a score ("us", "J", "J s"). */
const char *objective_unit(objective o);
