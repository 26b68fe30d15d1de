-- tunekit dump, schema version 3
-- a SELECT that never ends (recursive WITH): stopped after the step budget, not a hang
BEGIN;
INSERT INTO configs(text) WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x FROM c;
COMMIT;
