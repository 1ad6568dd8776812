/**
 * `callbacks listen` reads a notification's TestInvitationId as `callbacks reconcile` reads it from the log (one
 * function): digits with spaces around are the id, 0 and negative numbers are no id.
 */
import { request } from "undici";
import { expect, it } from "vitest";
import { type ReceivedEvent, startListener } from "../../src/commands/callbacks/listener.js";
import { eventually } from "./live.js";

it('the listener takes " 42 " as id 42, and 0 and -3 as no id', async () => {
  const events: ReceivedEvent[] = [];
  const listener = await startListener({
    host: "127.0.0.1",
    port: 0,
    onEvent: (event) => {
      events.push(event);
    },
  });
  try {
    const ids = [" 42 ", 0, -3, "7"];
    for (const id of ids) {
      const res = await request(listener.callbackUrl, {
        method: "POST",
        body: JSON.stringify({ TestInvitationId: id, Status: "Complete" }),
      });
      await res.body.dump();
      expect(res.statusCode).toBe(200);
    }
    await eventually(() => events.length === ids.length || undefined, "the events");
    expect(events.map((event) => event.testInvitationId)).toEqual([42, null, null, 7]);
  } finally {
    await listener.close();
  }
});
