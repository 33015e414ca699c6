#!/usr/bin/env node
import { runCli } from './cli';

void runCli(process.argv).then((code) => {
  process.exitCode = code;
});
