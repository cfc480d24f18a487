'use strict';
// blocked-loop, on Fastify 5: a profile endpoint that re-checks the stored
// contact address with EMAIL_RE (line 15) before showing it. The pattern's
// nested quantifier, ([a-z0-9]+\.?)+ before the @, backtracks
// catastrophically on an address with no @ and a long local part: each
// test() of the stored "johnsmithjuniorofsales,example.com" takes ~50 ms, on
// the loop (checkContact, line 20; EMAIL_RE.test(email), line 22). Fastify itself is
// fast; the line to fix is the pattern: rewrite it without the nested
// quantifier (/^[a-z0-9.]+@[a-z0-9-]+(\.[a-z0-9-]+)+$/), or bound the input
// length before testing.
const fastify = require('fastify')({ logger: false });

// Letters and digits with optional dots, an @, a domain: the nesting
// ([a-z0-9]+\.?)+ has exponentially many ways to split "aaaa" when it fails.
const EMAIL_RE = /^([a-z0-9]+\.?)+@[a-z0-9-]+(\.[a-z0-9-]+)+$/;

// A contact as the CRM stored it: an address typed with a comma for the @.
const contact = { id: 42, name: 'John Smith', email: 'johnsmithjuniorofsales,example.com' };

function checkContact(c) {
  const email = c.email.toLowerCase();
  return { ...c, emailValid: EMAIL_RE.test(email) };
}

fastify.get('/', async () => checkContact(contact));

fastify.listen({ port: Number(process.env.PORT) || 0, host: '127.0.0.1' }).then((address) => {
  console.log(`fastify-regex listening on ${address.replace('http://', '')}`);
});
