-- tunekit dump, schema version 1
-- Rows are sorted by natural key and refer to each other by natural key (no local ids).
-- Load with `sqlite3 new.db < FILE` or `tuner db import FILE`.
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
-- problems that are not header entries (e.g. a deliberately misaligned pointer).
CREATE TABLE IF NOT EXISTS problems (
  id        INTEGER PRIMARY KEY,
  op        TEXT NOT NULL,
  dtype     TEXT NOT NULL,
  shape     TEXT NOT NULL,
  elements  INTEGER NOT NULL,
  bytes     INTEGER NOT NULL,                -- fewest bytes the op must move (read + written)
  size_key  INTEGER,
  UNIQUE (op, dtype, shape)
);

-- Canonical config text, sorted keys: "block_size=256,loop=grid_stride,pack_size=4,waves=32".
CREATE TABLE IF NOT EXISTS configs (
  id    INTEGER PRIMARY KEY,
  text  TEXT NOT NULL UNIQUE
);

-- One (device, problem, config, kernel source) measured. status is one of ok, invalid,
-- launch_error, fault, timeout, unsupported, skipped; only ok rows carry times and can win.
CREATE TABLE IF NOT EXISTS evaluations (
  id           INTEGER PRIMARY KEY,
  run_id       INTEGER NOT NULL REFERENCES runs(id),
  device_id    INTEGER NOT NULL REFERENCES devices(id),
  problem_id   INTEGER NOT NULL REFERENCES problems(id),
  config_id    INTEGER NOT NULL REFERENCES configs(id),
  kernel_hash  TEXT NOT NULL,
  status       TEXT NOT NULL CHECK (status IN
                 ('ok','invalid','launch_error','fault','timeout','unsupported','skipped')),
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

-- The winner per device and problem: the ok evaluation with the smallest median (ties broken by
-- config text, then kernel hash, so the answer is deterministic).
CREATE VIEW IF NOT EXISTS best AS
SELECT d.name AS device, d.uuid AS device_uuid, p.op, p.dtype, p.shape, p.size_key,
       c.text AS config, e.median_us, e.gbps, e.frac_copy, e.kernel_hash, e.id AS evaluation_id,
       e.device_id, e.problem_id
FROM evaluations e
JOIN devices d ON d.id = e.device_id
JOIN problems p ON p.id = e.problem_id
JOIN configs c ON c.id = e.config_id
WHERE e.status = 'ok'
  AND NOT EXISTS (
    SELECT 1 FROM evaluations e2 JOIN configs c2 ON c2.id = e2.config_id
    WHERE e2.device_id = e.device_id AND e2.problem_id = e.problem_id AND e2.status = 'ok'
      AND (e2.median_us < e.median_us
           OR (e2.median_us = e.median_us
               AND (c2.text < c.text OR (c2.text = c.text AND e2.kernel_hash < e.kernel_hash)))));
PRAGMA user_version = 1;
BEGIN;
-- devices
INSERT OR IGNORE INTO devices(uuid,name,cc_major,cc_minor,sm_count,max_threads_per_sm,max_threads_per_block,regs_per_sm,smem_per_sm,l2_bytes,mem_bytes,sm_clock_khz,mem_clock_khz,mem_bus_bits,driver_version,runtime_version) VALUES
('GPU-5752653f-a7f6-a3b8-831e-3a550f0344d9','NVIDIA H100 80GB HBM3',9,0,132,2048,1024,65536,233472,52428800,85017493504,1980000,2619000,5120,13000,13000);
-- runs
INSERT OR IGNORE INTO runs(device_id,started_at,finished_at,space,space_hash,strategy,seed,backend,copy_gbps,tuner_version) VALUES((SELECT id FROM devices WHERE uuid='GPU-5752653f-a7f6-a3b8-831e-3a550f0344d9'),'2026-11-21T23:01:37.562Z','2026-11-21T23:01:37.969Z','reports/l2_states/dot_clean.yaml','3eed3fd399187b947fe5fead0097cc21a047a4bdebce3e701e4e09460d28655a','exhaustive',1,'cuda',2965.6132957224245,'0.1.0');
INSERT OR IGNORE INTO runs(device_id,started_at,finished_at,space,space_hash,strategy,seed,backend,copy_gbps,tuner_version) VALUES((SELECT id FROM devices WHERE uuid='GPU-5752653f-a7f6-a3b8-831e-3a550f0344d9'),'2026-11-21T23:01:38.348Z','2026-11-21T23:01:38.605Z','reports/l2_states/reduce_clean.yaml','7c432e04c1dafe100c12ab4d58cd0dda49ba16f9aebd23dc638c9f4c0b4b7d79','exhaustive',1,'cuda',2987.927971444636,'0.1.0');
-- problems
INSERT OR IGNORE INTO problems(op,dtype,shape,elements,bytes,size_key) VALUES
('atomic.dot','f16','n=33554432,offset=0,out_index=0,out_len=2,out_offset=0',33554432,134217728,33554432),
('reduce.sum','f32','n=33554432,offset=0',33554432,134217732,33554432);
-- configs
INSERT OR IGNORE INTO configs(text) VALUES
('block_size=1024,cache_hint=evict_first,finish=atomic,load=cop,pack_size=4,unroll=1,version=8,waves=1'),
('block_size=1024,cache_hint=evict_first,finish=atomic,load=cop,pack_size=4,unroll=2,version=9,waves=1'),
('block_size=1024,cache_hint=evict_first,finish=atomic,load=cop,pack_size=4,unroll=4,version=9,waves=1'),
('block_size=1024,cache_hint=evict_first,finish=atomic,load=no_allocate,pack_size=4,unroll=1,version=8,waves=1'),
('block_size=1024,cache_hint=evict_first,finish=atomic,load=no_allocate,pack_size=4,unroll=2,version=9,waves=1'),
('block_size=1024,cache_hint=evict_first,finish=atomic,load=no_allocate,pack_size=4,unroll=4,version=9,waves=1'),
('block_size=1024,cache_hint=evict_first,finish=last_block,load=cop,pack_size=4,unroll=1,version=8,waves=1'),
('block_size=1024,cache_hint=evict_first,finish=last_block,load=cop,pack_size=4,unroll=2,version=9,waves=1'),
('block_size=1024,cache_hint=evict_first,finish=last_block,load=cop,pack_size=4,unroll=4,version=9,waves=1'),
('block_size=1024,cache_hint=evict_first,finish=last_block,load=no_allocate,pack_size=4,unroll=1,version=8,waves=1'),
('block_size=1024,cache_hint=evict_first,finish=last_block,load=no_allocate,pack_size=4,unroll=2,version=9,waves=1'),
('block_size=1024,cache_hint=evict_first,finish=last_block,load=no_allocate,pack_size=4,unroll=4,version=9,waves=1'),
('block_size=1024,cache_hint=normal,finish=atomic,load=cop,pack_size=4,unroll=1,version=8,waves=1'),
('block_size=1024,cache_hint=normal,finish=atomic,load=cop,pack_size=4,unroll=2,version=9,waves=1'),
('block_size=1024,cache_hint=normal,finish=atomic,load=cop,pack_size=4,unroll=4,version=9,waves=1'),
('block_size=1024,cache_hint=normal,finish=atomic,load=no_allocate,pack_size=4,unroll=1,version=8,waves=1'),
('block_size=1024,cache_hint=normal,finish=atomic,load=no_allocate,pack_size=4,unroll=2,version=9,waves=1'),
('block_size=1024,cache_hint=normal,finish=atomic,load=no_allocate,pack_size=4,unroll=4,version=9,waves=1'),
('block_size=1024,cache_hint=normal,finish=last_block,load=cop,pack_size=4,unroll=1,version=8,waves=1'),
('block_size=1024,cache_hint=normal,finish=last_block,load=cop,pack_size=4,unroll=2,version=9,waves=1'),
('block_size=1024,cache_hint=normal,finish=last_block,load=cop,pack_size=4,unroll=4,version=9,waves=1'),
('block_size=1024,cache_hint=normal,finish=last_block,load=no_allocate,pack_size=4,unroll=1,version=8,waves=1'),
('block_size=1024,cache_hint=normal,finish=last_block,load=no_allocate,pack_size=4,unroll=2,version=9,waves=1'),
('block_size=1024,cache_hint=normal,finish=last_block,load=no_allocate,pack_size=4,unroll=4,version=9,waves=1'),
('block_size=1024,strategy=block_reduce,waves=1'),
('block_size=1024,strategy=block_reduce,waves=16'),
('block_size=1024,strategy=block_reduce,waves=2'),
('block_size=1024,strategy=block_reduce,waves=32'),
('block_size=1024,strategy=block_reduce,waves=4'),
('block_size=1024,strategy=block_reduce,waves=8'),
('block_size=128,strategy=block_reduce,waves=1'),
('block_size=128,strategy=block_reduce,waves=16'),
('block_size=128,strategy=block_reduce,waves=2'),
('block_size=128,strategy=block_reduce,waves=32'),
('block_size=128,strategy=block_reduce,waves=4'),
('block_size=128,strategy=block_reduce,waves=8'),
('block_size=256,cache_hint=evict_first,finish=atomic,load=cop,pack_size=4,unroll=1,version=8,waves=1'),
('block_size=256,cache_hint=evict_first,finish=atomic,load=cop,pack_size=4,unroll=2,version=9,waves=1'),
('block_size=256,cache_hint=evict_first,finish=atomic,load=cop,pack_size=4,unroll=4,version=9,waves=1'),
('block_size=256,cache_hint=evict_first,finish=atomic,load=no_allocate,pack_size=4,unroll=1,version=8,waves=1'),
('block_size=256,cache_hint=evict_first,finish=atomic,load=no_allocate,pack_size=4,unroll=2,version=9,waves=1'),
('block_size=256,cache_hint=evict_first,finish=atomic,load=no_allocate,pack_size=4,unroll=4,version=9,waves=1'),
('block_size=256,cache_hint=evict_first,finish=last_block,load=cop,pack_size=4,unroll=1,version=8,waves=1'),
('block_size=256,cache_hint=evict_first,finish=last_block,load=cop,pack_size=4,unroll=2,version=9,waves=1'),
('block_size=256,cache_hint=evict_first,finish=last_block,load=cop,pack_size=4,unroll=4,version=9,waves=1'),
('block_size=256,cache_hint=evict_first,finish=last_block,load=no_allocate,pack_size=4,unroll=1,version=8,waves=1'),
('block_size=256,cache_hint=evict_first,finish=last_block,load=no_allocate,pack_size=4,unroll=2,version=9,waves=1'),
('block_size=256,cache_hint=evict_first,finish=last_block,load=no_allocate,pack_size=4,unroll=4,version=9,waves=1'),
('block_size=256,cache_hint=normal,finish=atomic,load=cop,pack_size=4,unroll=1,version=8,waves=1'),
('block_size=256,cache_hint=normal,finish=atomic,load=cop,pack_size=4,unroll=2,version=9,waves=1'),
('block_size=256,cache_hint=normal,finish=atomic,load=cop,pack_size=4,unroll=4,version=9,waves=1'),
('block_size=256,cache_hint=normal,finish=atomic,load=no_allocate,pack_size=4,unroll=1,version=8,waves=1'),
('block_size=256,cache_hint=normal,finish=atomic,load=no_allocate,pack_size=4,unroll=2,version=9,waves=1'),
('block_size=256,cache_hint=normal,finish=atomic,load=no_allocate,pack_size=4,unroll=4,version=9,waves=1'),
('block_size=256,cache_hint=normal,finish=last_block,load=cop,pack_size=4,unroll=1,version=8,waves=1'),
('block_size=256,cache_hint=normal,finish=last_block,load=cop,pack_size=4,unroll=2,version=9,waves=1'),
('block_size=256,cache_hint=normal,finish=last_block,load=cop,pack_size=4,unroll=4,version=9,waves=1'),
('block_size=256,cache_hint=normal,finish=last_block,load=no_allocate,pack_size=4,unroll=1,version=8,waves=1'),
('block_size=256,cache_hint=normal,finish=last_block,load=no_allocate,pack_size=4,unroll=2,version=9,waves=1'),
('block_size=256,cache_hint=normal,finish=last_block,load=no_allocate,pack_size=4,unroll=4,version=9,waves=1'),
('block_size=256,strategy=block_reduce,waves=1'),
('block_size=256,strategy=block_reduce,waves=16'),
('block_size=256,strategy=block_reduce,waves=2'),
('block_size=256,strategy=block_reduce,waves=32'),
('block_size=256,strategy=block_reduce,waves=4'),
('block_size=256,strategy=block_reduce,waves=8'),
('block_size=512,cache_hint=evict_first,finish=atomic,load=cop,pack_size=4,unroll=1,version=8,waves=1'),
('block_size=512,cache_hint=evict_first,finish=atomic,load=cop,pack_size=4,unroll=2,version=9,waves=1'),
('block_size=512,cache_hint=evict_first,finish=atomic,load=cop,pack_size=4,unroll=4,version=9,waves=1'),
('block_size=512,cache_hint=evict_first,finish=atomic,load=no_allocate,pack_size=4,unroll=1,version=8,waves=1'),
('block_size=512,cache_hint=evict_first,finish=atomic,load=no_allocate,pack_size=4,unroll=2,version=9,waves=1'),
('block_size=512,cache_hint=evict_first,finish=atomic,load=no_allocate,pack_size=4,unroll=4,version=9,waves=1'),
('block_size=512,cache_hint=evict_first,finish=last_block,load=cop,pack_size=4,unroll=1,version=8,waves=1'),
('block_size=512,cache_hint=evict_first,finish=last_block,load=cop,pack_size=4,unroll=2,version=9,waves=1'),
('block_size=512,cache_hint=evict_first,finish=last_block,load=cop,pack_size=4,unroll=4,version=9,waves=1'),
('block_size=512,cache_hint=evict_first,finish=last_block,load=no_allocate,pack_size=4,unroll=1,version=8,waves=1'),
('block_size=512,cache_hint=evict_first,finish=last_block,load=no_allocate,pack_size=4,unroll=2,version=9,waves=1'),
('block_size=512,cache_hint=evict_first,finish=last_block,load=no_allocate,pack_size=4,unroll=4,version=9,waves=1'),
('block_size=512,cache_hint=normal,finish=atomic,load=cop,pack_size=4,unroll=1,version=8,waves=1'),
('block_size=512,cache_hint=normal,finish=atomic,load=cop,pack_size=4,unroll=2,version=9,waves=1'),
('block_size=512,cache_hint=normal,finish=atomic,load=cop,pack_size=4,unroll=4,version=9,waves=1'),
('block_size=512,cache_hint=normal,finish=atomic,load=no_allocate,pack_size=4,unroll=1,version=8,waves=1'),
('block_size=512,cache_hint=normal,finish=atomic,load=no_allocate,pack_size=4,unroll=2,version=9,waves=1'),
('block_size=512,cache_hint=normal,finish=atomic,load=no_allocate,pack_size=4,unroll=4,version=9,waves=1'),
('block_size=512,cache_hint=normal,finish=last_block,load=cop,pack_size=4,unroll=1,version=8,waves=1'),
('block_size=512,cache_hint=normal,finish=last_block,load=cop,pack_size=4,unroll=2,version=9,waves=1'),
('block_size=512,cache_hint=normal,finish=last_block,load=cop,pack_size=4,unroll=4,version=9,waves=1'),
('block_size=512,cache_hint=normal,finish=last_block,load=no_allocate,pack_size=4,unroll=1,version=8,waves=1'),
('block_size=512,cache_hint=normal,finish=last_block,load=no_allocate,pack_size=4,unroll=2,version=9,waves=1'),
('block_size=512,cache_hint=normal,finish=last_block,load=no_allocate,pack_size=4,unroll=4,version=9,waves=1'),
('block_size=512,strategy=block_reduce,waves=1'),
('block_size=512,strategy=block_reduce,waves=16'),
('block_size=512,strategy=block_reduce,waves=2'),
('block_size=512,strategy=block_reduce,waves=32'),
('block_size=512,strategy=block_reduce,waves=4'),
('block_size=512,strategy=block_reduce,waves=8');
-- evaluations and their samples
CREATE TEMP VIEW dump_evaluations(device,run_device,run_started_at,op,dtype,shape,kernel_hash,sample_values,created_at_prefix,config,status,error,stats,n_runs,seq,created_at_rest,samples) AS SELECT NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL WHERE 0;
CREATE TEMP TRIGGER dump_evaluations_insert INSTEAD OF INSERT ON dump_evaluations BEGIN
INSERT OR IGNORE INTO evaluations(run_id,device_id,problem_id,config_id,kernel_hash,status,error,median_us,min_us,max_us,mean_us,stddev_us,ci_lo_us,ci_hi_us,n_runs,gbps,frac_copy,seq,created_at) SELECT r.id,d.id,p.id,c.id,NEW.kernel_hash,NEW.status,NEW.error,json_extract(NEW.stats,'$[0]'),json_extract(NEW.stats,'$[1]'),json_extract(NEW.stats,'$[2]'),json_extract(NEW.stats,'$[3]'),json_extract(NEW.stats,'$[4]'),json_extract(NEW.stats,'$[5]'),json_extract(NEW.stats,'$[6]'),NEW.n_runs,json_extract(NEW.stats,'$[7]'),json_extract(NEW.stats,'$[8]'),NEW.seq,NEW.created_at_prefix||NEW.created_at_rest FROM devices d,devices rd,runs r,problems p,configs c WHERE d.uuid=NEW.device AND rd.uuid=NEW.run_device AND r.device_id=rd.id AND r.started_at=NEW.run_started_at AND p.op=NEW.op AND p.dtype=NEW.dtype AND p.shape=NEW.shape AND c.text=NEW.config;
INSERT OR IGNORE INTO samples(evaluation_id,idx,us) SELECT e.id,j.key,json_extract(NEW.sample_values,'$['||j.value||']') FROM devices d,problems p,configs c,evaluations e,json_each(NEW.samples) j WHERE d.uuid=NEW.device AND p.op=NEW.op AND p.dtype=NEW.dtype AND p.shape=NEW.shape AND c.text=NEW.config AND e.device_id=d.id AND e.problem_id=p.id AND e.config_id=c.id AND e.kernel_hash=NEW.kernel_hash AND e.created_at=NEW.created_at_prefix||NEW.created_at_rest AND NOT EXISTS (SELECT 1 FROM samples s WHERE s.evaluation_id=e.id);
END;
INSERT INTO dump_evaluations(device,run_device,run_started_at,op,dtype,shape,kernel_hash,sample_values,created_at_prefix,config,status,error,stats,n_runs,seq,created_at_rest,samples) SELECT 'GPU-5752653f-a7f6-a3b8-831e-3a550f0344d9','GPU-5752653f-a7f6-a3b8-831e-3a550f0344d9','2026-11-21T23:01:37.562Z','atomic.dot','f16','n=33554432,offset=0,out_index=0,out_len=2,out_offset=0','33ea0bcde3f0b89e','[45.6000008,45.7280017,45.7599983,45.7919985,45.8239987,45.855999,45.8879992,45.9199995,45.9519997,45.984,46.0160002,46.0480005,46.0800007,46.1120009,46.1440012,46.1760014,46.2080017,46.2399982,46.2719984,46.3039987,46.3359989,46.3679992,46.3999994,46.4319997,46.4639999,46.4960001,46.5280004,46.5600006,46.5920009,46.6560014,46.6880016,46.7200018,46.7519984,46.7839986,46.8159989,46.8479991,46.8799993,46.9119996,46.9439998,46.9760001,47.0080003,47.0400006,47.0720008,47.104001,47.1360013,47.1680015,47.2000018,47.2319983,47.2639985,47.2959988,47.327999,47.3599993,47.3919995,47.4239998,47.456,47.4880002,47.5200005,47.5520007,47.584001,47.6160012,47.6480015,47.6800017,47.7119982,47.7439985,47.7759987,47.807999,47.8399992,47.8719994,47.9039997,47.9359999,47.9680002,48.0000004,48.0320007,48.0640009,48.0960011,48.1280014,48.1600016,48.1919982,48.2239984,48.2559986,48.2879989,48.3199991,48.3519994,48.4159999,48.4480001,48.4800003,48.5120006,48.5440008,48.5760011,48.6080013,48.6400016,48.7039983,49.0240008,49.0880013,49.1520017,49.1839983,49.2159985,49.4400002,49.5680012,49.6000014,50.2399988,65.9840032,66.3039982,66.4639995,66.5920004,66.6880012,66.7520016,66.8800026,66.9440031,67.0080036,67.0719966,67.1679974,67.2639981,67.3599988,67.6800013,68.5120001]','2026-11-21T23:01:37.9',v.* FROM (VALUES
('block_size=1024,strategy=block_reduce,waves=1','ok',NULL,'[46.5920009,46.0800007,48.0320007,46.81983992,0.6070392528560159,46.3999994,47.327999,2880.7032410578445,0.9713684670934496]',25,18,'56Z','[45,18,12,25,26,22,18,13,62,50,53,72,62,55,58,57,33,18,29,12,28,23,18,29,28]'),
('block_size=1024,strategy=block_reduce,waves=16','ok',NULL,'[46.5280004,46.1120009,47.7759987,46.75756508695652,0.5181134179442092,46.3999994,46.8159989,2884.665724856725,0.9727046102125123]',23,22,'67Z','[30,23,33,56,56,64,62,52,54,20,34,24,26,21,26,22,13,26,24,22,16,22,28]'),
('block_size=1024,strategy=block_reduce,waves=2','ok',NULL,'[47.88799955,46.7839986,48.4480001,47.74399977,0.5180692980276526,47.2319983,48.0640009,2802.742425268002,0.9450802062799806]',20,19,'59Z','[42,43,41,47,33,38,66,71,84,78,81,65,63,73,76,67,68,72,81,70]'),
('block_size=1024,strategy=block_reduce,waves=32','ok',NULL,'[47.584000950000004,46.3679992,47.8719994,47.40479999,0.4600788364534387,46.8159989,47.7119982,2820.6482288244824,0.9511180142377166]',10,23,'69Z','[34,21,53,60,67,57,62,53,59,59]'),
('block_size=1024,strategy=block_reduce,waves=4','ok',NULL,'[46.62400115,46.4319997,48.3199991,46.85066641666667,0.5879100834989285,46.4960001,46.9119996,2878.726078617558,0.9707017711209375]',12,20,'61Z','[81,64,29,25,32,37,26,23,28,32,26,24]'),
('block_size=1024,strategy=block_reduce,waves=8','ok',NULL,'[46.3999994,45.9199995,47.2959988,46.431999975,0.4391861564313485,45.984,46.7200018,2892.6234856804763,0.9753879542733275]',12,21,'64Z','[49,44,22,22,7,7,31,15,9,23,21,23]'),
('block_size=128,strategy=block_reduce,waves=1','ok',NULL,'[47.23200015,46.9119996,47.9039997,47.35040031,0.34631339466652883,47.0720008,47.7759987,2841.6693676691566,0.9582063082088135]',10,0,'03Z','[68,42,50,44,43,42,64,61,37,56]'),
('block_size=128,strategy=block_reduce,waves=16','ok',NULL,'[66.7520016,66.3039982,68.5120001,66.99200048,0.6442966990817803,66.5920004,67.6800013,2010.692185745633,0.6780021483737743]',10,4,'11Z','[115,114,104,110,106,105,106,102,107,105]'),
('block_size=128,strategy=block_reduce,waves=2','ok',NULL,'[48.367999499999996,48.0000004,48.7039983,48.36479983,0.23085389519321595,48.0960011,48.6400016,2774.928245688557,0.9357013099756095]',10,1,'05Z','[90,91,84,74,78,84,80,71,87,79]'),
('block_size=128,strategy=block_reduce,waves=32','ok',NULL,'[66.97600335,65.9840032,67.3599988,66.89920054,0.418643274598601,66.4639995,67.2639981,2003.9674105158442,0.6757345650582124]',10,5,'14Z','[113,101,111,109,112,103,105,111,108,108]'),
('block_size=128,strategy=block_reduce,waves=4','ok',NULL,'[48.14399965,47.2319983,48.4159999,48.04479929,0.3393947285930986,47.807999,48.3519994,2787.839169486202,0.9400548525687276]',10,2,'07Z','[47,65,68,83,74,77,73,82,77,77]'),
('block_size=128,strategy=block_reduce,waves=8','ok',NULL,'[49.32799935,49.0240008,50.2399988,49.41120036,0.36437222619121873,49.0880013,49.6000014,2720.923811397188,0.9174911022019713]',10,3,'09Z','[92,93,94,100,97,96,99,98,95,99]'),
('block_size=256,strategy=block_reduce,waves=1','ok',NULL,'[47.3919995,46.8159989,47.9359999,47.4271994,0.3147846965100715,47.2319983,47.7119982,2832.075654457247,0.9549713236524158]',10,6,'16Z','[59,48,60,62,48,47,34,52,69,52]'),
('block_size=256,strategy=block_reduce,waves=16','ok',NULL,'[47.2959988,45.7599983,48.0320007,47.065080927027026,0.6725555421823213,46.5920009,47.5200005,2837.824158605146,0.9569097099404024]',37,10,'29Z','[72,59,50,63,50,16,5,15,28,14,2,20,26,25,23,18,26,67,43,20,69,56,50,42,62,63,68,64,53,44,58,65,54,62,49,29,29]'),
('block_size=256,strategy=block_reduce,waves=2','ok',NULL,'[47.3119989,46.8479991,47.6480015,47.251199559999996,0.2362133399582345,46.9439998,47.4239998,2836.864455540897,0.9565860996215407]',10,7,'18Z','[48,51,50,49,38,53,50,42,35,60]'),
('block_size=256,strategy=block_reduce,waves=32','ok',NULL,'[46.5280004,45.855999,48.0320007,46.827130026086955,0.6691269858134107,46.3999994,47.2959988,2884.665724856725,0.9727046102125123]',23,11,'32Z','[29,26,35,5,22,65,47,57,63,49,72,69,54,23,25,5,22,21,37,18,11,25,22]'),
('block_size=256,strategy=block_reduce,waves=4','ok',NULL,'[46.6880016,46.3039987,47.807999,46.913280040000004,0.5296523193199946,46.5280004,47.456,2874.779887773136,0.969371121959729]',25,8,'21Z','[34,32,27,56,57,61,65,58,54,64,64,19,25,27,24,28,26,25,31,22,23,30,33,28,25]'),
('block_size=256,strategy=block_reduce,waves=8','ok',NULL,'[46.1760014,45.984,47.584001,46.483200335999996,0.54689400352769,46.1120009,46.6880016,2906.6554905293297,0.9801195235811307]',25,9,'25Z','[30,43,16,49,58,50,46,52,47,11,13,21,13,9,18,13,18,9,15,14,15,12,10,13,12]'),
('block_size=512,strategy=block_reduce,waves=1','ok',NULL,'[48.0960011,46.9119996,48.5760011,47.901217217391306,0.5518924491901955,47.3599993,48.3199991,2790.6213599949374,0.9409930027020401]',23,12,'35Z','[51,46,47,38,58,37,48,45,85,78,82,69,73,86,77,81,81,83,80,72,74,88,79]'),
('block_size=512,strategy=block_reduce,waves=16','ok',NULL,'[46.223999899999995,45.9519997,47.5200005,46.36160023,0.45500566490379324,46.0160002,46.6560014,2903.6372510030233,0.979101778101415]',10,16,'49Z','[29,19,10,15,13,23,18,8,15,56]'),
('block_size=512,strategy=block_reduce,waves=2','ok',NULL,'[47.2639985,46.6560014,48.6080013,47.52768024,0.6171439120345932,47.104001,48.0000004,2839.745520049473,0.9575575899074561]',25,13,'39Z','[46,38,43,29,85,71,78,75,89,76,73,81,68,66,70,33,39,44,31,47,59,36,44,35,48]'),
('block_size=512,strategy=block_reduce,waves=32','ok',NULL,'[46.1760014,45.7919985,47.6160012,46.48777161142857,0.6079676336197593,46.0800007,46.7200018,2906.6554905293297,0.9801195235811307]',35,17,'53Z','[31,18,12,9,16,13,52,44,57,42,59,40,58,48,46,50,12,6,53,11,20,12,12,7,19,3,14,5,15,12,7,11,15,7,18]'),
('block_size=512,strategy=block_reduce,waves=4','ok',NULL,'[47.5200005,46.3359989,48.0640009,47.29813313333333,0.599663195707428,46.8159989,47.7439985,2824.447108328629,0.9523989902535801]',30,14,'42Z','[64,68,60,23,22,21,34,27,23,20,37,30,23,33,56,61,73,53,65,65,56,63,61,64,55,56,69,68,62,67]'),
('block_size=512,strategy=block_reduce,waves=8','ok',NULL,'[46.0480005,45.6000008,47.3919995,46.32735140810811,0.5747965599910048,45.9519997,46.2399982,2914.7352011516764,0.9828439889165137]',37,15,'47Z','[9,1,10,17,6,0,6,14,42,39,42,40,40,52,46,43,41,43,51,43,13,8,10,10,6,8,13,11,3,5,13,12,4,3,9,2,6]')
) v;
INSERT INTO dump_evaluations(device,run_device,run_started_at,op,dtype,shape,kernel_hash,sample_values,created_at_prefix,config,status,error,stats,n_runs,seq,created_at_rest,samples) SELECT 'GPU-5752653f-a7f6-a3b8-831e-3a550f0344d9','GPU-5752653f-a7f6-a3b8-831e-3a550f0344d9','2026-11-21T23:01:38.348Z','reduce.sum','f32','n=33554432,offset=0','56e44061135fbf82','[47.0080003,47.104001,47.1360013,47.1680015,47.2000018,47.2639985,47.327999,47.3599993,47.3919995,47.4239998,47.456,47.4880002,47.5200005,47.5520007,47.584001,47.6160012,47.6480015,47.6800017,47.7119982,47.7439985,47.7759987,47.807999,47.8399992,47.8719994,47.9039997,47.9359999,47.9680002,48.0000004,48.0320007,48.0640009,48.0960011,48.1280014,48.1600016,48.1919982,48.2239984,48.2559986,48.2879989,48.3199991,48.3519994,48.3839996,48.4159999,48.4480001,48.4800003,48.5120006,48.5440008,48.5760011,48.6080013,48.6400016,48.6720018,48.7039983,48.7359986,48.7679988,48.7999991,48.8319993,48.8639995,48.8959998,48.928,48.9600003,48.9920005,49.0240008,49.056001,49.0880013,49.1200015,49.1520017,49.1839983,49.2159985,49.2479987,49.279999,49.3119992,49.3439995,49.3759997,49.408,49.4400002,49.4720004,49.5040007,49.5360009,49.5680012,49.6000014,49.6320017,49.6639982,49.6959984,49.7279987,49.7599989,49.7919992,49.8239994,49.8559996,49.8879999,49.9200001,49.9520004,49.9840006,50.0160009,50.0480011,50.0800014,50.1120016,50.1440018,50.1759984,50.2079986,50.2399988,50.2719991,50.3039993,50.3359996,50.4000001,50.4320003,50.4640006,50.4960008,50.528001,50.5600013,50.5920015,50.7199988,50.9120002]','2026-11-21T23:01:38.',v.* FROM (VALUES
('block_size=1024,cache_hint=evict_first,finish=atomic,load=cop,pack_size=4,unroll=1,version=8,waves=1','ok',NULL,'[48.128001350000005,47.4880002,49.1520017,48.19520039,0.45366628251923014,47.8719994,48.6720018,2788.7659623330687,0.933344441025707]',10,22,'514Z','[36,23,11,48,32,29,25,34,30,63]'),
('block_size=1024,cache_hint=evict_first,finish=atomic,load=cop,pack_size=4,unroll=2,version=9,waves=1','ok',NULL,'[48.3839996,47.1360013,48.7359986,48.05082367058824,0.5814253666342579,47.5200005,48.4800003,2774.010687615829,0.9284061443672017]',17,68,'600Z','[7,5,2,15,12,3,21,37,44,39,42,40,50,47,39,46,42]'),
('block_size=1024,cache_hint=evict_first,finish=atomic,load=cop,pack_size=4,unroll=4,version=9,waves=1','ok',NULL,'[48.1919982,47.584001,49.6959984,48.30720002666666,0.5703593716657325,47.9039997,48.5120006,2785.0626040237526,0.9321050007364133]',15,69,'602Z','[80,56,61,28,36,32,24,30,33,37,22,14,39,14,43]'),
('block_size=1024,cache_hint=evict_first,finish=atomic,load=no_allocate,pack_size=4,unroll=1,version=8,waves=1','ok',NULL,'[49.1360016,47.6800017,49.6320017,48.88800065833333,0.578278394234185,48.2559986,49.1839983,2731.5558374615484,0.9141973513306835]',12,23,'516Z','[35,17,28,62,64,63,58,67,63,78,63,59]'),
('block_size=1024,cache_hint=evict_first,finish=atomic,load=no_allocate,pack_size=4,unroll=2,version=9,waves=1','ok',NULL,'[48.399999750000006,47.104001,48.8639995,48.22079986,0.5359830236794932,47.7119982,48.6080013,2773.093650687467,0.9280992303662197]',10,70,'604Z','[20,1,18,54,46,33,45,45,39,40]'),
('block_size=1024,cache_hint=evict_first,finish=atomic,load=no_allocate,pack_size=4,unroll=4,version=9,waves=1','ok',NULL,'[49.32799935,48.4800003,49.7919992,49.32160005,0.3951130138200495,48.9600003,49.7599989,2720.9238924870365,0.9106390510382666]',10,71,'605Z','[42,63,57,83,76,76,69,82,68,67]'),
('block_size=1024,cache_hint=evict_first,finish=last_block,load=cop,pack_size=4,unroll=1,version=8,waves=1','ok',NULL,'[48.735998550000005,48.5120006,49.2479987,48.7999998,0.2510634221808016,48.5440008,49.0880013,2753.9752132564026,0.9217006700214666]',10,18,'507Z','[61,45,51,52,49,60,44,66,49,43]'),
('block_size=1024,cache_hint=evict_first,finish=last_block,load=cop,pack_size=4,unroll=2,version=9,waves=1','ok',NULL,'[47.968000149999995,47.4239998,49.3759997,48.103999333333334,0.5547808168676556,47.7119982,48.2559986,2798.068120002706,0.9364576879843143]',12,60,'583Z','[70,54,35,34,24,35,9,25,18,19,13,27]'),
('block_size=1024,cache_hint=evict_first,finish=last_block,load=cop,pack_size=4,unroll=4,version=9,waves=1','ok',NULL,'[50.111999749999995,49.6320017,50.5600013,50.10240004,0.3039719217465841,49.7599989,50.4960008,2678.3551378829184,0.8963921364503168]',10,61,'584Z','[95,104,82,99,96,78,86,106,91,88]'),
('block_size=1024,cache_hint=evict_first,finish=last_block,load=no_allocate,pack_size=4,unroll=1,version=8,waves=1','ok',NULL,'[48.68800005,48.4480001,48.928,48.69440011,0.1531320842830453,48.5760011,48.8639995,2756.690187770405,0.9226093179339829]',10,19,'509Z','[53,41,45,45,45,49,54,56,51,48]'),
('block_size=1024,cache_hint=evict_first,finish=last_block,load=no_allocate,pack_size=4,unroll=2,version=9,waves=1','ok',NULL,'[48.22400025,47.8719994,49.2479987,48.322666733333335,0.4375844265146725,48.0000004,48.4159999,2783.214401629819,0.9314864441943559]',12,62,'586Z','[66,61,31,37,27,39,23,40,23,30,38,30]'),
('block_size=1024,cache_hint=evict_first,finish=last_block,load=no_allocate,pack_size=4,unroll=4,version=9,waves=1','ok',NULL,'[48.8159992,48.3199991,49.8239994,48.85119983,0.4240453964807862,48.3519994,49.1200015,2749.46194279682,0.9201901682614793]',10,63,'588Z','[62,53,51,57,55,38,47,37,52,84]'),
('block_size=1024,cache_hint=normal,finish=atomic,load=cop,pack_size=4,unroll=1,version=8,waves=1','ok',NULL,'[48.1440015,47.9680002,49.3759997,48.26560056,0.4019645315047949,48.0640009,48.3199991,2787.8391454436955,0.9330342538665015]',10,20,'511Z','[70,37,32,35,32,26,30,29,31,31]'),
('block_size=1024,cache_hint=normal,finish=atomic,load=cop,pack_size=4,unroll=2,version=9,waves=1','ok',NULL,'[47.4880002,47.1680015,48.7039983,47.710608682608694,0.5331518574328087,47.3599993,48.2879989,2826.350476641044,0.9459232296267601]',23,64,'591Z','[47,41,41,42,37,49,36,13,11,12,6,10,5,6,4,3,8,12,4,7,8,11,7]'),
('block_size=1024,cache_hint=normal,finish=atomic,load=cop,pack_size=4,unroll=4,version=9,waves=1','ok',NULL,'[48.67199995,48.1919982,49.6000014,48.78666655,0.47882738151231313,48.4159999,49.3759997,2757.596403227314,0.9229126102039338]',12,65,'593Z','[77,54,70,75,46,33,40,36,53,50,43,42]'),
('block_size=1024,cache_hint=normal,finish=atomic,load=no_allocate,pack_size=4,unroll=1,version=8,waves=1','ok',NULL,'[49.2319986,48.8319993,49.4720004,49.21279959,0.18625471477094918,49.0240008,49.3759997,2726.2296030370785,0.9124147667184129]',10,21,'512Z','[73,68,64,69,66,62,70,59,53,65]'),
('block_size=1024,cache_hint=normal,finish=atomic,load=no_allocate,pack_size=4,unroll=2,version=9,waves=1','ok',NULL,'[48.4159999,47.0080003,48.7039983,48.10400009,0.5966698609351572,47.5520007,48.5120006,2772.1772198698304,0.9277925192184294]',20,66,'596Z','[12,13,8,0,0,1,43,40,41,43,49,31,41,49,48,36,40,43,44,33]'),
('block_size=1024,cache_hint=normal,finish=atomic,load=no_allocate,pack_size=4,unroll=4,version=9,waves=1','ok',NULL,'[49.4240001,48.1600016,50.0800014,49.35359993,0.5286296717461101,48.9600003,49.8239994,2715.6387934694912,0.9088702336276548]',10,67,'597Z','[67,92,79,84,57,64,69,75,74,32]'),
('block_size=1024,cache_hint=normal,finish=last_block,load=cop,pack_size=4,unroll=1,version=8,waves=1','ok',NULL,'[49.7599989,48.2559986,50.4320003,49.64906598,0.6414691702267804,49.2159985,50.2079986,2697.3017477297412,0.9027331895238493]',15,16,'504Z','[94,96,81,83,88,102,82,49,67,57,35,65,100,97,81]'),
('block_size=1024,cache_hint=normal,finish=last_block,load=cop,pack_size=4,unroll=2,version=9,waves=1','ok',NULL,'[47.9680002,47.7119982,48.4480001,47.99999968,0.2222155494134071,47.7439985,48.2239984,2798.0681170861067,0.9364576870081865]',10,56,'576Z','[31,34,26,18,22,41,26,19,26,27]'),
('block_size=1024,cache_hint=normal,finish=last_block,load=cop,pack_size=4,unroll=4,version=9,waves=1','ok',NULL,'[48.928,48.7359986,49.4720004,48.96319955,0.22397488510123975,48.7679988,49.2159985,2743.168165467626,0.9180837663035528]',10,57,'577Z','[65,50,57,51,56,57,52,73,56,54]'),
('block_size=1024,cache_hint=normal,finish=last_block,load=no_allocate,pack_size=4,unroll=1,version=8,waves=1','ok',NULL,'[48.5920012,48.4480001,50.528001,48.8192003,0.6296408141514204,48.4800003,49.0240008,2762.136332841546,0.9244320342521771]',10,17,'506Z','[105,42,42,59,44,41,47,49,42,54]'),
('block_size=1024,cache_hint=normal,finish=last_block,load=no_allocate,pack_size=4,unroll=2,version=9,waves=1','ok',NULL,'[49.0880013,48.928,49.5360009,49.18400048,0.22927130634213305,48.928,49.4720004,2734.226866963516,0.9150912917226522]',10,58,'579Z','[73,75,60,60,56,73,61,56,65,61]'),
('block_size=1024,cache_hint=normal,finish=last_block,load=no_allocate,pack_size=4,unroll=4,version=9,waves=1','ok',NULL,'[50.0480011,49.7599989,50.4640006,50.04800037,0.2029476280589429,49.7599989,50.1759984,2681.780072131592,0.8975383937501599]',10,59,'581Z','[103,82,82,94,92,91,95,90,91,89]'),
('block_size=256,cache_hint=evict_first,finish=atomic,load=cop,pack_size=4,unroll=1,version=8,waves=1','ok',NULL,'[48.0960011,47.8719994,48.7999991,48.2080005,0.28472185070280176,48.0320007,48.6080013,2790.6214431619346,0.9339654335150169]',10,6,'486Z','[46,30,23,36,28,29,30,29,32,52]'),
('block_size=256,cache_hint=evict_first,finish=atomic,load=cop,pack_size=4,unroll=2,version=9,waves=1','ok',NULL,'[48.2239984,47.4880002,49.6000014,48.25599976,0.5583471748342534,47.8399992,48.5120006,2783.2145084012777,0.9314864799286372]',10,36,'540Z','[35,43,11,38,22,38,33,26,27,77]'),
('block_size=256,cache_hint=evict_first,finish=atomic,load=cop,pack_size=4,unroll=4,version=9,waves=1','ok',NULL,'[49.3919998,48.8319993,49.8239994,49.40159953,0.3087078660498882,49.1839983,49.8239994,2717.3982131413923,0.9094590763603833]',10,37,'542Z','[53,68,78,84,84,65,73,66,64,73]'),
('block_size=256,cache_hint=evict_first,finish=atomic,load=no_allocate,pack_size=4,unroll=1,version=8,waves=1','ok',NULL,'[48.303999,47.8399992,48.7039983,48.28159958,0.2697632576597605,47.9039997,48.5120006,2778.60497637059,0.929943761337446]',10,7,'488Z','[49,24,36,34,43,40,42,31,22,37]'),
('block_size=256,cache_hint=evict_first,finish=atomic,load=no_allocate,pack_size=4,unroll=2,version=9,waves=1','ok',NULL,'[48.928,47.9680002,49.6639982,48.888000041666665,0.5103837941296223,48.5120006,49.408,2743.168165467626,0.9180837663035528]',12,38,'544Z','[54,43,36,44,26,50,62,79,75,71,59,58]'),
('block_size=256,cache_hint=evict_first,finish=atomic,load=no_allocate,pack_size=4,unroll=4,version=9,waves=1','ok',NULL,'[49.5679993,48.7999991,50.2719991,49.58079905,0.44652439923423054,49.279999,50.2079986,2707.749634752759,0.9062298892846424]',10,39,'545Z','[52,79,73,67,67,98,83,80,96,69]'),
('block_size=256,cache_hint=evict_first,finish=last_block,load=cop,pack_size=4,unroll=1,version=8,waves=1','ok',NULL,'[49.7439988,49.5360009,50.9120002,49.9168001,0.4216908879490217,49.5680012,50.2399988,2698.169331734545,0.9030235526159637]',10,2,'479Z','[93,81,89,77,81,82,76,75,109,97]'),
('block_size=256,cache_hint=evict_first,finish=last_block,load=cop,pack_size=4,unroll=2,version=9,waves=1','ok',NULL,'[49.87199975,48.928,50.3359996,49.78133334166667,0.4201934757847727,49.6639982,50.0480011,2691.244238707312,0.9007058618639056]',12,28,'525Z','[59,56,82,89,93,89,82,91,79,82,90,100]'),
('block_size=256,cache_hint=evict_first,finish=last_block,load=cop,pack_size=4,unroll=4,version=9,waves=1','ok',NULL,'[48.9119999,48.6400016,49.3759997,48.94719981,0.22837626403520275,48.7359986,49.1839983,2744.0655110076577,0.918384089988932]',10,29,'527Z','[70,53,64,50,51,55,47,57,56,63]'),
('block_size=256,cache_hint=evict_first,finish=last_block,load=no_allocate,pack_size=4,unroll=1,version=8,waves=1','ok',NULL,'[48.815999149999996,48.4159999,49.0240008,48.812800280000005,0.21237127037572143,48.5760011,49.0240008,2749.4619456129685,0.9201901692039881]',10,3,'481Z','[59,51,51,40,54,58,59,59,48,45]'),
('block_size=256,cache_hint=evict_first,finish=last_block,load=no_allocate,pack_size=4,unroll=2,version=9,waves=1','ok',NULL,'[48.89599975,48.7359986,49.056001,48.90239984,0.12421151050969706,48.7679988,49.056001,2744.9634466263265,0.918684611161882]',10,30,'529Z','[58,52,50,56,54,51,59,60,60,52]'),
('block_size=256,cache_hint=evict_first,finish=last_block,load=no_allocate,pack_size=4,unroll=4,version=9,waves=1','ok',NULL,'[48.87999965,48.4480001,49.3759997,48.8959994,0.3013211938569385,48.5440008,49.2479987,2745.861967288291,0.9189853281371745]',10,31,'530Z','[70,51,44,66,54,56,41,55,49,64]'),
('block_size=256,cache_hint=normal,finish=atomic,load=cop,pack_size=4,unroll=1,version=8,waves=1','ok',NULL,'[48.2399985,47.9680002,48.4480001,48.23999927,0.12643468300992458,48.1600016,48.3519994,2782.291380046374,0.9311775272484769]',10,4,'483Z','[36,32,26,41,36,34,34,33,38,35]'),
('block_size=256,cache_hint=normal,finish=atomic,load=cop,pack_size=4,unroll=2,version=9,waves=1','ok',NULL,'[48.303999,47.6800017,49.6320017,48.5696001,0.5980889706754599,48.1280014,49.0240008,2778.60497637059,0.929943761337446]',20,32,'533Z','[74,78,59,74,70,63,52,51,35,28,39,38,31,30,17,27,33,33,30,34]'),
('block_size=256,cache_hint=normal,finish=atomic,load=cop,pack_size=4,unroll=4,version=9,waves=1','ok',NULL,'[49.3119992,48.8639995,49.9200001,49.36639961,0.3065809019797465,49.056001,49.6959984,2721.80674435118,0.9109345239789067]',10,33,'535Z','[66,87,66,75,60,73,66,54,70,80]'),
('block_size=256,cache_hint=normal,finish=atomic,load=no_allocate,pack_size=4,unroll=1,version=8,waves=1','ok',NULL,'[49.3759997,48.9920005,49.7599989,49.3535999,0.22018302689783525,49.056001,49.4720004,2718.2787754270016,0.9097537830246752]',10,5,'485Z','[82,72,73,60,68,68,72,67,58,73]'),
('block_size=256,cache_hint=normal,finish=atomic,load=no_allocate,pack_size=4,unroll=2,version=9,waves=1','ok',NULL,'[48.7039983,47.6800017,49.5360009,48.76235346470588,0.5587683837964856,48.3519994,49.1200015,2755.7846724054275,0.9223062599708622]',17,34,'537Z','[34,28,48,17,44,38,44,71,74,31,49,62,62,70,75,57,60]'),
('block_size=256,cache_hint=normal,finish=atomic,load=no_allocate,pack_size=4,unroll=4,version=9,waves=1','ok',NULL,'[48.303999,48.0000004,49.1200015,48.38079997,0.30337289201582057,48.1280014,48.5760011,2778.60497637059,0.929943761337446]',10,35,'539Z','[36,36,36,62,41,27,38,45,37,31]'),
('block_size=256,cache_hint=normal,finish=last_block,load=cop,pack_size=4,unroll=1,version=8,waves=1','ok',NULL,'[48.54400085,48.4159999,49.7919992,48.74560013,0.429338023246079,48.4480001,49.056001,2764.8675356349413,0.9253461134466883]',10,0,'475Z','[83,60,40,43,45,54,41,41,54,42]'),
('block_size=256,cache_hint=normal,finish=last_block,load=cop,pack_size=4,unroll=2,version=9,waves=1','ok',NULL,'[49.9680005,49.7279987,50.7199988,50.05439931,0.33042575288507026,49.7599989,50.4000001,2686.0737003074596,0.8989753856110417]',10,24,'518Z','[97,92,108,83,81,82,95,85,83,101]'),
('block_size=256,cache_hint=normal,finish=last_block,load=cop,pack_size=4,unroll=4,version=9,waves=1','ok',NULL,'[48.96000025,48.6080013,49.4720004,49.01119991,0.30101944761252564,48.7039983,49.408,2741.375231100004,0.9174837068694711]',10,25,'520Z','[73,60,49,46,58,68,50,56,71,55]'),
('block_size=256,cache_hint=normal,finish=last_block,load=no_allocate,pack_size=4,unroll=1,version=8,waves=1','ok',NULL,'[48.72000035,48.3839996,49.9840006,48.8288004,0.46481470697784283,48.3839996,49.0240008,2754.879536859445,0.9220033291255967]',10,1,'477Z','[59,46,45,39,47,52,39,56,89,57]'),
('block_size=256,cache_hint=normal,finish=last_block,load=no_allocate,pack_size=4,unroll=2,version=9,waves=1','ok',NULL,'[49.903999999999996,48.5440008,50.1120016,49.625600500000004,0.5290062062232352,49.0240008,49.9520004,2689.5185155498557,0.9001282966836373]',10,26,'521Z','[62,59,44,84,86,88,88,93,87,87]'),
('block_size=256,cache_hint=normal,finish=last_block,load=no_allocate,pack_size=4,unroll=4,version=9,waves=1','ok',NULL,'[48.86399955,48.5760011,49.4720004,48.96319956,0.2957765046947784,48.7359986,49.3439995,2746.761076376115,0.919286242046886]',10,27,'523Z','[50,69,67,53,45,55,55,53,73,51]'),
('block_size=512,cache_hint=evict_first,finish=atomic,load=cop,pack_size=4,unroll=1,version=8,waves=1','ok',NULL,'[49.2319986,48.8959998,49.8239994,49.26079959,0.2786430106720165,48.928,49.5040007,2726.2296030370785,0.9124147667184129]',10,14,'500Z','[84,56,71,74,60,65,55,64,66,69]'),
('block_size=512,cache_hint=evict_first,finish=atomic,load=cop,pack_size=4,unroll=2,version=9,waves=1','ok',NULL,'[47.7119982,47.3919995,49.2159985,47.92746654,0.5973766881557436,47.584001,47.9039997,2813.0813435518617,0.9414823149808937]',15,52,'569Z','[59,55,65,9,15,14,18,19,12,22,17,8,24,18,16]'),
('block_size=512,cache_hint=evict_first,finish=atomic,load=cop,pack_size=4,unroll=4,version=9,waves=1','ok',NULL,'[48.2079983,47.7759987,48.9600003,48.23999963,0.3370568168407873,47.9359999,48.5440008,2784.138249523627,0.9317956376898608]',10,53,'571Z','[36,39,34,25,44,27,57,20,30,33]'),
('block_size=512,cache_hint=evict_first,finish=atomic,load=no_allocate,pack_size=4,unroll=1,version=8,waves=1','ok',NULL,'[48.2080001,47.8399992,48.5440008,48.1663998,0.25546633820630327,47.8399992,48.4480001,2784.138145568914,0.9317956028982881]',10,15,'502Z','[44,32,29,37,22,41,22,23,35,37]'),
('block_size=512,cache_hint=evict_first,finish=atomic,load=no_allocate,pack_size=4,unroll=2,version=9,waves=1','ok',NULL,'[48.8959998,47.4880002,49.1200015,48.72960039,0.5135089000556518,48.1600016,49.0880013,2744.963443819386,0.918684610222455]',10,54,'572Z','[32,11,58,61,52,55,53,55,62,59]'),
('block_size=512,cache_hint=evict_first,finish=atomic,load=no_allocate,pack_size=4,unroll=4,version=9,waves=1','ok',NULL,'[48.192,47.7119982,49.0240008,48.24,0.38761322945178356,47.7439985,48.5440008,2785.0625,0.9321049659217345]',10,55,'574Z','[31,59,29,35,31,19,42,44,37,18]'),
('block_size=512,cache_hint=evict_first,finish=last_block,load=cop,pack_size=4,unroll=1,version=8,waves=1','ok',NULL,'[49.6639982,48.9600003,50.1120016,49.72479977,0.33475369461069665,49.5680012,50.1120016,2702.5156424075417,0.904478176259684]',10,10,'493Z','[93,93,79,79,79,89,85,76,57,79]'),
('block_size=512,cache_hint=evict_first,finish=last_block,load=cop,pack_size=4,unroll=2,version=9,waves=1','ok',NULL,'[48.4480001,48.0960011,49.9520004,48.731826069565216,0.6367412389031658,48.2879989,49.0240008,2770.3461798828716,0.9271797065922691]',23,44,'555Z','[87,75,88,79,77,77,59,41,40,36,34,37,37,49,35,31,39,31,42,42,32,49,30]'),
('block_size=512,cache_hint=evict_first,finish=last_block,load=cop,pack_size=4,unroll=4,version=9,waves=1','ok',NULL,'[50.0480011,49.6959984,50.2719991,50.00320002,0.19447351111731137,49.7279987,50.1759984,2681.780072131592,0.8975383937501599]',10,45,'556Z','[85,95,94,89,81,98,80,93,88,93]'),
('block_size=512,cache_hint=evict_first,finish=last_block,load=no_allocate,pack_size=4,unroll=1,version=8,waves=1','ok',NULL,'[49.9360003,49.5040007,50.5920015,49.987200290000004,0.3742317030123523,49.6320017,50.4000001,2687.7950014751177,0.89955147083937]',10,11,'495Z','[100,107,74,83,92,101,78,94,79,81]'),
('block_size=512,cache_hint=evict_first,finish=last_block,load=no_allocate,pack_size=4,unroll=2,version=9,waves=1','ok',NULL,'[49.488000549999995,49.2479987,50.1440018,49.539200199999996,0.2623442718620192,49.3119992,49.7919992,2712.1267884806475,0.9076948354847252]',10,46,'558Z','[94,83,77,74,69,73,74,73,66,68]'),
('block_size=512,cache_hint=evict_first,finish=last_block,load=no_allocate,pack_size=4,unroll=4,version=9,waves=1','ok',NULL,'[50.00000075,49.5040007,50.7199988,50.0256002,0.3217902599194423,49.7279987,50.2399988,2684.354599734681,0.8984000368780041]',10,47,'560Z','[94,108,74,90,88,92,97,86,89,81]'),
('block_size=512,cache_hint=normal,finish=atomic,load=cop,pack_size=4,unroll=1,version=8,waves=1','ok',NULL,'[49.2159985,48.9600003,49.7599989,49.30239991,0.26303668462702035,49.0240008,49.6320017,2727.1158991115462,0.9127113923676715]',10,12,'497Z','[82,66,57,69,78,59,64,75,63,64]'),
('block_size=512,cache_hint=normal,finish=atomic,load=cop,pack_size=4,unroll=2,version=9,waves=1','ok',NULL,'[47.74399845,47.3919995,49.0240008,48.0192,0.5790237888405684,47.6160012,48.1280014,2811.195885500872,0.9408512897122095]',20,48,'562Z','[55,57,59,58,55,18,18,15,23,14,8,18,15,9,17,24,20,13,25,31]'),
('block_size=512,cache_hint=normal,finish=atomic,load=cop,pack_size=4,unroll=4,version=9,waves=1','ok',NULL,'[49.26399885,48.5760011,49.6639982,49.25760031,0.32843944838446965,49.056001,49.6320017,2724.4587352453623,0.9118220925279237]',10,49,'564Z','[45,68,63,78,60,65,79,76,60,69]'),
('block_size=512,cache_hint=normal,finish=atomic,load=no_allocate,pack_size=4,unroll=1,version=8,waves=1','ok',NULL,'[48.112001250000006,47.7759987,48.2559986,48.05120006,0.16190895746823014,47.807999,48.1919982,2789.6933927686073,0.933654833526598]',10,13,'498Z','[33,31,21,32,35,20,28,25,31,30]'),
('block_size=512,cache_hint=normal,finish=atomic,load=no_allocate,pack_size=4,unroll=2,version=9,waves=1','ok',NULL,'[48.89599975,47.5520007,49.0240008,48.752000179999996,0.43778824957684165,48.6720018,49.0240008,2744.9634466263265,0.918684611161882]',10,50,'565Z','[57,48,51,57,54,59,56,13,59,51]'),
('block_size=512,cache_hint=normal,finish=atomic,load=no_allocate,pack_size=4,unroll=4,version=9,waves=1','ok',NULL,'[49.1999984,48.4800003,49.8559996,49.24159944,0.45675237253291756,48.7999991,49.7279987,2728.002771642367,0.9130082109453939]',10,51,'567Z','[77,64,79,65,81,56,57,85,42,52]'),
('block_size=512,cache_hint=normal,finish=last_block,load=cop,pack_size=4,unroll=1,version=8,waves=1','ok',NULL,'[48.624001449999994,48.4480001,49.3759997,48.70080015,0.2649326696882198,48.4800003,48.8639995,2760.318525780235,0.923823650422753]',10,8,'490Z','[70,49,46,41,49,54,47,45,42,46]'),
('block_size=512,cache_hint=normal,finish=last_block,load=cop,pack_size=4,unroll=2,version=9,waves=1','ok',NULL,'[48.41599985,48.1600016,48.7999991,48.47679959,0.24944941454970876,48.1919982,48.7999991,2772.1772227327037,0.9277925201765761]',10,40,'547Z','[52,42,32,47,38,52,36,33,37,50]'),
('block_size=512,cache_hint=normal,finish=last_block,load=cop,pack_size=4,unroll=4,version=9,waves=1','ok',NULL,'[48.87999965,48.5760011,49.8239994,48.96640033,0.38806699298128117,48.6400016,49.3439995,2745.861967288291,0.9189853281371745]',10,41,'549Z','[69,58,45,51,49,61,47,60,48,84]'),
('block_size=512,cache_hint=normal,finish=last_block,load=no_allocate,pack_size=4,unroll=1,version=8,waves=1','ok',NULL,'[49.72799865,49.3119992,50.0480011,49.74079989,0.22333909867564586,49.5680012,50.0160009,2699.037476747518,0.9033141034663422]',10,9,'492Z','[90,78,76,79,88,82,91,68,82,80]'),
('block_size=512,cache_hint=normal,finish=last_block,load=no_allocate,pack_size=4,unroll=2,version=9,waves=1','ok',NULL,'[49.4560003,49.2159985,49.6639982,49.46880006,0.14346621214777253,49.3439995,49.6320017,2713.881656135464,0.9082821547479696]',10,42,'550Z','[79,78,78,71,74,69,65,73,72,70]'),
('block_size=512,cache_hint=normal,finish=last_block,load=no_allocate,pack_size=4,unroll=4,version=9,waves=1','ok',NULL,'[48.99200055,48.4480001,49.6959984,48.94080051,0.3453755254548193,48.6080013,49.1200015,2739.584636128928,0.9168844303848341]',10,43,'552Z','[80,59,41,62,57,59,54,59,47,46]')
) v;
DROP VIEW dump_evaluations;
-- peers
INSERT OR IGNORE INTO peers(device_id,problem_id,library,median_us,min_us,mean_us,stddev_us,ci_lo_us,ci_hi_us,n_runs,gbps,frac_copy,copy_gbps,created_at) VALUES((SELECT id FROM devices WHERE uuid='GPU-5752653f-a7f6-a3b8-831e-3a550f0344d9'),(SELECT id FROM problems WHERE op='atomic.dot' AND dtype='f16' AND shape='n=33554432,offset=0,out_index=0,out_len=2,out_offset=0'),'torch 2.11.0+cu130: torch.dot',57.56799876689911,56.703999638557434,66.0367051468176,23.771866400998473,57.11999908089638,57.98399820923805,17,2331.464196687927,0.7866870696548024,2963.6488085548062,'2026-11-21T23:01:50.627Z');
INSERT OR IGNORE INTO peers(device_id,problem_id,library,median_us,min_us,mean_us,stddev_us,ci_lo_us,ci_hi_us,n_runs,gbps,frac_copy,copy_gbps,created_at) VALUES((SELECT id FROM devices WHERE uuid='GPU-5752653f-a7f6-a3b8-831e-3a550f0344d9'),(SELECT id FROM problems WHERE op='reduce.sum' AND dtype='f32' AND shape='n=33554432,offset=0'),'torch 2.11.0+cu130: torch.sum',51.58400163054466,50.592001527547836,55.94156520522159,20.833212093235662,51.13599821925163,52.032001316547394,23,2601.925553610503,0.8813779445488996,2952.1110321658903,'2026-11-21T23:01:45.633Z');
COMMIT;
