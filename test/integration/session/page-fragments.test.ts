import { describe, expect, it } from "vitest";
import { formatDollars, formatDuration } from "../../../src/session/page/format.js";
import { renderDiff } from "../../../src/session/page/render-diff.js";
import { renderTimeline, stageSpans } from "../../../src/session/page/render-timeline.js";
import { safeLink } from "../../../src/session/page/safe-link.js";
import { showText } from "../../../src/session/page/show-text.js";
import { renderSessionEntry, renderSessionPage } from "../../../src/session/render-session-page.js";
import type { StoredSessionEntry } from "../../../src/session/types.js";

const stored = (entries: Omit<StoredSessionEntry, "seq" | "at">[], step = 1000): StoredSessionEntry[] =>
  entries.map((entry, index) => ({ ...entry, seq: index + 1, at: 1_000_000 + index * step }) as StoredSessionEntry);
const stage = (name: string, state: "started" | "ended") => ({ kind: "stage" as const, data: { name, state } });

describe("showText", () => {
  it.each([
    ["<b>&\"'", "&lt;b&gt;&amp;&quot;&#39;"],
    ["a\u0000b", 'a<span class="ctl">U+0000</span>b'],
    ["\u202eevil", '<span class="ctl">U+202E</span>evil'],
    ["zero\u200bwidth", 'zero<span class="ctl">U+200B</span>width'],
    ["lone \ud800 surrogate", 'lone <span class="ctl">U+D800</span> surrogate'],
    ["tab\tand\nnewline stay", "tab\tand\nnewline stay"],
    ["an emoji 😀 stays whole", "an emoji 😀 stays whole"],
  ])("shows %j as %j", (text, html) => {
    expect(showText(text)).toBe(html);
  });

  it("cuts a long text to its head and says how much was left out", () => {
    expect(showText("x".repeat(1500), 1000)).toBe(`${"x".repeat(1000)}<span class="cut">… 500 more characters not shown</span>`);
  });
});

describe("renderDiff", () => {
  it("says there is no change for an empty diff", () => {
    expect(renderDiff("")).toBe('<p class="meta">No change.</p>');
  });

  it("cuts one enormous line at the character bound, with a note", () => {
    const html = renderDiff(`+${"z".repeat(300_000)}`);
    expect(html.length).toBeLessThan(210_000);
    expect(html).toContain("The diff has 1 lines (300,001 characters); the first 1 lines (200,000 characters) are shown.");
  });
});

describe("safeLink", () => {
  it.each([
    ["https://github.com/o/r/pull/1", '<a href="https://github.com/o/r/pull/1" rel="noreferrer noopener">PR</a>'],
    ["http://ghe.local/o/r/issues/2?a=1&b=2", '<a href="http://ghe.local/o/r/issues/2?a=1&amp;b=2" rel="noreferrer noopener">PR</a>'],
    ["javascript:alert(1)", 'PR <span class="meta">(javascript:alert(1))</span>'],
    ["data:text/html,<script>1</script>", 'PR <span class="meta">(data:text/html,&lt;script&gt;1&lt;/script&gt;)</span>'],
    ["not a url", 'PR <span class="meta">(not a url)</span>'],
  ])("links %j only when it is http(s)", (url, html) => {
    expect(safeLink(url, "PR")).toBe(html);
  });
});

describe("the timeline", () => {
  it("pairs each end with the latest open start of its name, and keeps a stage that was entered twice twice", () => {
    const session = stored([
      stage("code", "started"),
      stage("code", "ended"),
      stage("qa", "started"),
      stage("code", "started"),
      stage("code", "ended"),
      stage("qa", "ended"),
    ]);
    expect(stageSpans(session)).toEqual([
      { name: "code", startMs: 0, durationMs: 1000 },
      { name: "qa", startMs: 2000, durationMs: 3000 },
      { name: "code", startMs: 3000, durationMs: 1000 },
    ]);
  });

  it("says a stage is running while the job runs, and that it stopped with the job once it ended", () => {
    const running = stored([stage("locate", "started"), stage("plan", "started")]);
    expect(renderTimeline(running)).toContain('<td class="n">running</td>');
    const ended = stored([stage("locate", "started"), { kind: "outcome", data: { status: "cancelled", detail: "stopped by @octocat" } }]);
    expect(renderTimeline(ended)).toContain('<td class="n">stopped with the job</td>');
    expect(renderTimeline(ended)).toContain("The job took 1.0 s.");
  });

  it("puts a stage's name into its row's attribute escaped, never with showText's marks (which would end the attribute)", () => {
    const html = renderTimeline(stored([stage('odd\u202e"name', "started")]));
    expect(html).toContain('<tr data-stage="odd\u202e&quot;name">');
    expect(html).toContain('<td class="stage">odd<span class="ctl">U+202E</span>&quot;name</td>');
  });
});

describe("entries the page cannot read", () => {
  it("shows a damaged entry's row as such and the rest of the page as usual", () => {
    const session = stored([
      { kind: "job", data: { id: 1, jobKind: "resolve-issue", repository: "o/r", number: 1, title: "t" } },
      { kind: "command", data: { sandbox: "bubblewrap" } as never },
      { kind: "progress", data: { stage: "reticulate", splines: 3 } as never },
      { kind: "note", data: { text: "still here" } },
    ]);
    const row = renderSessionEntry(session[1]!)!;
    expect(row.list).toBe("session-work");
    expect(row.html).toMatch(/Entry 2 \(command\) could not be shown: /);
    const page = renderSessionPage(session);
    expect(page).toContain("Progress of stage reticulate.");
    expect(page).toContain("still here");
  });

  it("shows a part whose entry it cannot read as such", () => {
    const page = renderSessionPage(stored([{ kind: "job", data: { repository: "o/r", number: 1, title: { not: "text" } } as never }]));
    expect(page).toContain('<section id="session-header"><p class="error">This part of the session could not be shown: ');
    expect(page).toContain('<section id="session-timeline">');
  });
});

it.each([
  [850, "850 ms"],
  [12_340, "12.3 s"],
  [245_000, "4 min 05 s"],
  [3_720_000, "1 h 02 min"],
  [-1, "—"],
])("formatDuration(%d) is %j", (ms, text) => {
  expect(formatDuration(ms)).toBe(text);
});

it.each([
  [0.00123, "$0.0012"],
  [2.5, "$2.50"],
])("formatDollars(%d) is %j", (usd, text) => {
  expect(formatDollars(usd)).toBe(text);
});
