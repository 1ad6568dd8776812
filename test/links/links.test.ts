import { describe, expect, it } from "vitest";
import type { TestLink } from "../../src/api/schemas.js";
import { useTestEnv } from "../helpers/cli.js";

const t = useTestEnv();

const writes = () => t.sandbox.requests.filter((r) => r.method === "POST");
const lastWrite = () => writes().at(-1)!;
const FORBIDDEN = "You do not have permission to access resource";
const INVALID_TYPE = "Invitation Type field value is outside of permissible value";

/** Runs a command that must fail before any write: exit 2, and not one POST on the wire. */
async function refused(argv: string[]): Promise<string> {
  const before = writes().length;
  const r = await t.run(argv);
  expect(r.code, r.stderr).toBe(2);
  expect(writes().length).toBe(before);
  return r.stderr;
}

const base = ["links", "create", "--test", "1001", "--name", "Campus 2026", "--timezone", "1720"];

describe("links create: the body carries what the schedule type needs", () => {
  it("validityindays: invitationValidityInDays and timeZoneId, defaults for proctoring and status", async () => {
    const r = await t.run([
      ...base,
      "--type",
      "email",
      "--schedule",
      "validityindays",
      "--validity-days",
      "7",
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(lastWrite().path).toBe("/v3/tests/1001/testlinks");
    expect(lastWrite().body).toEqual({
      testLinkName: "Campus 2026",
      invitationType: "email",
      proctoringSettings: { proctoringMode: "disabled" },
      invitationSchedule: {
        scheduleType: "validityindays",
        scheduleDetails: { invitationValidityInDays: 7, timeZoneId: 1720 },
      },
      testLinkStatus: "active",
    });
    const link = r.json<TestLink>();
    expect(link).toMatchObject({ testLinkId: expect.any(Number), testId: 1001, testLinkName: "Campus 2026" });
    expect(link.testLink).toMatch(/^https:\/\//);
    expect(r.stderr).toContain(`Created test link ${link.testLinkId} "Campus 2026" for test 1001`);
  });

  it("timebound: start and end as UTC YYYY-MM-DDTHH:mm:ssZ (bare dates span whole days), isApiLink for an open link", async () => {
    const r = await t.run([
      ...base,
      "--type",
      "open",
      "--api-link",
      "--schedule",
      "timebound",
      "--start",
      "2030-03-01T10:00:00+02:00",
      "--end",
      "2030-03-31",
      "--proctoring",
      "video",
      "--stakeholders",
      "hr@example.com, cto@example.com",
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(lastWrite().body).toEqual({
      testLinkName: "Campus 2026",
      invitationType: "open",
      isApiLink: true,
      proctoringSettings: { proctoringMode: "video" },
      invitationSchedule: {
        scheduleType: "timebound",
        scheduleDetails: {
          startDateTime: "2030-03-01T08:00:00Z",
          endDateTime: "2030-03-31T23:59:59Z",
          timeZoneId: 1720,
        },
      },
      stakeholderEmails: "hr@example.com,cto@example.com",
      testLinkStatus: "active",
    });
    expect(r.json<TestLink>()).toMatchObject({ invitationType: "open", isApiLink: true });
  });

  it("slotwise: start and end, no validity days; an inactive status is sent as given", async () => {
    const r = await t.run([
      ...base,
      "--type",
      "email",
      "--schedule",
      "slotwise",
      "--start",
      "2030-05-01",
      "--end",
      "2030-05-02",
      "--status",
      "inactive",
      "--proctoring",
      "image",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(lastWrite().body).toMatchObject({
      invitationSchedule: {
        scheduleType: "slotwise",
        scheduleDetails: {
          startDateTime: "2030-05-01T00:00:00Z",
          endDateTime: "2030-05-02T23:59:59Z",
          timeZoneId: 1720,
        },
      },
      proctoringSettings: { proctoringMode: "image" },
      testLinkStatus: "inactive",
    });
    expect(lastWrite().body).not.toHaveProperty("isApiLink");
    // Piped output (tsv) puts the link's URL in the first column.
    const [header, row] = r.stdout.trim().split("\n");
    expect(header?.split("\t")[0]).toBe("TEST LINK");
    expect(row?.split("\t")[0]).toMatch(/^https:\/\//);
  });

  it("on a terminal the URL stands on a line of its own above the details", async () => {
    const r = await t.run(
      [...base, "--type", "email", "--schedule", "validityindays", "--validity-days", "3", "--no-input"],
      {
        tty: true,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split("\n")[0]).toMatch(/^https:\/\/\S+$/);
    expect(r.stdout).toContain("validityindays");
  });
});

describe("links create: invalid combinations are usage errors naming the flag to add or drop", () => {
  it("--start/--end with validityindays", async () => {
    expect(
      await refused([
        ...base,
        "--type",
        "email",
        "--schedule",
        "validityindays",
        "--validity-days",
        "7",
        "--start",
        "+1d",
      ]),
    ).toContain(
      "--start does not apply to a validityindays schedule: drop --start, or pass --schedule timebound or slotwise",
    );
    expect(
      await refused([
        ...base,
        "--type",
        "email",
        "--schedule",
        "validityindays",
        "--validity-days",
        "7",
        "--start",
        "+1d",
        "--end",
        "+2d",
      ]),
    ).toContain("drop --start and --end");
  });

  it("--validity-days with timebound or slotwise", async () => {
    for (const schedule of ["timebound", "slotwise"]) {
      const stderr = await refused([
        ...base,
        "--type",
        "email",
        "--schedule",
        schedule,
        "--start",
        "+1d",
        "--end",
        "+9d",
        "--validity-days",
        "7",
      ]);
      expect(stderr).toContain(
        `--validity-days does not apply to a ${schedule} schedule: drop --validity-days`,
      );
    }
  });

  it("--api-link on an e-mail link", async () => {
    expect(
      await refused([
        ...base,
        "--type",
        "email",
        "--api-link",
        "--schedule",
        "validityindays",
        "--validity-days",
        "7",
      ]),
    ).toContain("--api-link applies to open links only (isApiLink): drop --api-link, or pass --type open");
  });

  it("an end that is not after the start", async () => {
    expect(
      await refused([
        ...base,
        "--type",
        "email",
        "--schedule",
        "timebound",
        "--start",
        "2030-05-02",
        "--end",
        "2030-05-01",
      ]),
    ).toContain("must be after the start");
  });

  it("a schedule without its fields: the missing flags are named", async () => {
    expect(
      await refused([...base, "--type", "email", "--schedule", "timebound", "--start", "+1d"]),
    ).toContain("Missing --end <date>");
    expect(await refused([...base, "--type", "email", "--schedule", "validityindays"])).toContain(
      "Missing --validity-days <N>",
    );
  });

  it("without prompts, every missing value is listed in one message", async () => {
    const stderr = await refused(["links", "create", "--schedule", "slotwise"]);
    expect(stderr).toContain(
      "Missing --test <testId>, --name <name>, --type email|open, --start <date>, --end <date>, --timezone <id>",
    );
    // --no-input wins on a terminal too.
    const before = writes().length;
    const r = await t.run(["links", "create", "--test", "1001", "--no-input"], { tty: true });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Missing --name <name>, --type email|open, --schedule");
    expect(writes().length).toBe(before);
  });

  it("values outside §2.3 are refused locally", async () => {
    expect(
      await refused([...base, "--type", "sms", "--schedule", "validityindays", "--validity-days", "7"]),
    ).toContain('--type must be one of email, open, got "sms"');
    expect(await refused([...base, "--type", "email", "--schedule", "weekly"])).toContain(
      "--schedule must be one of",
    );
    expect(
      await refused([...base, "--type", "email", "--proctoring", "audio", "--schedule", "validityindays"]),
    ).toContain("--proctoring must be one of disabled, image, video");
    expect(
      await refused([...base, "--type", "email", "--schedule", "validityindays", "--validity-days", "0"]),
    ).toContain("--validity-days must be a positive whole number");
    expect(
      await refused([
        ...base,
        "--type",
        "email",
        "--schedule",
        "validityindays",
        "--validity-days",
        "2",
        "--timezone",
        "UTC",
      ]),
    ).toContain("--timezone must be a positive whole number");
    expect(await refused([...base, "--type", "email", "--stakeholders", "hr@example.com,nobody"])).toContain(
      '--stakeholders: "nobody" is not a valid e-mail address',
    );
    expect(
      await refused([
        ...base,
        "--type",
        "email",
        "--schedule",
        "timebound",
        "--start",
        "soon",
        "--end",
        "+1d",
      ]),
    ).toContain('--start: "soon" is not a date');
  });
});

describe("links list and get", () => {
  it("lists a test's links and shows one", async () => {
    const list = await t.run(["links", "list", "--test", "1001", "--json"]);
    expect(list.code).toBe(0);
    const links = list.json<TestLink[]>();
    expect(links.map((l) => l.testLinkId)).toEqual(expect.arrayContaining([3001, 3002, 3003]));
    const get = await t.run(["links", "get", "3002", "--test", "1001", "--json"]);
    expect(get.code).toBe(0);
    expect(get.json<TestLink>()).toMatchObject({ testLinkId: 3002, testId: 1001, invitationType: "open" });
    const limited = await t.run(["links", "list", "--test", "1001", "--limit", "1", "-o", "ndjson"]);
    expect(limited.stdout.trim().split("\n")).toHaveLength(1);
  });
});

describe("links update changes only what is passed", () => {
  it("one field: the others stay as they were", async () => {
    const before = (await t.run(["links", "get", "3004", "--test", "1002", "--json"])).json<TestLink>();
    const r = await t.run([
      "links",
      "update",
      "3004",
      "--test",
      "1002",
      "--name",
      "Backend hiring 2027",
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(lastWrite().path).toBe("/v3/tests/1002/testlinks/3004");
    expect(lastWrite().body).toEqual({
      testLinkName: "Backend hiring 2027",
      invitationType: "email",
      proctoringSettings: { proctoringMode: before.proctoringSettings?.proctoringMode },
      invitationSchedule: {
        scheduleType: "validityindays",
        scheduleDetails: { invitationValidityInDays: 14, timeZoneId: 1720 },
      },
      stakeholderEmails: "hiring@acme.example,cto@acme.example",
      testLinkStatus: "active",
    });
    const after = (await t.run(["links", "get", "3004", "--test", "1002", "--json"])).json<TestLink>();
    expect(after).toEqual({ ...before, testLinkName: "Backend hiring 2027" });
    expect(r.stderr).toContain("Updated test link 3004 of test 1002: testLinkName");
  });

  it("a schedule switch keeps the dates it can use and sends only that schedule's fields", async () => {
    const before = (await t.run(["links", "get", "3005", "--test", "1002", "--json"])).json<TestLink>();
    const r = await t.run(["links", "update", "3005", "--test", "1002", "--schedule", "slotwise", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const after = r.json<TestLink>();
    expect(after.invitationSchedule).toEqual({ ...before.invitationSchedule, scheduleType: "slotwise" });
    expect(lastWrite().body).toMatchObject({ invitationType: "open", isApiLink: false });
    const toDays = await t.run([
      "links",
      "update",
      "3005",
      "--test",
      "1002",
      "--schedule",
      "validityindays",
      "--validity-days",
      "5",
      "--json",
    ]);
    expect(toDays.code, toDays.stderr).toBe(0);
    expect(lastWrite().body).toMatchObject({
      invitationSchedule: {
        scheduleType: "validityindays",
        scheduleDetails: { invitationValidityInDays: 5, timeZoneId: 1720 },
      },
    });
    expect(JSON.stringify(lastWrite().body)).not.toContain("DateTime");
  });

  it("--dry-run shows the diff and sends nothing", async () => {
    const before = writes().length;
    const r = await t.run([
      "links",
      "update",
      "3001",
      "--test",
      "1001",
      "--validity-days",
      "10",
      "--proctoring",
      "image",
      "--dry-run",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("Changes to test link 3001:");
    expect(r.stderr).toContain("invitationSchedule.scheduleDetails.invitationValidityInDays: 7 → 10");
    expect(r.stderr).toContain('proctoringSettings.proctoringMode: "disabled" → "image"');
    expect(r.json<{ dryRun: boolean; body: unknown }>()).toMatchObject({
      dryRun: true,
      body: { invitationSchedule: { scheduleDetails: { invitationValidityInDays: 10 } } },
    });
    expect(writes().length).toBe(before);
    const still = (await t.run(["links", "get", "3001", "--test", "1001", "--json"])).json<TestLink>();
    expect(still.invitationSchedule?.scheduleDetails?.invitationValidityInDays).toBe(7);
  });

  it("values the link already has: nothing is sent", async () => {
    const before = writes().length;
    const r = await t.run(["links", "update", "3001", "--test", "1001", "--name", "Campus drive"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("already has these values; nothing was sent");
    expect(writes().length).toBe(before);
  });

  it("--stakeholders none clears the list", async () => {
    const r = await t.run(["links", "update", "3004", "--test", "1002", "--stakeholders", "none", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(lastWrite().body).toMatchObject({ stakeholderEmails: null });
    expect(r.json<TestLink>().stakeholderEmails).toBeNull();
  });

  it("refuses combinations that do not fit the link, before any write", async () => {
    expect(await refused(["links", "update", "3001", "--test", "1001", "--start", "+1d"])).toContain(
      "--start does not apply to a validityindays schedule: drop --start, or pass --schedule timebound or slotwise",
    );
    expect(await refused(["links", "update", "3001", "--test", "1001", "--schedule", "timebound"])).toContain(
      "Missing --start <date>, --end <date>: test link 3001 has no value of its own to keep",
    );
    expect(await refused(["links", "update", "3001", "--test", "1001", "--api-link"])).toContain(
      "drop --api-link, or pass --type open",
    );
    expect(await refused(["links", "update", "3002", "--test", "1001", "--validity-days", "3"])).toContain(
      "--validity-days does not apply to a timebound schedule",
    );
    expect(await refused(["links", "update", "3002", "--test", "1001", "--end", "2000-01-01"])).toContain(
      "must be after the start",
    );
    expect(await refused(["links", "update", "3001", "--test", "1001"])).toContain("Nothing to change");
  });
});

describe("links activate / deactivate", () => {
  it("round trip: only testLinkStatus is sent, nothing else of the link changes", async () => {
    const original = (await t.run(["links", "get", "3002", "--test", "1001", "--json"])).json<TestLink>();
    expect(original.testLinkStatus).toBe("active");

    const off = await t.run(["links", "deactivate", "3002", "--test", "1001", "--json"]);
    expect(off.code, off.stderr).toBe(0);
    expect(lastWrite()).toMatchObject({
      path: "/v3/tests/1001/testlinks/3002",
      body: { testLinkStatus: "inactive" },
    });
    expect(Object.keys(lastWrite().body as object)).toEqual(["testLinkStatus"]);
    expect(off.json<TestLink>().testLinkStatus).toBe("inactive");
    const listed = (await t.run(["links", "list", "--test", "1001", "--json"])).json<TestLink[]>();
    expect(listed.find((l) => l.testLinkId === 3002)?.testLinkStatus).toBe("inactive");

    const on = await t.run(["links", "activate", "3002", "--test", "1001"]);
    expect(on.code, on.stderr).toBe(0);
    expect(on.stderr).toContain("Test link 3002 of test 1001 is now active");
    const after = (await t.run(["links", "get", "3002", "--test", "1001", "--json"])).json<TestLink>();
    expect(after).toEqual(original);
  });
});

describe("errors of the service surface with their exit codes", () => {
  it("another account's test: 403 → exit 4 with the service's message", async () => {
    for (const argv of [
      ["links", "list", "--test", "2001"],
      ["links", "get", "3006", "--test", "2001"],
      ["links", "update", "3006", "--test", "2001", "--name", "Mine now"],
      ["links", "deactivate", "3006", "--test", "2001"],
      [
        "links",
        "create",
        "--test",
        "2001",
        "--name",
        "x",
        "--type",
        "email",
        "--schedule",
        "validityindays",
        "--validity-days",
        "1",
        "--timezone",
        "1720",
      ],
    ]) {
      const r = await t.run([...argv, "--json"]);
      expect(r.code, argv.join(" ")).toBe(4);
      expect(r.stderr).toContain(FORBIDDEN);
      expect(r.stderr).toContain(`{"error":{"status":403,"messages":["${FORBIDDEN}"]}}`);
    }
  });

  it("an invitation type outside the permissible values: 400 → exit 1 with §7's message", async () => {
    // `links` refuses such a value itself (exit 2, above), so the raw escape hatch sends it to the service.
    for (const invitationType of ["sms", 2]) {
      const body = {
        testLinkName: "Raw",
        invitationType,
        invitationSchedule: {
          scheduleType: "validityindays",
          scheduleDetails: { invitationValidityInDays: 3, timeZoneId: 1720 },
        },
      };
      const r = await t.run([
        "api",
        "POST",
        "/v3/tests/1001/testlinks",
        "--data",
        JSON.stringify(body),
        "--json",
      ]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(INVALID_TYPE);
      expect(r.stderr).toContain(`{"error":{"status":400,"messages":["${INVALID_TYPE}"]}}`);
    }
  });

  it("the same 400 reaching `links create` (a service narrower than §2.3) exits 1 with the message", async () => {
    t.sandbox.faults.add({
      method: "POST",
      path: "/v3/tests/*/testlinks",
      kind: "status",
      status: 400,
      body: JSON.stringify({ errors: [INVALID_TYPE] }),
      contentType: "application/json",
    });
    const r = await t.run([
      ...base,
      "--type",
      "open",
      "--schedule",
      "validityindays",
      "--validity-days",
      "3",
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error: ${INVALID_TYPE}`);
  });
});
