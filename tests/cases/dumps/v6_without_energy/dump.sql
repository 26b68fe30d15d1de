-- tunekit dump, schema version 6
-- Rows are sorted by natural key and refer to each other by natural key (no local ids).
-- Load with `sqlite3 new.db < FILE` or `tuner db import FILE`.
-- a version-6 dump (before the evaluations' energy columns, schema version 7): two ok
-- evaluations of examples/vector's saxpy, cut from its committed H100 dump, in the format and
-- with the schema and trigger version 6 wrote; imports, its evaluations with NULL energy
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
PRAGMA user_version = 6;
BEGIN;
-- devices
INSERT OR IGNORE INTO devices(uuid,name,cc_major,cc_minor,sm_count,max_threads_per_sm,max_threads_per_block,regs_per_sm,smem_per_sm,l2_bytes,mem_bytes,sm_clock_khz,mem_clock_khz,mem_bus_bits,driver_version,runtime_version) VALUES
('GPU-31531c82-312b-0909-9fba-152d58c2984b','NVIDIA H100 80GB HBM3',9,0,132,2048,1024,65536,233472,52428800,85017493504,1980000,2619000,5120,13000,13000);
-- runs
INSERT OR IGNORE INTO runs(device_id,started_at,finished_at,space,space_hash,strategy,seed,backend,copy_gbps,tuner_version) VALUES((SELECT id FROM devices WHERE uuid='GPU-31531c82-312b-0909-9fba-152d58c2984b'),'2026-11-25T04:33:07.557Z','2026-11-25T04:33:07.694Z','examples/vector/saxpy.yaml','1b417ef7c7c6a7bab75f19f39928ae12f7728c7ff3232b2f5ad001e605172262','exhaustive',1,'cuda',2974.8155267076404,'0.1.0');
-- problems
INSERT OR IGNORE INTO problems(op,dtype,shape,elements,bytes,size_key) VALUES
('vector.saxpy','f32','n=1048576',1048576,12582912,1048576);
-- configs
INSERT OR IGNORE INTO configs(text) VALUES
('block_size=128,items=1'),
('block_size=256,items=1');
-- evaluations and their samples
CREATE TEMP VIEW dump_evaluations(device,run_device,run_started_at,op,dtype,shape,kernel_hash,sample_values,created_at_prefix,config,status,error,stats,n_runs,seq,created_at_rest,samples) AS SELECT NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL WHERE 0;
CREATE TEMP TRIGGER dump_evaluations_insert INSTEAD OF INSERT ON dump_evaluations BEGIN
INSERT OR IGNORE INTO evaluations(run_id,device_id,problem_id,config_id,kernel_hash,status,error,median_us,min_us,max_us,mean_us,stddev_us,ci_lo_us,ci_hi_us,n_runs,gbps,frac_copy,seq,created_at) SELECT r.id,d.id,p.id,c.id,NEW.kernel_hash,NEW.status,NEW.error,json_extract(NEW.stats,'$[0]'),json_extract(NEW.stats,'$[1]'),json_extract(NEW.stats,'$[2]'),json_extract(NEW.stats,'$[3]'),json_extract(NEW.stats,'$[4]'),json_extract(NEW.stats,'$[5]'),json_extract(NEW.stats,'$[6]'),NEW.n_runs,json_extract(NEW.stats,'$[7]'),json_extract(NEW.stats,'$[8]'),NEW.seq,NEW.created_at_prefix||NEW.created_at_rest FROM devices d,devices rd,runs r,problems p,configs c WHERE d.uuid=NEW.device AND rd.uuid=NEW.run_device AND r.device_id=rd.id AND r.started_at=NEW.run_started_at AND p.op=NEW.op AND p.dtype=NEW.dtype AND p.shape=NEW.shape AND c.text=NEW.config;
INSERT OR IGNORE INTO samples(evaluation_id,idx,us) SELECT e.id,j.key,json_extract(NEW.sample_values,'$['||j.value||']') FROM devices d,problems p,configs c,evaluations e,json_each(NEW.samples) j WHERE d.uuid=NEW.device AND p.op=NEW.op AND p.dtype=NEW.dtype AND p.shape=NEW.shape AND c.text=NEW.config AND e.device_id=d.id AND e.problem_id=p.id AND e.config_id=c.id AND e.kernel_hash=NEW.kernel_hash AND e.created_at=NEW.created_at_prefix||NEW.created_at_rest AND NOT EXISTS (SELECT 1 FROM samples s WHERE s.evaluation_id=e.id);
END;
INSERT INTO dump_evaluations(device,run_device,run_started_at,op,dtype,shape,kernel_hash,sample_values,created_at_prefix,config,status,error,stats,n_runs,seq,created_at_rest,samples) SELECT 'GPU-31531c82-312b-0909-9fba-152d58c2984b','GPU-31531c82-312b-0909-9fba-152d58c2984b','2026-11-25T04:33:07.557Z','vector.saxpy','f32','n=1048576','c5b2862d988814eb','[8.76799971,8.8320002,8.86400044,8.89599975,8.928,8.96000024,8.99199955,9.0239998,9.05600004,9.08800028,9.11999959,9.15199984,9.18400008,9.21600033,9.24799964,9.31200013,9.34400037,9.37599968,9.44000017,9.53599997,9.56800021,9.66400001]','2026-11-25T04:33:07.',v.* FROM (VALUES
('block_size=128,items=1','ok',NULL,'[9.15199984,8.99199955,9.66400001,9.2070399972,0.17393214056388892,9.08800028,9.24799964,1374.8811429175025,0.46217358036958484]',25,4,'588Z','[16,10,9,13,9,12,8,9,20,14,8,8,18,15,8,7,11,17,11,16,14,6,8,21,14]'),
('block_size=256,items=1','ok',NULL,'[9.05600004,8.76799971,9.53599997,9.070857095714286,0.16853832773413835,8.99199955,9.15199984,1389.4558242515202,0.4670729367172869]',28,8,'603Z','[8,9,11,8,0,2,9,14,8,3,5,12,19,1,13,3,4,6,11,14,6,3,14,10,7,9,16,8]')
) v;
DROP VIEW dump_evaluations;
-- peers
-- playoffs
COMMIT;
