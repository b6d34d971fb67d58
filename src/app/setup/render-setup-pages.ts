import { escapeHtml } from "../../lib/escape-html.js";
import { projectDocs } from "../../lib/project-docs.js";
import type { RegisteredApp } from "./register-app.js";

/** What every setup page says about this server: where the webhooks would go, and the file it writes the settings to. */
export interface SetupFacts {
  /** The webhook URL the app is (to be) registered with. */
  webhookUrl: string;
  /** Why GitHub could not deliver to `webhookUrl`, and what to set instead; absent when it looks reachable. */
  unreachable?: string;
  /** The .env file `magis serve` reads when it starts. */
  envFile: string;
}

/** The page at GET /: register a new app from the manifest (a form GitHub takes), or go to the page for an existing app. */
export function renderRegisterPage(facts: SetupFacts, form: { createAppUrl: string; orgCreateAppUrl: string; manifest: string }): string {
  return page(
    "Register MAGIS as a GitHub App",
    `<p>This server has no GitHub App credentials (<code>APP_ID</code> and a private key), so it serves this page
instead of webhooks.</p>
${warning(facts)}
<h2>Register a new app</h2>
<p>GitHub makes the app from <code>app.yml</code>: the events and permissions MAGIS needs, and the webhook URL
<code>${escapeHtml(facts.webhookUrl)}</code>. GitHub then sends you back here, and this server writes <code>APP_ID</code>,
<code>PRIVATE_KEY_PATH</code> (a key file beside it) and <code>WEBHOOK_SECRET</code> to <code>${escapeHtml(facts.envFile)}</code>.</p>
<p><label>Organisation that owns the app (empty: your own account) <input id="org" autocomplete="off"></label></p>
<form id="register" method="post" action="${escapeHtml(form.createAppUrl)}">
<input type="hidden" name="manifest" value="${escapeHtml(form.manifest)}">
<button type="submit">Register the app on GitHub</button>
</form>
<script>
document.getElementById("register").addEventListener("submit", (event) => {
  const org = document.getElementById("org").value.trim();
  if (org) event.target.action = ${JSON.stringify(form.orgCreateAppUrl)}.replace("ORG", encodeURIComponent(org));
});
</script>
<h2>Use an app registered already</h2>
<p><a href="/setup/existing">What to set for an existing GitHub App</a>.</p>`,
  );
}

/** The page at GET /setup/existing: the settings an app registered already needs, and where they go. */
export function renderExistingAppPage(facts: SetupFacts): string {
  return page(
    "Use a GitHub App registered already",
    `${warning(facts)}
<ol>
<li>On the app's settings page on GitHub (<i>General</i>), set the <b>Webhook URL</b> to
<code>${escapeHtml(facts.webhookUrl)}</code>, and a <b>Webhook secret</b>.</li>
<li>Under <i>Private keys</i>, generate a private key, and save the <code>.pem</code> file on this machine.</li>
<li>Give the app the events and permissions of <code>app.yml</code> (<a href="${projectDocs("app.md#events-and-permissions")}">the list</a>).</li>
<li>Add to <code>${escapeHtml(facts.envFile)}</code>:
<pre>APP_ID=&lt;the App ID shown on the app's settings page&gt;
PRIVATE_KEY_PATH=&lt;the path of the .pem file&gt;
WEBHOOK_SECRET=&lt;the webhook secret set on the app&gt;</pre></li>
<li>Stop this server and start <code>magis serve</code> again: it then serves the app's webhooks.</li>
</ol>
<p><a href="/">Back to registering a new app</a>.</p>`,
  );
}

/** The page after GitHub made the app: what was written where, and the next steps. */
export function renderRegisteredPage(facts: SetupFacts, app: RegisteredApp): string {
  return page(
    `Registered ${app.name}`,
    `<p>GitHub registered <a href="${escapeHtml(app.htmlUrl)}">${escapeHtml(app.name)}</a> (App ID ${app.id}). This server wrote
<code>APP_ID</code>, <code>PRIVATE_KEY_PATH</code>, <code>WEBHOOK_SECRET</code>, <code>GITHUB_CLIENT_ID</code> and
<code>GITHUB_CLIENT_SECRET</code> to <code>${escapeHtml(app.envFile)}</code>, and the private key to <code>${escapeHtml(app.keyFile)}</code>.</p>
<ol>
<li>Add the model's settings to <code>${escapeHtml(app.envFile)}</code>: <code>OPENAI_API_KEY</code> (or
<code>OPENAI_BASE_URL</code> of an OpenAI-compatible server) and <code>MAGIS_MODEL</code>.</li>
<li>Stop this server and start <code>magis serve</code> again: it then serves webhooks at <code>${escapeHtml(facts.webhookUrl)}</code>.</li>
<li><a href="${escapeHtml(`${app.htmlUrl}/installations/new`)}">Install the app</a> on your repositories, and label an issue <code>magis</code>.</li>
</ol>`,
  );
}

/** A page saying what went wrong and what to do. */
export function renderSetupProblem(problem: string): string {
  return page("The app was not registered", `<p>${escapeHtml(problem)}</p>\n<p><a href="/">Back to the setup page</a>.</p>`);
}

/** The unreachable webhook URL's warning, or nothing. */
function warning(facts: SetupFacts): string {
  return facts.unreachable ? `<p><b>GitHub cannot deliver webhooks here yet.</b> ${escapeHtml(facts.unreachable)}</p>` : "";
}

/** A whole page: its title, its body, and the links to this project's docs. */
function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} | MAGIS</title></head>
<body>
<h1>${escapeHtml(title)}</h1>
${body}
<h2>Help</h2>
<ul>
<li><a href="${projectDocs("app.md#set-it-up")}">Setting up the GitHub App</a> (docs/app.md)</li>
<li><a href="${projectDocs("deploy.md")}">Deploying it</a> (docs/deploy.md)</li>
<li><a href="${projectDocs("configuration.md")}">Every setting</a> (docs/configuration.md)</li>
</ul>
</body></html>
`;
}
