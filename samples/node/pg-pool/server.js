'use strict';
// io-bound (connection-pool), on Fastify 5 with pg: an orders API whose
// every request runs one 50 ms query (the report query, line 22; pg_sleep
// stands for its work) through a pg Pool of 4 connections (line 19). With
// 50 clients, 4 queries run and the other requests wait in pg's pool queue
// for a free connection: each request takes ~50 / 4 × 50 ms ≈ 600 ms, nearly
// all of it waiting, while the loop is idle and PostgreSQL has capacity to
// spare. The fix: a larger pool (max: 20, within the server's
// max_connections), a faster query, or fewer clients per instance.
// PostgreSQL is found from the PG* variables (PGHOST, PGPORT, PGUSER,
// PGDATABASE), as psql does; tests/integration/pg_pool.sh starts a
// throwaway cluster and sets them.
const fastify = require('fastify')({ logger: false });
const { Pool } = require('pg');

// How long the report query takes, seconds (pg_sleep's argument).
const QUERY_S = 0.05;

const pool = new Pool({ max: 4 });

fastify.get('/', async () => {
  const { rows } = await pool.query('SELECT $1::int AS orders, pg_sleep($2) IS NULL AS done', [42, QUERY_S]);
  return rows[0];
});

fastify.addHook('onClose', () => pool.end());
fastify.listen({ port: Number(process.env.PORT) || 0, host: '127.0.0.1' }).then((address) => {
  console.log(`pg-pool listening on ${address.replace('http://', '')}, PostgreSQL at ${process.env.PGHOST || 'localhost'}:${process.env.PGPORT || 5432}`);
});
