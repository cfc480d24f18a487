'use strict';
// The compiled TypeScript server (dist/, built by tsc from src/ with source
// maps; see README.md). loopdoctor runs this file like any other sample.
require('./dist/server.js');
