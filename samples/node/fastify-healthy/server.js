'use strict';
// healthy, on Fastify 5: the control. A small JSON API (a product lookup from
// an in-memory Map, a response schema that Fastify compiles once into a fast
// serialiser) that does well under 0.1 ms of work per request. Under load
// its loop is busy because requests keep coming, never because one of them
// holds it: nothing to fix. (Clinic Doctor has called a server like this
// "event-loop".)
const fastify = require('fastify')({ logger: false });

const products = new Map();
for (let i = 0; i < 1000; i++) products.set(String(i), { id: i, title: `Product ${i}`, price: 1000 + i });

const productSchema = {
  response: {
    200: {
      type: 'object',
      properties: { id: { type: 'integer' }, title: { type: 'string' }, price: { type: 'integer' } },
    },
  },
};

let nextId = 0;
fastify.get('/', { schema: productSchema }, async (request) => {
  const id = request.query.id ?? String(nextId++ % products.size);
  return products.get(id) ?? { id: -1, title: 'none', price: 0 };
});

fastify.listen({ port: Number(process.env.PORT) || 0, host: '127.0.0.1' }).then((address) => {
  console.log(`fastify-healthy listening on ${address.replace('http://', '')}`);
});
