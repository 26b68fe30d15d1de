/* strategies_cmd.h: `tuner strategies SPACE --replay DUMP [--seeds N] [--budget N|P%]
 * [--strategy A,B,...] [--op OP] [--dtype DT] [--format table|csv]`: replays search strategies
 * against a recorded exhaustive space and measures how fast each finds the recorded optimum
 * (tuner/search/strategies_cmd.c says how). */
#pragma once
#include <stddef.h>

/* Runs the command over argv (the arguments after "strategies"), printing to stdout. Returns
 * the exit code: 0 done, 1 a runtime failure (err says why), 2 bad input (err holds the line to
 * print). */
int strategies_command(int argc, char **argv, char *err, size_t len);
