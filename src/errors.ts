/**
 * Every failure the CLI reports is one of these. Each carries its exit code (README "Exit codes") and,
 * where we can tell, what the user should do next. Only src/cli.ts turns them into output and an exit code.
 * The classes carry the names the SDK exports them under (`error.name` is "AssessApiError"); the CLI's code
 * knows them by the shorter names exported at the end.
 */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  partial: 3,
  auth: 4,
  interrupted: 130,
} as const;

export class AssessError extends Error {
  readonly exitCode: number;
  readonly suggestion?: string;
  /** HTTP status when the service answered, for `{"error":{"status":N,...}}`. */
  readonly status?: number;
  readonly messages: string[];

  constructor(
    message: string,
    opts: {
      exitCode?: number;
      suggestion?: string;
      status?: number;
      messages?: string[];
      cause?: unknown;
    } = {},
  ) {
    super(message, { cause: opts.cause });
    this.name = new.target.name;
    this.exitCode = opts.exitCode ?? ExitCode.failure;
    this.suggestion = opts.suggestion;
    this.status = opts.status;
    this.messages = opts.messages ?? [message];
  }
}

/**
 * Bad flag, missing value, invalid input file: nothing was sent. `messages`, when given, are whole sentences
 * that together make `message` (the `--json` error carries them; never fragments of it).
 */
export class AssessUsageError extends AssessError {
  constructor(message: string, suggestion?: string, messages?: string[]) {
    super(message, { exitCode: ExitCode.usage, suggestion, messages });
  }
}

/** No key configured, or the service said 401/403. */
export class AssessAuthError extends AssessError {
  constructor(message: string, opts: { suggestion?: string; status?: number; messages?: string[] } = {}) {
    super(message, { exitCode: ExitCode.auth, ...opts });
  }
}

/**
 * The service answered with an error status. `messages` holds every message of the body, whichever of
 * the three documented shapes it came in; `ids` the offending ids of a process-callbacks 401.
 */
export class AssessApiError extends AssessError {
  readonly ids: number[];
  readonly body: unknown;
  /** The answer's Retry-After header as sent (seconds or an HTTP date), for callers that wait on their own. */
  readonly retryAfter?: string;
  constructor(
    status: number,
    messages: string[],
    opts: {
      ids?: number[];
      body?: unknown;
      suggestion?: string;
      method?: string;
      url?: string;
      retryAfter?: string;
    } = {},
  ) {
    const where = opts.method && opts.url ? ` (${opts.method} ${opts.url})` : "";
    const text = messages.length > 0 ? messages.join("; ") : `HTTP ${status}`;
    super(`${text}${where}`, {
      exitCode: status === 401 || status === 403 ? ExitCode.auth : ExitCode.failure,
      status,
      messages,
      suggestion: opts.suggestion ?? suggestionFor(status, opts.url),
    });
    this.ids = opts.ids ?? [];
    this.body = opts.body;
    this.retryAfter = opts.retryAfter;
  }
}

/** What to do next, from the status and, for unknown ids, the kind of resource the path names. */
function suggestionFor(status: number, path = ""): string | undefined {
  if (status === 401) return "Check your API key: run `assess auth login` or set ASSESS_API_KEY.";
  if (status === 403)
    return "The key's account may not use this resource; run `assess tests list` to see your tests.";
  if (status === 404) {
    const link = /\/tests\/(\d+)\/testlinks\/\d+/.exec(path);
    if (link) return `Run \`assess links list --test ${link[1]}\` to see the test's links.`;
    // These requests name a person by e-mail (in the body), not by id.
    if (/\/accounts\/user\//.test(path))
      return "Check the e-mail, and that the user belongs to this account.";
    if (/\/gdpr\//.test(path)) return "Check the e-mail (and the invitation id, if one was given).";
    if (/\/tests\/\d+/.test(path)) return "Run `assess tests list` to see the account's tests.";
    // A pending invitation (what cancel and reattempt often name) is in no attempt listing, only in the book.
    if (/\/invitations\/\d+/.test(path))
      return "Run `assess invite status --candidates` to see the invitations sent from here, or `assess attempts list --from 30d --to now` for finished attempts' ids.";
    if (/\/reports\/\d+/.test(path))
      return "Run `assess attempts list --from 30d --to now` to see recent attempts' ids.";
    if (/\/employees\/\d+\/reports\/\d+/.test(path)) {
      return "There is a report only once the employee completed the test; `assess employees list` and `assess tests list` show the ids.";
    }
    if (/\/employees\/\d+/.test(path)) return "Run `assess employees list` to see the employees' ids.";
    return "Check the id and the base URL (`assess config list` shows the one in use).";
  }
  if (status === 429) return "The service is rate limiting; wait a little or raise --retries.";
  if (status >= 500) return "The service failed; try again later, or run with --debug to see the exchange.";
  return undefined;
}

/** The request never produced an answer: DNS, refused connection, timeout, reset. */
export class AssessNetworkError extends AssessError {
  constructor(message: string, suggestion?: string, cause?: unknown) {
    super(message, { suggestion, cause });
  }
}

/** A POST went out but its answer was lost: the service may or may not have acted on it. */
export class AssessUncertainError extends AssessError {
  constructor(method: string, url: string, reason: string, cause?: unknown) {
    super(`${method} ${url}: ${reason}; the request may have been processed`, {
      suggestion:
        "Check the result before retrying (for example with a list or get command) so nothing is done twice.",
      cause,
    });
  }
}

/** The user pressed Ctrl-C or cancelled a prompt. */
export class AssessInterruptedError extends AssessError {
  constructor(message = "Interrupted") {
    super(message, { exitCode: ExitCode.interrupted });
  }
}

/**
 * The person answered no to a confirmation: not a failure and not an interruption (exit 0); the message, which
 * says that nothing changed, goes to stderr as a plain notice.
 */
export class DeclinedError extends AssessError {
  constructor(message = "Nothing changed: you answered no") {
    super(message, { exitCode: ExitCode.ok });
  }
}

/** Thrown after `--dry-run` printed the request a command would send; not a failure. */
export class DryRunStop extends Error {}

export {
  AssessApiError as ApiError,
  AssessAuthError as AuthError,
  AssessError as CliError,
  AssessInterruptedError as InterruptedError,
  AssessNetworkError as NetworkError,
  AssessUncertainError as UncertainError,
  AssessUsageError as UsageError,
};
