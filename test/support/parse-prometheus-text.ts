/** One line of a Prometheus exposition: a metric name, its labels and its value. */
export interface PrometheusSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A parsed Prometheus text exposition (format 0.0.4). */
export interface PrometheusText {
  help: Map<string, string>;
  type: Map<string, string>;
  samples: PrometheusSample[];
  /** The samples named `name` whose labels include `labels`. */
  select(name: string, labels?: Record<string, string>): PrometheusSample[];
  /** The value of the one sample named `name` whose labels include `labels`; throws when there is none or several. */
  value(name: string, labels?: Record<string, string>): number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/gy;

/** Parses Prometheus' text format strictly: a line that is neither a comment nor a well-formed sample is an error. */
export function parsePrometheusText(text: string): PrometheusText {
  const help = new Map<string, string>();
  const type = new Map<string, string>();
  const samples: PrometheusSample[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const comment = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (comment) {
      (comment[1] === "HELP" ? help : type).set(comment[2]!, comment[3]!);
      continue;
    }
    const sample = SAMPLE.exec(line);
    if (!sample) throw new Error(`not a Prometheus sample line: ${line}`);
    samples.push({ name: sample[1]!, labels: parseLabels(sample[2] ?? "", line), value: Number(sample[3]) });
  }
  const select = (name: string, labels: Record<string, string> = {}) =>
    samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  return {
    help,
    type,
    samples,
    select,
    value: (name, labels) => {
      const found = select(name, labels);
      if (found.length !== 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels ?? {})}, expected one`);
      return found[0]!.value;
    },
  };
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let consumed = 0;
  LABEL.lastIndex = 0;
  for (let match = LABEL.exec(text); match; match = LABEL.exec(text)) {
    labels[match[1]!] = match[2]!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    consumed = LABEL.lastIndex;
  }
  if (consumed !== text.length) throw new Error(`labels not parsed in: ${line}`);
  return labels;
}
