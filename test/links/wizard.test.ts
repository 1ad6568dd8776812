/**
 * The `links create` wizard as a person uses it: the built CLI in a pseudo-terminal, against a sandbox
 * started here, answers typed as keys, the screen read back.
 */
import { afterEach, describe, expect, it } from "vitest";
import { useTestEnv } from "../helpers/cli.js";
import { KEY, Terminal } from "../helpers/terminal.js";

const t = useTestEnv();
let terminal: Terminal | undefined;
afterEach(() => terminal?.close());

const linkPosts = () => t.sandbox.requests.filter((r) => r.method === "POST" && /\/testlinks$/.test(r.path));
const wizard = (args: string[]) => {
  terminal = Terminal.start(["links", "create", ...args], t.env);
  return terminal;
};

describe("links create wizard in a terminal", () => {
  it("walks from picking the test to the created link, with a wrong date retyped", async () => {
    const before = linkPosts().length;
    const term = wizard([]);

    await term.waitFor("Which test?");
    term.type("python");
    await term.waitFor("❯ Python Developer (1002)"); // the filtered list, its first entry under the cursor
    term.type(KEY.enter);
    await term.answer("Name of the link", "Spring campus");
    await term.waitFor("Invitation type");
    term.type(`${KEY.down}${KEY.enter}`); // open
    await term.answer("Is it an API link", "n");
    await term.waitFor("Proctoring");
    term.type(`${KEY.down}${KEY.enter}`); // image
    await term.waitFor("Schedule type");
    term.type(`${KEY.down}${KEY.enter}`); // timebound

    await term.answer("Start of access", "2020-01-01");
    await term.waitFor("is in the past; give a future date");
    term.type(`${KEY.backspace.repeat("2020-01-01".length)}+1d${KEY.enter}`);
    await term.answer("End of access", "+2h");
    await term.waitFor("must be after the start");
    term.type(`${KEY.backspace.repeat("+2h".length)}+30d${KEY.enter}`);
    await term.answer("Time zone id", "1720");
    await term.answer("Stakeholder e-mails", "hr@example.com, not-an-address");
    await term.waitFor('"not-an-address" is not a valid e-mail address');
    term.type(`${KEY.backspace.repeat(", not-an-address".length)}${KEY.enter}`);
    await term.waitFor("Status");
    term.type(KEY.enter); // active, the default

    const summary = await term.waitFor(/The test link to create:[\s\S]*?Status\s+active/);
    expect(summary).toMatch(/Test\s+1002/);
    expect(summary).toMatch(/Name\s+Spring campus/);
    expect(summary).toMatch(/Invitation type\s+open\r?\n/);
    expect(summary).toMatch(/API link\s+no\r?\n/); // answered, so said
    expect(summary).toMatch(/Proctoring\s+image/);
    expect(summary).toMatch(/Schedule\s+timebound: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ → /);
    expect(summary).toMatch(/Stakeholders\s+hr@example.com/);
    expect(linkPosts().length).toBe(before); // nothing sent before the confirmation
    await term.answer("Create this link?", "");

    await term.waitFor(/Created test link \d+ "Spring campus" for test 1002/);
    await term.waitFor("https://");
    expect(await term.exited).toBe(0);

    const posts = linkPosts();
    expect(posts.length).toBe(before + 1);
    const sent = posts.at(-1)!;
    expect(sent.path).toBe("/v3/tests/1002/testlinks");
    expect(sent.body).toMatchObject({
      testLinkName: "Spring campus",
      invitationType: "open",
      isApiLink: false,
      proctoringSettings: { proctoringMode: "image" },
      stakeholderEmails: "hr@example.com",
      testLinkStatus: "active",
      invitationSchedule: { scheduleType: "timebound", scheduleDetails: { timeZoneId: 1720 } },
    });
    const details = (sent.body as { invitationSchedule: { scheduleDetails: Record<string, string> } })
      .invitationSchedule.scheduleDetails;
    expect(Object.keys(details).sort()).toEqual(["endDateTime", "startDateTime", "timeZoneId"]);
    expect(new Date(details.startDateTime!).getTime()).toBeGreaterThan(Date.now());

    const listed = await t.run(["links", "list", "--test", "1002", "--json"]);
    expect(listed.json<Array<{ testLinkName: string }>>().map((l) => l.testLinkName)).toContain(
      "Spring campus",
    );
  });

  it("asks only what the flags left out, and checks the days as they are typed", async () => {
    const before = linkPosts().length;
    const term = wizard([
      "--test",
      "1001",
      "--name",
      "Given by flag",
      "--type",
      "email",
      "--timezone",
      "1720",
      "--status",
      "inactive",
    ]);

    await term.waitFor("Proctoring");
    term.type(KEY.enter); // disabled, the default
    await term.waitFor("Schedule type");
    term.type(KEY.enter); // validityindays
    await term.answer("Valid for how many days", "0");
    await term.waitFor("must be a positive whole number");
    term.type(`${KEY.backspace}10${KEY.enter}`);
    await term.answer("Stakeholder e-mails", "");
    await term.answer("Create this link?", "y");
    await term.waitFor(/Created test link \d+ "Given by flag"/);
    expect(await term.exited).toBe(0);

    for (const question of ["Which test?", "Name of the link", "Invitation type", "Time zone id", "Status"]) {
      expect(term.screen).not.toContain(`? ${question}`);
    }
    expect(linkPosts().length).toBe(before + 1);
    expect(linkPosts().at(-1)!.body).toEqual({
      testLinkName: "Given by flag",
      invitationType: "email",
      proctoringSettings: { proctoringMode: "disabled" },
      invitationSchedule: {
        scheduleType: "validityindays",
        scheduleDetails: { invitationValidityInDays: 10, timeZoneId: 1720 },
      },
      testLinkStatus: "inactive",
    });
  });

  it("Ctrl-C midway exits 130 and creates nothing", async () => {
    const before = linkPosts().length;
    const linksBefore = (await t.run(["links", "list", "--test", "1001", "--json"])).json<unknown[]>().length;
    const term = wizard(["--test", "1001"]);

    await term.answer("Name of the link", "Abandoned link");
    await term.waitFor("Invitation type");
    term.type(KEY.enter);
    await term.waitFor("Proctoring");
    term.type(KEY.ctrlC);

    expect(await term.exited).toBe(130);
    expect(term.screen).toContain("Cancelled; nothing was sent");
    expect(linkPosts().length).toBe(before);
    const linksAfter = (await t.run(["links", "list", "--test", "1001", "--json"])).json<unknown[]>();
    expect(linksAfter.length).toBe(linksBefore);
  });

  it("answering no at the summary creates nothing and exits 0", async () => {
    const before = linkPosts().length;
    const term = wizard([
      "--test",
      "1001",
      "--type",
      "email",
      "--schedule",
      "validityindays",
      "--validity-days",
      "3",
      "--timezone",
      "1720",
      "--proctoring",
      "video",
      "--stakeholders",
      "none",
      "--status",
      "active",
    ]);
    await term.answer("Name of the link", "Second thoughts");
    await term.answer("Create this link?", "n");
    expect(await term.exited).toBe(0);
    expect(term.screen).toContain("Nothing was created: you answered no");
    expect(linkPosts().length).toBe(before);
  });
});
