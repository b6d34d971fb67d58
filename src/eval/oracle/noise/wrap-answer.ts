import { serializeAnswer, type NoiseKind } from "./noise-kind.js";
import { pick } from "./seeded-random.js";

const OPENINGS = ["Here is my answer.", "Sure! Based on the task, this is what I found:", "After reading the code carefully:"];
const CLOSINGS = ["Let me know if anything is unclear.", "I hope this helps.", ""];

/** The JSON in a ``` fence (with a language tag), as chat models write it; a text answer fenced unless it holds a fence. */
export const fenced: NoiseKind = {
  name: "fenced",
  fits: (answer) => !serializeAnswer(answer.value).includes("```"),
  apply: (answer) => {
    const text = serializeAnswer(answer.value);
    const language = typeof answer.value === "string" ? "" : "json";
    return { content: `\`\`\`${language}\n${text}\n\`\`\``, finishReason: "stop" };
  },
};

/** The answer inside prose: a sentence before it, and for JSON one after it (a text answer allows prose before only). */
export const inProse: NoiseKind = {
  name: "in-prose",
  fits: () => true,
  apply: (answer, random) => {
    const text = serializeAnswer(answer.value);
    const after = typeof answer.value === "string" ? "" : pick(random, CLOSINGS);
    return { content: `${pick(random, OPENINGS)}\n\n${text}${after ? `\n\n${after}` : ""}`, finishReason: "stop" };
  },
};

/** A reasoning model's `<think>` block before the answer; it mentions braces and fences, as thinking about code does. */
export const thinkBlock: NoiseKind = {
  name: "think-block",
  fits: () => true,
  apply: (answer) => ({
    content: `<think>\nThe task asks for {"a": "format"}; I should check the lines first, maybe with a \`\`\`snippet\`\`\`.\n</think>\n\n${serializeAnswer(answer.value)}`,
    finishReason: "stop",
  }),
};

/** The answer cut off at the token limit: its first 30-90 % only, and finish_reason "length". */
export const cutOff: NoiseKind = {
  name: "cut-off",
  fits: (answer) => serializeAnswer(answer.value).length >= 2,
  apply: (answer, random) => {
    const text = serializeAnswer(answer.value);
    const at = Math.max(1, Math.min(text.length - 1, Math.floor(text.length * (0.3 + 0.6 * random()))));
    return { content: text.slice(0, at), finishReason: "length" };
  },
};
