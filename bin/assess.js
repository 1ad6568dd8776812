#!/usr/bin/env node
// CommonJS (bin/package.json): see src/launch.ts for why.
require("../dist/launch.cjs");
