#!/usr/bin/env node
'use strict';
// The compiled CLI; `npm ci` (prepare) or `npm run build` produces dist/.
require('../dist/cli/main.js').main(process.argv);
