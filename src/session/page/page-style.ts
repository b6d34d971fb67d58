import { createHash } from "node:crypto";

/**
 * The session page's whole style, inlined in one <style> element so that the page is one file (the CLI's
 * session.html) and needs no asset. The served page's Content-Security-Policy allows it by its hash.
 */
export const PAGE_STYLE = `
:root { color-scheme: light dark; --line: #8884; --add: #2a2; --del: #d33; --muted: #888; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 78rem; padding: 1rem 1.5rem 4rem; }
h1 { font-size: 1.4rem; margin: 0 0 .3rem; } h2 { font-size: 1.15rem; margin: 2rem 0 .5rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1rem; margin: 1.2rem 0 .4rem; } h4 { font-size: .9rem; margin: .8rem 0 .3rem; }
pre { background: #8881; border: 1px solid var(--line); border-radius: 4px; padding: .5rem; overflow: auto; max-height: 40rem; white-space: pre-wrap; overflow-wrap: anywhere; }
code { font-size: .92em; } details { margin: .2rem 0; } summary { cursor: pointer; }
table { border-collapse: collapse; } th, td { border: 1px solid var(--line); padding: .2rem .5rem; text-align: left; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
ol.rows, ul.rows { padding-left: 1.4rem; } ol.rows > li, ul.rows > li { margin: .25rem 0; }
.meta, .cut, .more { color: var(--muted); } .cut, .more { font-style: italic; }
.ctl { border: 1px solid var(--muted); border-radius: 3px; font-size: .75em; padding: 0 .15em; color: var(--muted); }
.outcome { font-weight: bold; } .outcome.succeeded { color: var(--add); } .outcome.failed, .outcome.cancelled { color: var(--del); }
.passed, .approved { color: var(--add); } .failed, .timed-out, .error, .refused { color: var(--del); }
pre.diff { padding: 0; } pre.diff > span { display: block; padding: 0 .5rem; }
pre.diff .add { background: #2a22; } pre.diff .del { background: #d332; } pre.diff .hunk { color: var(--muted); } pre.diff .file { font-weight: bold; }
meter { width: 12rem; } .timeline td.stage { font-weight: bold; }
form.steer { display: inline-block; margin: .3rem 1rem .3rem 0; } .waiting { border: 2px solid #c90; border-radius: 6px; padding: .5rem 1rem; }
#session-live { float: right; color: var(--muted); }
`;

/** The page's style as a Content-Security-Policy source (`'sha256-…'`): the served page's `style-src` names it. */
export const SESSION_PAGE_STYLE_HASH = `'sha256-${createHash("sha256").update(PAGE_STYLE).digest("base64")}'`;
