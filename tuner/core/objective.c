/* objective.c: the objectives' names and scores (objective.h). */
#include "objective.h"

#include <string.h>

static const char *const names[OBJECTIVE_COUNT] = {"time", "energy", "edp"};
static const char *const units[OBJECTIVE_COUNT] = {"us", "J", "J s"};

const char *objective_name(objective o)
{
    return o >= 0 && o < OBJECTIVE_COUNT ? names[o] : "?";
}

int objective_parse(const char *name)
{
    for (int i = 0; name && i < OBJECTIVE_COUNT; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

double objective_score(objective o, double median_us, double joules)
{
    switch (o) {
    case OBJECTIVE_TIME:
        return median_us;
    case OBJECTIVE_ENERGY:
        return joules > 0 ? joules : -1;
    case OBJECTIVE_EDP:
        return joules > 0 && median_us > 0 ? joules * median_us * 1e-6 : -1;
    default:
        return -1;
    }
}

const char *objective_unit(objective o)
{
    return o >= 0 && o < OBJECTIVE_COUNT ? units[o] : "";
}
