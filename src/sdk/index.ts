/**
 * `import { createClient } from "assess-cli"`: the package's second face, a typed client of both services over the
 * CLI's own API layer (one HTTP client, one typed function per operation, answers read as the service sends
 * them). Built into dist/sdk.mjs and dist/sdk.cjs, with its types in dist/types/ (src/build.mjs).
 *
 * ```ts
 * const client = createClient({ apiKey: process.env.ASSESS_API_KEY });
 * for await (const test of client.tests.iterate()) console.log(test.testId, test.testName);
 * ```
 */
export {
  /** The service answered with an error status: `status`, every message of the body in `messages`, `ids`. */
  AssessApiError,
  /** No key, or a key the client cannot send (a 401 or 403 answer is an AssessApiError). */
  AssessAuthError,
  /** Every error this client throws is one of these: `message`, `suggestion`, and `status` when there was one. */
  AssessError,
  /** The signal stopped a listing or a bulk run. */
  AssessInterruptedError,
  /** No answer came: DNS, refused connection, timeout (after the retries). */
  AssessNetworkError,
  /** A write went out but its answer was lost: it may or may not have been processed. */
  AssessUncertainError,
  /** A bad argument: nothing was sent. */
  AssessUsageError,
} from "../errors.js";
export { createClient } from "./create.js";
export type * from "./types.js";
