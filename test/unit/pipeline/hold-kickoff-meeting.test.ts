import { describe, expect, it } from "vitest";
import { showIssue } from "../../../src/pipeline/format-issue.js";
import { holdKickoffMeeting, MANAGER } from "../../../src/pipeline/plan/hold-kickoff-meeting.js";
import type { DeveloperRole, FileTask } from "../../../src/pipeline/types.js";
import { testContext } from "./context.js";
import { fakeLlm } from "./fake-llm.js";

const issue = showIssue({ title: "Dates lose their offset", body: "parseDate drops +02:00", hints: [] });
const tasks: FileTask[] = ["a.js", "b.js", "c.js"].map((path) => ({ path, description: `fix ${path}` }));
const developers: DeveloperRole[] = [
  { name: "Ada", path: "a.js", role: "You fix a." },
  { name: "Bob", path: "b.js", role: "You fix b." },
  { name: "Cy", path: "c.js", role: "You fix c." },
];

describe("holdKickoffMeeting", () => {
  it("lets the Manager open and close and every Developer speak once, in order, having heard all before", async () => {
    const llm = fakeLlm({
      "manager-open-meeting": () => ({ speech: "Welcome." }),
      "developer-speak": (vars) => ({ speech: `${vars.name} heard ${String(vars.transcript).split("\n\n").length} turns.` }),
      "manager-close-meeting": (vars) => ({ speech: `Summary after ${String(vars.transcript).split("\n\n").length} turns.` }),
    });
    const transcript = await holdKickoffMeeting(testContext(llm), issue, tasks, developers);
    expect(transcript.map((t) => t.speaker)).toEqual([MANAGER, "Ada", "Bob", "Cy", MANAGER]);
    expect(transcript.map((t) => t.text)).toEqual(["Welcome.", "Ada heard 1 turns.", "Bob heard 2 turns.", "Cy heard 3 turns.", "Summary after 4 turns."]);
    const bobHeard = String(llm.calls.find((c) => c.vars.name === "Bob")!.vars.transcript);
    expect(bobHeard).toBe("Manager: Welcome.\n\nAda: Ada heard 1 turns.");
    expect(llm.calls.map((c) => c.agent)).toEqual(["manager", "developer", "developer", "developer", "manager"]);
  });

  it("gives each Developer its own task and role", async () => {
    const llm = fakeLlm({
      "manager-open-meeting": () => ({ speech: "Hi." }),
      "developer-speak": () => ({ speech: "Fine." }),
      "manager-close-meeting": () => ({ speech: "Bye." }),
    });
    await holdKickoffMeeting(testContext(llm), issue, tasks, developers);
    const speeches = llm.calls.filter((c) => c.prompt === "developer-speak");
    expect(speeches.map((c) => [c.vars.path, c.vars.task, c.vars.role])).toEqual([
      ["a.js", "fix a.js", "You fix a."],
      ["b.js", "fix b.js", "You fix b."],
      ["c.js", "fix c.js", "You fix c."],
    ]);
    expect(String(speeches[0]!.vars.team)).toContain("**Cy** owns `c.js`: fix c.js");
  });
});
