/** Flags several verbs take, declared once here (a verb's own flags are declared in its file). */

import * as z from "../../parse/zod.js";
import { flag } from "./flags.js";

/** `--timezone` of every verb that sends a timeZoneId; the ids are the service's, none is mapped here. */
export const timezone = () =>
  flag.id(
    "time-zone id the invitation is accessed in: an integer id of the service's List timezones operation (its path is not published: copy one from a link, `assess links get`, or ask the vendor); the sandbox takes any integer, its demo links use 1720",
  );

/** The forwards' deadline, on `attempts watch` and `callbacks listen`. */
export const forwardTimeout = () =>
  flag.duration("deadline of one forward: connect, headers and whole answer").default("10s");

/** The forwards' signing, on `attempts watch` and `callbacks listen`. */
export const signingSecret = () =>
  flag.each(
    "<whsec_…>",
    "sign each forward to a plain URL with Standard Webhooks headers (or set ASSESS_WEBHOOK_SECRET); repeat it to rotate secrets: one v1 signature per secret (ASSESS_WEBHOOK_SECRET takes several, space-separated)",
    z.string(),
  );
