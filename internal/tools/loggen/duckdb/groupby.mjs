// Which idempotency keys repeat, with the lowest and highest status of
// each: the question an engineer with SQL would ask DuckDB of an nginx JSON
// access log, timed beside idem by ../bench.sh. It prints how many keys
// repeat.
//
//	node groupby.mjs FILE [THREADS]
import { DuckDBInstance } from '@duckdb/node-api';

const [file, threads = '2'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node groupby.mjs FILE [THREADS]');
  process.exit(2);
}
const db = await DuckDBInstance.create(':memory:', { threads });
const conn = await db.connect();
const quoted = `'${file.replaceAll("'", "''")}'`;
const reader = await conn.runAndReadAll(`
  SELECT http_idempotency_key AS key, count(*) AS n,
         min(CAST(status AS INTEGER)) AS lo, max(CAST(status AS INTEGER)) AS hi
  FROM read_json_auto(${quoted})
  WHERE http_idempotency_key <> ''
  GROUP BY http_idempotency_key
  HAVING count(*) > 1`);
console.log(`${reader.getRows().length} keys repeat`);
