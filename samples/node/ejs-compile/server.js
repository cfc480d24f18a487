'use strict';
// blocked-loop, on Express 5 with ejs: a dashboard page rendered with
// ejs.render(template, data) (line 35, in the route at line 34). ejs.render
// with no `cache` option compiles the template again on every request:
// parses its 200 KB of markup and tags, generates JavaScript, and new
// Function() of it, before running it. Measured outside the server: 16 ms a
// render compiled each time, 1.8 ms with the function compiled once. The
// fix: compile once (ejs.compile at start-up, the `cache: true` option, or
// res.render with the view cache Express turns on in production).
//
// The template stands in for a large hand-written one (1,500 cards of
// markup): generated at start-up so that the sample stays small to read.
const express = require('express');
const ejs = require('ejs');
const path = require('path');

const CARDS = 1500;
const WIDGETS = 20;
const templatePath = path.join(__dirname, 'views', 'dashboard.ejs');
let template = '<!DOCTYPE html>\n<html><head><title><%= title %></title></head><body>\n<h1><%= title %></h1>\n';
for (let i = 0; i < CARDS; i++) {
  const w = `widgets[${i % WIDGETS}]`;
  template += `<section class="card" id="card-${i}"><h2><%= ${w}.name %></h2><p><%= ${w}.summary %></p>` +
    `<% if (${w}.alert) { %><strong class="alert">check</strong><% } %></section>\n`;
}
template += '</body></html>\n';
const widgets = Array.from({ length: WIDGETS }, (_, i) => ({
  name: `Widget ${i}`,
  summary: `${(i * 37) % 100} % of target`,
  alert: i % 3 === 0,
}));

const app = express();
app.get('/', (req, res) => {
  const html = ejs.render(template, { title: 'Dashboard', widgets }, { filename: templatePath });
  res.send(html);
});

const server = app.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log(`ejs-compile listening on 127.0.0.1:${server.address().port}`);
});
