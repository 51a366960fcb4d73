#!/usr/bin/env node
'use strict';
// CommonJS, so that the dashboard starts without Node's ES module loader (src/cli/launch.ts).
const { join } = require('node:path');
// Node 22.1+ caches compiled code between runs; a no-op where unavailable.
require('node:module').enableCompileCache?.();
const dist = join(__dirname, '..', 'dist');
require(join(dist, 'launch.cjs'))
  .launch(process.argv.slice(2), dist)
  .then((code) => {
    process.exitCode = code;
  });
