import type { Command } from "commander";
import { EMPLOYEE_STATUSES } from "../../spec/employee-statuses.js";
import { collect, collectList, examples, type GroupSetup } from "../shared/verbs.js";

export function register(employees: Command, { lazy }: GroupSetup): void {
  // A verb on one employee: the employee's id comes first.
  const ofEmployee = (name: string) => employees.command(name).argument("<employeeId>", "the employee's id");
  const pagedList = (command: Command, noun: string) =>
    command
      .option("--page <n>", "page number to show (the first with --all/--limit)", "1")
      .option("--page-size <n>", `${noun} per request (1-100)`, "20")
      .option("--all", "follow every page")
      .option("--limit <n>", `stop after this many ${noun} (follows pages as needed)`);

  examples(
    pagedList(
      employees.command("list").description("List employees with their job and department"),
      "employees",
    ).action(lazy(() => import("./list.js"))),
    [
      "assess employees list",
      "assess employees list --all -o ndjson | jq -r .email",
      "assess employees list --limit 5 --fields employeeId,email",
    ],
  );

  examples(
    employees
      .command("upsert")
      .description(
        "Create or update employees from a CSV file, an .xlsx sheet or a JSON array (validated, resumable)",
      )
      .argument(
        "<file>",
        "a CSV file or .xlsx workbook (header row: email, firstName, lastName, jobCode, externalEmployeeId, department…; other columns become custom fields) or a JSON array of employees; - reads either from standard input",
      )
      .option("--chunk-size <n>", "employees per request (1-100)", "100")
      .option("--concurrency <n>", "requests in flight at once (fewer while the service answers 429)", "8")
      .option("--skip-invalid", "send the valid rows and write the invalid ones to --rejects")
      .option("--rejects <file.csv>", "where rows the run could not send are written")
      .option(
        "--force",
        "overwrite an existing --rejects file, or the default one (a link there is replaced; its target is left alone)",
      )
      .option("--delimiter <char>", "CSV delimiter (default: detected among , ; and tab)")
      .option("--sheet <name>", "the sheet of an .xlsx workbook to read (default: its first)")
      .option("--restart", "ignore what earlier runs of this file already got confirmed")
      .option("--retry-uncertain", "send again the rows whose earlier request got no answer")
      .action(lazy(() => import("./upsert.js"))),
    [
      "assess employees upsert employees.csv",
      "assess employees upsert employees.csv --skip-invalid --rejects rejects.csv",
      "assess employees upsert people.json --json",
      "assess employees upsert staff.xlsx --sheet 'Current staff'",
      "hr-export --json | assess employees upsert -",
    ],
  );

  examples(
    employees
      .command("sync")
      .description(
        "Make the service's employees what a file says: plan (new, changed, unchanged, absent), then upsert only what differs",
      )
      .argument("<file>", "the whole HR export: CSV, .xlsx or a JSON array, as `employees upsert` takes")
      .option("--plan", "list the service's employees and print the plan; send nothing")
      .option(
        "--prune",
        "deactivate (status Inactive) active employees the file does not name (by e-mail or external id, in any row, valid or not); an active one the service gives no usable employeeId stops the run (exit 1)",
      )
      .option(
        "--max-prune <n>",
        "deactivate up to n employees (without it, a prune of more than 10 % of the active ones is refused)",
      )
      .option("--yes", "apply without asking (needed without a terminal)")
      .option("--chunk-size <n>", "employees per upsert request (1-100)", "100")
      .option("--concurrency <n>", "requests in flight at once (fewer while the service answers 429)", "8")
      .option("--skip-invalid", "sync the valid rows and write the invalid ones to --rejects")
      .option("--rejects <file.csv>", "where rows the run could not send are written")
      .option("--force", "overwrite an existing --rejects file")
      .option("--delimiter <char>", "CSV delimiter (default: detected among , ; and tab)")
      .option("--sheet <name>", "the sheet of an .xlsx workbook to read (default: its first)")
      .option("--restart", "ignore what earlier syncs already got confirmed")
      .option("--retry-uncertain", "send again the rows whose earlier request got no answer")
      .action(lazy(() => import("./sync.js"))),
    [
      "assess employees sync staff.csv --prune --plan         # what would change; nothing sent",
      "assess employees sync staff.csv --prune --plan --json  # the plan by class",
      "assess employees sync staff.csv --prune --yes          # upsert new and changed, deactivate departed",
      "assess employees sync staff.csv --prune --max-prune 40 --yes",
    ],
  );

  examples(
    ofEmployee("skills")
      .description(
        "Show an employee's skills profile, grouped by category with level, proficiency and source",
      )
      .action(lazy(() => import("./skills.js"))),
    [
      "assess employees skills 501",
      "assess employees skills 501 --json",
      "assess employees skills 501 -o csv > skills.csv",
    ],
  );

  examples(
    pagedList(
      employees.command("skills-profiles").description("List employees with their strongest skills"),
      "profiles",
    ).action(lazy(() => import("./skills-profiles.js"))),
    [
      "assess employees skills-profiles",
      "assess employees skills-profiles --all -o ndjson > profiles.ndjson",
    ],
  );

  examples(
    ofEmployee("certificates")
      .description("List an employee's certificates")
      .option("--with-skills", "include the skills inferred from each certificate")
      .action(lazy(() => import("./certificates.js"))),
    ["assess employees certificates 501", "assess employees certificates 501 --with-skills --json"],
  );

  examples(
    withBody(
      ofEmployee("add-certificate")
        .description(
          "Store a certificate of an employee; the service infers skills from its title and issuer",
        )
        .option("--title <title>", "certificate title (asked for when missing and prompts are allowed)")
        .option("--issuer <issuer>", "issuing organisation")
        .option("--issue-date <date>", "when it was issued (YYYY-MM-DD or ISO time)")
        .option("--expiry-date <date>", "when it expires (a bare date means the end of that day)")
        .option("--credential-url <url>", "where the credential can be verified")
        .option("--credential-id <id>", "the credential's id at the issuer"),
      "cert.json",
      '{"title": "...", "issuer": "...", "issueDate": "2025-03-01T00:00:00Z", "expiryDate": "2028-03-01T23:59:59Z", "credentialUrl": "https://...", "credentialId": "..."}',
      "Fields without a value are left out; dates are sent as UTC YYYY-MM-DDTHH:mm:ssZ.",
    ).action(lazy(() => import("./add-certificate.js"))),
    [
      "assess employees add-certificate 501 --title 'AWS Certified Solutions Architect' --issuer 'Amazon Web Services' --issue-date 2025-03-01",
      "assess employees add-certificate 501 --file cert.json --dry-run",
    ],
  );

  examples(
    ofEmployee("status")
      .description(
        `Change an employee's status (${EMPLOYEE_STATUSES.join(", ")}; case and dashes don't matter)`,
      )
      .argument("<status>", "the new status")
      .option("--set <key=value>", "add another body field (repeatable; dotted keys nest)", collect)
      .addHelpText(
        "after",
        '\nBody sent by default (--set adds fields):\n  {"status": "Inactive"}\nSent with PATCH.',
      )
      .action(lazy(() => import("./status.js"))),
    ["assess employees status 501 Inactive", "assess employees status 501 on-leave --json"],
  );

  examples(
    ofEmployee("report")
      .description("Show the most recent completed assessment report of an employee for a test")
      .option("--test <testId>", "the test (picked from a list when missing and prompts are allowed)")
      .action(lazy(() => import("./report.js"))),
    ["assess employees report 501 --test 1001", "assess employees report 501 --test 1001 --json"],
  );

  examples(
    ofEmployee("upload-resume")
      .description(
        "Upload an employee's resume (PDF, DOC or DOCX, at most 5 MiB); the service infers skills from it",
      )
      .argument("<file>", "the resume: a .pdf, .doc or .docx file")
      .addHelpText("after", "\nSent as multipart/form-data with the file in a part named `file`.")
      .action(lazy(() => import("./upload-resume.js"))),
    [
      "assess employees upload-resume 501 ada-lovelace.pdf",
      "assess employees upload-resume 501 cv.docx --json",
    ],
  );

  examples(
    withBody(
      ofEmployee("assign-learning")
        .description("Assign learning resources to an employee, by resource id or by skill")
        .option("--resource <id>", "a learning resource id (repeatable, or comma-separated)", collectList)
        .option(
          "--skill <name>",
          "a skill to learn; the service picks resources for it (repeatable, or comma-separated)",
          collectList,
        )
        .option("--from-gap", "add every skill of the employee's skill gap (see `employees skill-gap`)")
        .option("--due <date>", "due date (a bare date means the end of that day)")
        .option("--note <text>", "a note for the employee"),
      "body.json",
      '{"learningResourceIds": ["lr-104"], "skills": ["SQL"], "dueDate": "2026-12-31T23:59:59Z", "note": "..."}',
      "Fields without a value are left out.",
    ).action(lazy(() => import("./assign-learning.js"))),
    [
      "assess employees assign-learning 501 --resource lr-104 --due 2026-12-31",
      "assess employees assign-learning 501 --from-gap --note 'Before the Q3 review'",
      "assess employees assign-learning 501 --file body.json --dry-run",
    ],
  );

  examples(
    ofEmployee("skill-gap")
      .description("Compare an employee's skills with those their job code expects")
      .action(lazy(() => import("./skill-gap.js"))),
    ["assess employees skill-gap 501", "assess employees skill-gap 501 --json"],
  );
}

/**
 * `--file` and `--set` after the command's own flags, and help that documents the JSON it sends, since the
 * service's docs show no such body.
 */
function withBody(command: Command, file: string, shape: string, note: string): Command {
  return command
    .option(`--file <${file}>`, "a JSON object to send (- reads stdin); the flags above override its fields")
    .option("--set <key=value>", "set any other body field (repeatable; dotted keys nest)", collect)
    .addHelpText(
      "after",
      `\nBody sent by default (--file is the base, flags override it, --set goes last):\n  ${shape}\n${note}`,
    );
}
