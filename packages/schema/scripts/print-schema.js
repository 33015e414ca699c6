#!/usr/bin/env node
// Regenerates schema.graphql from the built schema (run through `pnpm --filter @asrank/schema run print-schema`).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { printSchemaSDL } = require('../dist/index.js');

const target = path.join(__dirname, '..', 'schema.graphql');
fs.writeFileSync(target, printSchemaSDL());
console.log(`wrote ${target}`);
