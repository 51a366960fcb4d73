#!/usr/bin/env node
'use strict';
// CommonJS, so that the dashboard starts without Node's ES module loader (src/cli/launch.ts).
const { join } = require('node:path');
// Node 22.1+ caches compiled code between runs: launch turns it on, in the user's own cache
// directory (src/cli/code-cache.ts)
const dist = join(__dirname, '..', 'dist');
require(join(dist, 'launch.cjs'))
  .launch(process.argv.slice(2), dist)
  .then((code) => {
    process.exitCode = code;
  });
