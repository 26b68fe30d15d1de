-- schema.sql: the one tunekit database schema (version in PRAGMA user_version).
-- Embedded in the tuner binary; applied to a new database, or reached by the forward migrations
-- in tuner/db.c. Natural keys (device uuid, problem op/dtype/shape, config text, kernel hash) are
-- UNIQUE so that dumps import idempotently and resume can skip what is already measured.
-- Times are microseconds; bandwidths GB/s (1e9 bytes/s), counting bytes read plus written.

CREATE TABLE IF NOT EXISTS devices (
  id                    INTEGER PRIMARY KEY,
  uuid                  TEXT NOT NULL UNIQUE,
  name                  TEXT NOT NULL,
  cc_major              INTEGER NOT NULL,
  cc_minor              INTEGER NOT NULL,
  sm_count              INTEGER NOT NULL,
  max_threads_per_sm    INTEGER NOT NULL,
  max_threads_per_block INTEGER NOT NULL,
  regs_per_sm           INTEGER NOT NULL,
  smem_per_sm           INTEGER NOT NULL,
  l2_bytes              INTEGER NOT NULL,
  mem_bytes             INTEGER NOT NULL,
  sm_clock_khz          INTEGER NOT NULL,
  mem_clock_khz         INTEGER NOT NULL,
  mem_bus_bits          INTEGER NOT NULL,
  driver_version        INTEGER NOT NULL,
  runtime_version       INTEGER NOT NULL
);

-- One tuner invocation on one device. copy_gbps: device-to-device copy bandwidth measured in
-- this run (bytes read + written), the ceiling every evaluation of the run is compared with.
CREATE TABLE IF NOT EXISTS runs (
  id           INTEGER PRIMARY KEY,
  device_id    INTEGER NOT NULL REFERENCES devices(id),
  started_at   TEXT NOT NULL,                -- ISO 8601 UTC; part of the run's natural key
  finished_at  TEXT,
  space        TEXT NOT NULL,                -- space file path as given
  space_hash   TEXT NOT NULL,                -- sha256 of the space file's bytes
  strategy     TEXT NOT NULL,
  seed         INTEGER NOT NULL,
  backend      TEXT NOT NULL,                -- "cuda", "replay:PATH"
  copy_gbps    REAL,
  tuner_version TEXT NOT NULL,
  UNIQUE (device_id, started_at)
);

-- op is "family.op" (elementwise.mul); shape is the canonical problem text (sorted keys,
-- "n=33554432,offset=0"); size_key is the problem size the header dispatches on, NULL for
-- problems that are not header entries (e.g. a deliberately misaligned pointer). flops: the
-- floating-point operations one run does, as a user kernel's space gives them (kernel.flops;
-- schema version 6), NULL when not given. A problem with flops is shown in TFLOP/s and as a
-- share of the GPU's peak, one without in GB/s and as a share of the copy rate.
CREATE TABLE IF NOT EXISTS problems (
  id        INTEGER PRIMARY KEY,
  op        TEXT NOT NULL,
  dtype     TEXT NOT NULL,
  shape     TEXT NOT NULL,
  elements  INTEGER NOT NULL,
  bytes     INTEGER NOT NULL,                -- fewest bytes the op must move (read + written)
  size_key  INTEGER,
  flops     INTEGER,
  UNIQUE (op, dtype, shape)
);

-- Canonical config text, sorted keys: "block_size=256,loop=grid_stride,pack_size=4,waves=32".
CREATE TABLE IF NOT EXISTS configs (
  id    INTEGER PRIMARY KEY,
  text  TEXT NOT NULL UNIQUE
);

-- One (device, problem, config, kernel source) measured. status is one of ok, invalid,
-- launch_error, fault, timeout, unsupported, skipped, compile_error (a user kernel's variant the
-- compiler refused; schema version 2); only ok rows carry times and can win. error says why a
-- row failed; on an ok row it is a note: "raced: ..." when racing stopped its timing early, the
-- runs it had showing it surely slower than the best by more than the space's race margin
-- (docs/time-to-tune.md; it then has fewer than min_runs runs, all kept).
-- Energy (schema version 7, docs/energy.md): an ok row measured with the space's measure.energy
-- on carries energy_j, the joules one run of the variant used (the board's energy counter read
-- over a window of back-to-back runs, divided by their count), power_w, the board's average
-- power over that window (W), energy_window_ms, the window's length, and at the window's end
-- sm_mhz and mem_mhz (the clocks), temp_c (the GPU's temperature) and throttle (NVML's clock
-- event reasons, a bit mask, 0: none). All NULL when not measured (every row before version 7)
-- and on every row that is not ok; a NULL within a measured row is a reading the board did not
-- give (energy_j never is). They come last, in this order, as the migration from version 6 adds
-- them.
CREATE TABLE IF NOT EXISTS evaluations (
  id           INTEGER PRIMARY KEY,
  run_id       INTEGER NOT NULL REFERENCES runs(id),
  device_id    INTEGER NOT NULL REFERENCES devices(id),
  problem_id   INTEGER NOT NULL REFERENCES problems(id),
  config_id    INTEGER NOT NULL REFERENCES configs(id),
  kernel_hash  TEXT NOT NULL,
  status       TEXT NOT NULL CHECK (status IN
                 ('ok','invalid','launch_error','fault','timeout','unsupported','skipped',
                  'compile_error')),
  error        TEXT,
  median_us    REAL, min_us REAL, max_us REAL, mean_us REAL, stddev_us REAL,
  ci_lo_us     REAL, ci_hi_us REAL,
  n_runs       INTEGER NOT NULL DEFAULT 0,
  gbps         REAL,
  frac_copy    REAL,
  seq          INTEGER NOT NULL DEFAULT 0,   -- order of evaluation within its run (convergence plots)
  created_at   TEXT NOT NULL,
  energy_j     REAL CHECK (energy_j IS NULL OR energy_j > 0),   -- J per run
  power_w      REAL,                         -- W, average over the window
  energy_window_ms REAL,                     -- ms the counter was read over
  sm_mhz       INTEGER,                      -- clocks at the window's end
  mem_mhz      INTEGER,
  temp_c       INTEGER,                      -- degrees C at the window's end
  throttle     INTEGER,                      -- clock event reasons (bit mask)
  UNIQUE (device_id, problem_id, config_id, kernel_hash),
  CHECK (status <> 'ok' OR (median_us > 0 AND n_runs > 0))
);

-- Every timed run of every ok evaluation, in the order it was taken.
CREATE TABLE IF NOT EXISTS samples (
  evaluation_id INTEGER NOT NULL REFERENCES evaluations(id) ON DELETE CASCADE,
  idx           INTEGER NOT NULL,
  us            REAL NOT NULL,
  PRIMARY KEY (evaluation_id, idx)
) WITHOUT ROWID;

-- Reference libraries (PyTorch, CuPy) timed on the same problems, the same way, by
-- reports/peers.py. copy_gbps is the ceiling measured in the same call.
CREATE TABLE IF NOT EXISTS peers (
  id            INTEGER PRIMARY KEY,
  device_id     INTEGER NOT NULL REFERENCES devices(id),
  problem_id    INTEGER NOT NULL REFERENCES problems(id),
  library       TEXT NOT NULL,               -- "torch 2.11.0+cu130: torch.mul"
  median_us     REAL NOT NULL, min_us REAL, mean_us REAL, stddev_us REAL,
  ci_lo_us      REAL, ci_hi_us REAL,
  n_runs        INTEGER NOT NULL,
  gbps          REAL,
  frac_copy     REAL,
  copy_gbps     REAL,
  created_at    TEXT NOT NULL,
  UNIQUE (device_id, problem_id, library)
);

CREATE INDEX IF NOT EXISTS evaluations_by_problem ON evaluations(device_id, problem_id, status);

-- The last playoff of a problem on a device (schema version 3, docs/time-to-tune.md): its
-- contenders, the ok configs within the race margin of the best, re-timed in one go, one run
-- of each per round, so that drift between their separate evaluations cannot pick the winner.
-- One row per contender: its runs in the playoff (samples, a JSON array of n_runs timings in
-- order) and their median. A new playoff of the problem replaces the rows of the last one.
CREATE TABLE IF NOT EXISTS playoffs (
  evaluation_id INTEGER PRIMARY KEY REFERENCES evaluations(id) ON DELETE CASCADE,
  run_id        INTEGER NOT NULL REFERENCES runs(id),
  median_us     REAL NOT NULL CHECK (median_us > 0),
  ci_lo_us      REAL, ci_hi_us REAL,
  n_runs        INTEGER NOT NULL CHECK (n_runs > 0),
  samples       TEXT NOT NULL,
  created_at    TEXT NOT NULL
);

-- The winner per device and problem (schema version 5): the ok evaluation with the lowest own
-- median (t below), unless it played in the problem's last playoff: then the contender with the
-- lowest playoff median. A playoff orders its own contenders only. Playoff medians are not
-- comparable with own medians (interleaved runs, and contenders picked for their low own
-- medians, come out a few percent above them), so a config that did not play never beats the
-- playoff's winner by comparing the two; version 4 ranked every evaluation by its playoff median
-- or else its own, and a config just outside the playoff won most played problems
-- (docs/time-to-tune.md#the-playoff). A config measured after the playoff and faster than
-- every contender wins: nothing has played it since. Ties go by config text, then kernel hash,
-- so the answer is deterministic. median_us is the evaluation's own; playoff_us its playoff
-- median (NULL when it played none). Driven from the problems and devices (CROSS JOIN keeps
-- that order), each pair's winner found through the evaluations_by_problem index with one sort
-- or two: a filter on op, dtype or device narrows the work to what it keeps.
CREATE VIEW IF NOT EXISTS best AS
SELECT d.name AS device, d.uuid AS device_uuid, p.op, p.dtype, p.shape, p.size_key,
       c.text AS config, e.median_us, e.gbps, e.frac_copy, e.kernel_hash, e.id AS evaluation_id,
       e.device_id, e.problem_id, pl.median_us AS playoff_us
FROM problems p
CROSS JOIN devices d
CROSS JOIN evaluations e ON e.id = (
    SELECT CASE WHEN EXISTS (SELECT 1 FROM playoffs pl4 WHERE pl4.evaluation_id = t.id)
           THEN (SELECT e3.id FROM evaluations e3 JOIN configs c3 ON c3.id = e3.config_id
                 JOIN playoffs pl3 ON pl3.evaluation_id = e3.id
                 WHERE e3.device_id = d.id AND e3.problem_id = p.id AND e3.status = 'ok'
                 ORDER BY pl3.median_us, c3.text, e3.kernel_hash LIMIT 1)
           ELSE t.id END
    FROM (SELECT e2.id FROM evaluations e2 JOIN configs c2 ON c2.id = e2.config_id
          WHERE e2.device_id = d.id AND e2.problem_id = p.id AND e2.status = 'ok'
          ORDER BY e2.median_us, c2.text, e2.kernel_hash LIMIT 1) AS t)
JOIN configs c ON c.id = e.config_id
LEFT JOIN playoffs pl ON pl.evaluation_id = e.id;
