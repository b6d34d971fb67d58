import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { renderSessionEntry, renderSessionPage, SESSION_PAGE_STYLE_HASH } from "../../../src/session/render-session-page.js";
import { keptForParts, sessionEventMessage, type SessionEventData } from "../../../src/session/session-live-script.js";
import type { StoredSessionEntry } from "../../../src/session/types.js";
import { SAMPLE_PATCH, syntheticSession } from "../../support/session-entries.js";

const between = (html: string, start: string, end: string) => html.slice(html.indexOf(start), html.indexOf(end, html.indexOf(start)));
const count = (html: string, needle: string) => html.split(needle).length - 1;

describe("renderSessionPage", () => {
  const session = syntheticSession({ modelCalls: 8, commands: 3 });
  const page = renderSessionPage(session);

  it("heads the page with the repository, the issue linked, the outcome and the pull request", () => {
    const header = between(page, '<header id="session-header">', "</header>");
    expect(header).toContain('<a href="https://github.com/octo/parser/issues/7" rel="noreferrer noopener">octo/parser#7</a>: parse() fails on an empty string');
    expect(header).toContain('<span class="outcome succeeded">succeeded</span>: opened a pull request');
    expect(header).toContain('<a href="https://github.com/octo/parser/pull/8"');
  });

  it("draws each stage on the timeline with its duration from the stage entries' times", () => {
    const timeline = between(page, '<section id="session-timeline">', "</section>");
    expect(count(timeline, "<tr data-stage=")).toBe(4);
    // locate: started at entry 2, ended after 2 custodian calls and the located event (entries 3–5): 4 s.
    expect(timeline).toMatch(/data-stage="locate"><td class="stage">locate<\/td><td class="n">\+1\.0 s<\/td><td class="n">4\.0 s<\/td>/);
    expect(timeline).toContain("The job took");
  });

  it("tallies tokens and dollars per agent and in all", () => {
    const totals = between(page, '<section id="session-totals">', "</section>");
    // 2 developer calls at $0.0068, 6 others at $0.0004.
    expect(totals).toMatch(/<tr><td>developer<\/td><td class="n">2<\/td>.*?<td class="n">\$0\.0136<\/td><\/tr>/);
    expect(totals).toMatch(/<tr><td><b>All<\/b><\/td><td class="n">8<\/td>.*?<td class="n">\$0\.0160<\/td><\/tr>/);
  });

  it("prices calls the recorder did not price from the page's table, and says when a price is missing", () => {
    const unpriced = session.map((entry) => (entry.kind === "model-call" ? { ...entry, data: { ...entry.data, usd: undefined } } : entry));
    const priced = renderSessionPage(unpriced, { prices: new Map([["gpt-4o", { prompt: 2.5, completion: 10 }]]) });
    const totals = between(priced, '<section id="session-totals">', "</section>");
    expect(totals).toContain("no price");
    expect(totals).toMatch(/\(6 calls without a price\)/);
  });

  it("shows each model call collapsed, with its prompt, hash, model, tokens, time, dollars, messages and raw answer", () => {
    const calls = between(page, '<ol class="rows" id="calls-developer">', "</ol>");
    expect(count(calls, '<details class="call">')).toBe(2);
    expect(calls).toMatch(
      /<summary><b>developer-write-edit<\/b> <code title="prompt file hash">[0-9a-f]{12}<\/code> · gpt-4o · 1,5\d\d \+ 300 tokens · 1\.2 s · \$0\.0068<\/summary>/,
    );
    expect(calls).toContain("<h4>Raw answer</h4><pre>{&quot;reason&quot;");
    expect(calls).toContain('<details class="message"><summary>1. system');
  });

  it("renders diffs with added and removed lines marked", () => {
    const change = between(page, '<section id="session-result">', "</section>");
    expect(change).toContain('<span class="del">-    return tokens[0]</span><span class="add">+    return tokens[0] if tokens else None</span>');
    expect(change).toContain('<span class="hunk">@@ -10,7 +10,7 @@ def parse(text):</span>');
  });

  it("shows commands with their outputs, candidates with votes and the choice, the reproduction and the environment", () => {
    expect(count(between(page, '<ol class="rows" id="session-commands">', "</ol>"), "<li id=")).toBe(3);
    expect(page).toContain('<code>python -m pytest -q</code> <span class="meta">(tests before)</span>');
    expect(page).toContain("12 passed in 0.42s");
    expect(page).toContain("Candidates: 3 sampled, 2 distinct");
    expect(page).toContain("Group 1: 2 votes (candidates 1, 2) <b>chosen</b>");
    expect(page).toContain("out: it breaks tests/test_parse.py::test_other");
    expect(page).toContain("Why: two of three candidates agree");
    expect(page).toContain('Reproduction before the change: <span class="failed">failed</span>');
    expect(page).toContain('Reproduction after the change: <span class="passed">passed</span>');
    expect(page).toContain("<code>registry.npmjs.org</code>");
    expect(page).toContain('<code>evil.example</code></td><td class="n">2</td><td>not in MAGIS_SETUP_ALLOW_HOSTS');
  });

  it("has no script, no inline handler and a policy of its own when it is not live; its style is the hashed one", () => {
    expect(page).not.toMatch(/<script/i);
    expect(page).not.toMatch(/\son[a-z]+=/i);
    expect(page).toContain("script-src 'none'");
    const style = /<style>([\s\S]*?)<\/style>/.exec(page)![1]!;
    expect(`'sha256-${createHash("sha256").update(style).digest("base64")}'`).toBe(SESSION_PAGE_STYLE_HASH);
    expect(page).toContain(`style-src ${SESSION_PAGE_STYLE_HASH}`);
  });

  it("loads its one script from the server and names the events when live", () => {
    const live = renderSessionPage(session.slice(0, 10), { live: { eventsUrl: "/jobs/42/events", scriptUrl: "/jobs/live.js" } });
    expect(live).toContain('<script src="/jobs/live.js" defer></script>');
    expect(live).toContain('<main id="session" data-events="/jobs/42/events" data-last-seq="10">');
    expect(live).toContain("script-src 'self'; connect-src 'self'");
    expect(count(live, "<script")).toBe(1);
    // Rendered once the job has ended, the page names no stream to follow.
    expect(renderSessionPage(session, { live: { eventsUrl: "/jobs/42/events", scriptUrl: "/jobs/live.js" } })).toContain('<main id="session">');
  });
});

describe("steering on the page", () => {
  const base = syntheticSession().filter((entry) => entry.kind === "job" || (entry.kind === "stage" && entry.seq < 10));
  const at = (entries: StoredSessionEntry[], entry: Omit<StoredSessionEntry, "seq" | "at">) => [
    ...entries,
    { ...entry, seq: entries.length + 100, at: Date.UTC(2026, 11, 2, 13) } as StoredSessionEntry,
  ];
  const waiting = at(base, { kind: "plan-wait", data: { until: Date.UTC(2026, 11, 2, 14), summary: "1. Fix parse()\n- src/parse.py" } });
  const actions = { stopUrl: "/jobs/42/stop", goUrl: "/jobs/42/go", csrfToken: "tok&en" };

  it("shows a waiting plan with Go and Stop forms that carry the CSRF token, only when actions are given", () => {
    const page = renderSessionPage(waiting, { actions });
    expect(page).toContain("The plan waits for approval until 2026-12-02 14:00:00 UTC.");
    expect(page).toContain('<form class="steer" method="post" action="/jobs/42/go"><input type="hidden" name="csrf" value="tok&amp;en">');
    expect(page).toContain('<form class="steer" method="post" action="/jobs/42/stop"><input type="hidden" name="csrf" value="tok&amp;en">');
    expect(renderSessionPage(waiting)).not.toContain("<form");
  });

  it("drops Go once the plan was answered, and both buttons once the job ended", () => {
    const answered = at(waiting, { kind: "steer", data: { action: "go", by: "octocat", guidance: "keep it small", via: "page" } });
    const page = renderSessionPage(answered, { actions });
    expect(page).not.toContain('action="/jobs/42/go"');
    expect(page).toContain("Approved by @octocat from the page");
    expect(page).toContain("keep it small");
    const ended = at(answered, { kind: "outcome", data: { status: "cancelled", detail: "stopped" } });
    expect(renderSessionPage(ended, { actions })).not.toContain("<form");
  });

  it("follows a job handed back and run again as running: live, with Stop and Go", () => {
    const job = base.find((entry) => entry.kind === "job")!;
    const stage = base.find((entry) => entry.kind === "stage")!;
    const entries = [job, stage, { kind: "outcome", data: { status: "handed-back", detail: "the worker stopped" } }, job, stage].map(
      (entry, index) => ({ ...entry, seq: index + 1, at: Date.UTC(2026, 11, 2, 12, index) }) as StoredSessionEntry,
    );
    const again = at(entries, { kind: "plan-wait", data: { until: Date.UTC(2026, 11, 2, 14), summary: "1. Fix parse()" } });
    const live = { eventsUrl: "/jobs/42/events?after=6", scriptUrl: "/jobs/live.js" };
    const page = renderSessionPage(again, { actions, live });
    expect(page).toContain('data-events="/jobs/42/events?after=6"');
    expect(page).toContain('action="/jobs/42/go"');
    expect(page).toContain('action="/jobs/42/stop"');
    expect(page).toContain('<span class="outcome">running</span>');
    expect(JSON.parse(sessionEventMessage(again.at(-1)!, again, { actions, live }).split("data: ")[1]!).ended).toBe(false);
  });

  it("shows the question the Manager asked the author", () => {
    const asked = at(base, { kind: "question", data: { question: "Which version?", author: "alice" } });
    expect(renderSessionPage(asked)).toContain("<h3>A question for @alice</h3><pre>Which version?</pre>");
  });

  it("signs the viewer out through a POST form with the CSRF token", () => {
    const page = renderSessionPage(base, { viewer: { login: "octocat", signOutUrl: "/auth/signout", csrfToken: "abc" } });
    expect(page).toContain('action="/auth/signout"><input type="hidden" name="csrf" value="abc">Signed in as <b>octocat</b>');
  });
});

describe("hostile entries", () => {
  const hostile = '<script>window.pwned=1</script></details></pre><img src=x onerror=alert(1)><a href="javascript:alert(2)">x</a>\u0000\u001b[31m\u202e\u0007';

  it("escapes everything and shows control characters as their code points", () => {
    const page = renderSessionPage(syntheticSession({ title: hostile, answer: hostile, output: hostile, url: "javascript:alert(3)" }));
    expect(page).not.toMatch(/<script/i);
    expect(page).not.toMatch(/<img/i);
    expect(page).not.toMatch(/href="javascript/i);
    expect(page).toContain("&lt;script&gt;window.pwned=1&lt;/script&gt;&lt;/details&gt;");
    expect(page).toContain('<span class="ctl">U+0000</span><span class="ctl">U+001B</span>[31m<span class="ctl">U+202E</span><span class="ctl">U+0007</span>');
    // A javascript: issue URL is shown as text, never a link.
    expect(page).toContain('octo/parser#7 <span class="meta">(javascript:alert(3))</span>');
  });

  it("cuts a 5 MB diff with a note and stays under 2 MB", () => {
    const line = "+" + "x".repeat(99);
    const huge = `diff --git a/big b/big\n--- a/big\n+++ b/big\n@@ -0,0 +1,50000 @@\n${Array.from({ length: 50_000 }, () => line).join("\n")}\n`;
    const page = renderSessionPage(syntheticSession({ patch: huge }));
    expect(huge.length).toBeGreaterThan(5_000_000);
    expect(page.length).toBeLessThan(2_000_000);
    expect(page.includes("The diff has 50,004 lines (5,050,063 characters); the first 1,983 lines (19")).toBe(true);
  });

  it("caps the rows of a list and says how many more there are", () => {
    const page = renderSessionPage(syntheticSession({ commands: 320 }));
    expect(count(between(page, '<ol class="rows" id="session-commands">', "</ol>"), "<li id=")).toBe(300);
    expect(page).toContain("20 more not shown here (the page's bound)");
  });
});

describe("sessionEventMessage", () => {
  const session = syntheticSession();
  const parse = (frame: string) => {
    const [id, data] = frame.split("\n");
    return { id, data: JSON.parse(data!.slice("data: ".length)) as SessionEventData, ends: frame.endsWith("\n\n") };
  };

  it("frames a model call as its row for the agent's list and the totals anew, with the seq as the event id", () => {
    const call = session.find((entry) => entry.kind === "model-call" && entry.data.agent === "manager")!;
    const { id, data, ends } = parse(sessionEventMessage(call, session));
    expect(id).toBe(`id: ${call.seq}`);
    expect(ends).toBe(true);
    expect(data.row).toEqual(renderSessionEntry(call));
    expect(data.row!.list).toBe("calls-manager");
    expect(Object.keys(data.parts)).toEqual(["session-totals"]);
    expect(data.ended).toBe(false);
  });

  it("re-renders the timeline for a stage from the entries up to it, and says the job ended at its outcome", () => {
    const stage = session.find((entry) => entry.kind === "stage" && entry.data.state === "ended")!;
    const { data } = parse(sessionEventMessage(stage, session));
    expect(data.row).toBeUndefined();
    expect(data.parts["session-timeline"]).toContain('data-stage="locate"');
    expect(data.parts["session-timeline"]).not.toContain('data-stage="plan"');
    const outcome = session.at(-1)!;
    const last = parse(sessionEventMessage(outcome, session)).data;
    expect(last.ended).toBe(true);
    expect(Object.keys(last.parts).sort()).toEqual(["session-header", "session-steering", "session-timeline"]);
  });

  it("renders the same events from what a stream keeps of the earlier entries as from all of them", () => {
    const full = syntheticSession({ modelCalls: 6, commands: 3 });
    const kept: StoredSessionEntry[] = [];
    for (const entry of full) {
      const all = full.filter((one) => one.seq <= entry.seq);
      expect(sessionEventMessage(entry, [...kept, entry])).toBe(sessionEventMessage(entry, all));
      const keep = keptForParts(entry, kept.length === 0);
      if (keep) kept.push(keep);
    }
    // Fewer entries kept, and no model call's messages or answer.
    expect(kept.length).toBeLessThan(full.length);
    expect(JSON.stringify(kept)).not.toContain("The issue:");
  });

  it("carries no raw entry text: the hostile answer reaches the script escaped", () => {
    const hostileSession = syntheticSession({ answer: "<script>alert(1)</script>\u2028" });
    const call = hostileSession.find((entry) => entry.kind === "model-call")!;
    const frame = sessionEventMessage(call, hostileSession);
    expect(frame.split("\n")).toHaveLength(4);
    expect(frame).not.toContain("<script");
    expect(frame).toContain("&lt;script&gt;");
  });
});

it("the sample patch is what the first attempt shows", () => {
  expect(renderSessionPage(syntheticSession())).toContain(SAMPLE_PATCH.split("\n")[5]!);
});
