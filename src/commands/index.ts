import type { Command } from "commander";
import { register as api } from "./api/index.js";
import { register as attempts } from "./attempts/index.js";
import { register as auth } from "./auth/index.js";
import { register as callbacks } from "./callbacks/index.js";
import { register as completion } from "./completion/index.js";
import { register as config } from "./config/index.js";
import { register as employees } from "./employees/index.js";
import { register as gdpr } from "./gdpr/index.js";
import { register as help } from "./help/index.js";
import { register as invite } from "./invite/index.js";
import { register as links } from "./links/index.js";
import { register as reports } from "./reports/index.js";
import { register as sandbox } from "./sandbox/index.js";
import type { Kit } from "./shared/kit.js";
import { register as tests } from "./tests/index.js";
import { register as users } from "./users/index.js";

/** Every command group, in the order `assess --help` lists them. Each group declares its verbs eagerly and loads them lazily. */
export function registerCommands(program: Command, kit: Kit): void {
  for (const group of [
    tests,
    invite,
    links,
    reports,
    attempts,
    callbacks,
    gdpr,
    users,
    employees,
    auth,
    config,
    api,
    sandbox,
    completion,
    help,
  ]) {
    group(program, kit);
  }
}
