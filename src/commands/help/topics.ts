/** `assess help <topic>`: one line per paragraph or list item, wrapped to the terminal by output/wrap.ts. */
export const TOPICS: Record<string, string> = {
  environment: `ENVIRONMENT

  ASSESS_API_KEY           API key sent as x-api-key (beats the profile; a --api-key flag beats it)
  ASSESS_BASE_URL          assessment API base URL; may carry a path prefix (https://host/api)
  ASSESS_SKILLS_BASE_URL   employee-skills API base URL; may carry a path prefix
  ASSESS_PROFILE           config profile to use (default: default)
  ASSESS_CONFIG_DIR        where the config file, bulk-run ledgers and a compile cache (cache/) live
  ASSESS_DEBUG=1           same as --debug: one line per HTTP exchange on stderr, key redacted
  ASSESS_WEBHOOK_SECRET    same as --signing-secret of attempts watch and callbacks listen: signs each forward (Standard Webhooks); several secrets, space-separated, give one signature each (a rotation)
  CI=true                  same as --no-input: never prompt
  NO_COLOR                 no colour in any output

  Precedence: flag > environment > profile (assess config set) > built-in default.
  The key is never printed; config list and auth status show ****1234.
`,
  formatting: `FORMATTING

  -o table    boxed table; the default when stdout is a terminal. It fits the terminal: empty columns are left out first, then other columns narrow or are left out; links, e-mail addresses and dates are never cut (when they cannot fit they follow the table, one line per row after the row's first cell); prose such as a plan's DETAIL wraps within its cell; numbers show their unit (DURATION 60 min)
  -o tsv      tab-separated, a header row, no colour or truncation, ISO times; the default when piped
  -o csv      RFC 4180 with CRLF; cells starting with = + - @ tab or CR are prefixed with ' so that a spreadsheet never runs them as formulas
  -o json     the service's objects, pretty-printed (--json is the same)
  -o ndjson   one JSON object per line; list pages stream out as they arrive

  --fields a,b   choose the columns of table, tsv and csv (and the keys of json), by field or by a column's header (status, test link), headed as given; an unknown field lists the available ones. Dotted paths reach nested values: invitationSchedule.scheduleType

  Data goes to stdout; progress, warnings and errors go to stderr. With -o json an error is also printed to stderr as {"error":{"status":N,"messages":[...]}}.

  Control characters (C0, DEL and C1) in values from the service or a file are shown, never sent to the terminal as they are: tab, line feed and carriage return as \\t \\n \\r, any other as \\xHH (ESC is \\x1b, so \\x1b[2J stays text). A table shows a line break as a space; tsv escapes tabs and line breaks too, as they separate cells and rows; csv keeps them inside quoted cells (RFC 4180); messages on stderr keep tabs and line feeds. json and ndjson escape them as JSON does (\\u001b), DEL and C1 included. A backslash is not escaped, so these escapes are for reading: use --json for the exact value. Characters that reorder or hide text are escaped the same way, as \\uHHHH: bidirectional overrides and isolates (U+202A-U+202E, U+2066-U+2069), the marks U+200E U+200F U+061C, zero-width space U+200B, U+2060, U+FEFF and the separators U+2028 U+2029, so that a name holding U+202E cannot show reversed text. Rejects files (invite bulk, employees upsert) escape them as csv does.

  CSV input (invite bulk, employees upsert): a header row is required; , ; or tab is detected; UTF-8 with or without BOM; CRLF and quoted fields with newlines are fine. Invite columns: email | emailid | emailaddress | candidateemail, and name | fullname | candidatename (or firstname + lastname); an optional testid column routes rows to their own tests. Every invalid row is reported with its line number.

  .xlsx input (the same commands): the first sheet, or --sheet NAME; the same header rules and checks, each invalid row reported by sheet, row and column. A cell typed as a date reads as YYYY-MM-DD (with THH:mm:ss when it has a time), numbers as Excel's General format shows them. Rejected rows go to a CSV file.
`,
  "exit-codes": `EXIT CODES

  0    success; also answering no to a confirmation (nothing changed, said on stderr)
  1    the service or the network failed (after retries), or a request may have been processed but its answer was lost (the message says how to check)
  2    usage or input error: bad flag, missing value, invalid CSV; nothing was sent
  3    partial: a bulk run finished with rows the service refused, or chunks failed or of unknown outcome (rows skipped by --skip-invalid alone do not make it 3)
  4    authentication or permission: 401 or 403 from the service, or no API key configured (a 401 of callbacks resend's request, POST /v3/callbacks/process, that names invalid ids is a per-id failure, not this)
  130  interrupted (Ctrl-C); bulk runs leave a ledger that a rerun resumes from
`,
  "dry-run": `DRY RUN

  --dry-run prints each request a command would send (method, URL, headers with the key redacted, body) on stdout as JSON, and sends none: a read command (tests list, reports get, ...) prints its request and stops.

  A command that must read to decide what it would write makes those reads, says so on stderr, and never sends a write: links update (and activate, deactivate) reads the link to show the diff, tests settings set with flags reads the settings it writes back, attempts watch --exec/--forward reads attempts to show what it would run, callbacks resend --from/--to reads the period's attempts, a test picked at a prompt reads the tests. Bulk runs read their ledgers (never the service) to know what is left. Nothing is recorded either: no ledger, rejects file or watch state is written.

  Print GET .../v3/tests and send nothing:
    $ assess tests list --dry-run
  Read the link, then print the change it would send:
    $ assess links update 3001 --test 1001 --validity-days 10 --dry-run
`,
};
