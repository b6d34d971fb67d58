import type { EnvironmentReport } from "../../pipeline/types.js";
import type { HostTally } from "../../sandbox/sandbox.js";
import { formatCount } from "./format.js";
import { renderRun } from "./render-run.js";
import { showText } from "./show-text.js";

/** The environment the repository's commands ran in: where it was declared, its steps, its readiness and its network. */
export function renderEnvironment(environment: EnvironmentReport): string {
  const facts = [
    `Declared in <code>${showText(environment.source)}</code>; ${environment.how} (key <code>${showText(environment.key, 40)}</code>).`,
    `Steps: ${environment.steps.length ? environment.steps.map((step) => `<code>${showText(step, 300)}</code>`).join(", ") : "none"} — ${environment.stepSeconds.toFixed(1)} s; ready after ${environment.readySeconds.toFixed(1)} s.`,
  ];
  if (environment.kept) facts.push(environment.kept.kept ? "Kept for later jobs." : `Not kept: ${showText(environment.kept.why, 500)}`);
  if (environment.failed) facts.push(`<span class="failed">Failed: ${showText(environment.failed, 2000)}</span>`);
  if (environment.maintenanceFailed) facts.push(`Built afresh: ${showText(environment.maintenanceFailed, 2000)}`);
  for (const line of [...environment.unsupported, ...environment.shadowed.map((other) => `Not used: ${other}`)]) facts.push(showText(line, 500));
  const failedStep = environment.failedStep ? renderRun(`Step ${environment.failedStep.name}`, environment.failedStep.run) : "";
  return `<div class="environment"><ul class="rows">${facts.map((fact) => `<li>${fact}</li>`).join("")}</ul>${failedStep}${renderNetwork(environment)}</div>`;
}

function renderNetwork(environment: EnvironmentReport): string {
  const network = environment.network;
  if (!network) return `<p class="meta">The setup had no network.</p>`;
  const rows = (hosts: HostTally[], other: number | undefined, refused: boolean) => {
    const named = hosts.map(
      (host) =>
        `<tr><td><code>${showText(host.host, 300)}</code></td><td class="n">${formatCount(host.count)}</td><td>${refused ? showText(host.why ?? "refused", 300) : `${formatCount(host.bytes)} bytes`}</td></tr>`,
    );
    if (other) named.push(`<tr><td class="more">other hosts</td><td class="n">${formatCount(other)}</td><td></td></tr>`);
    return named.join("");
  };
  const table = (title: string, body: string, refused: boolean) =>
    body
      ? `<table class="hosts"><caption>${title}</caption><tr><th>Host</th><th>Requests</th><th>${refused ? "Why" : "Bytes"}</th></tr>${body}</table>`
      : `<p class="meta">${title}: none.</p>`;
  return `${table("Hosts reached", rows(network.reached, network.otherReached, false), false)}${table("Hosts refused", rows(network.refused, network.otherRefused, true), true)}`;
}
