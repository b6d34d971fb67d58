// The scripted model of the offline demo: canned answers for every prompt of a run on examples/shop.
// Nothing here is an LLM. The answers are computed from the request (the numbered view, the old
// lines, the diff under review) only so that they stay right if the example's files move by a line.
import type { AnswerFunction, ScriptedModel, ScriptedRequest } from "../test/support/scripted-model.js";
import { pathIn, userText } from "./read-request.js";
import { custodianAnswers } from "./script-custodian.js";
import { editBlockReply } from "../test/support/edit-block-answer.js";
import { scriptReply } from "../test/support/script-answer.js";

/** The model name the demo runs under, so that the report's usage table says it was scripted. */
export const SCRIPTED_MODEL_NAME = "scripted-demo (no LLM)";

const TASKS: Record<string, string> = {
  "src/cart.js":
    "`cartTotal` adds `item.price` once per line item and ignores `item.quantity`. Multiply each price by its quantity, and count an item that has no `quantity` field (carts saved before quantities existed) once.",
  "src/format-price.js":
    "`formatPrice` prints the dollar amount with as few decimals as JavaScript gives (`$7.5`). Always show exactly two decimals (`$7.50`, `$3.00`) and keep the sign handling as it is.",
};

const DEVELOPERS: Record<string, { name: string; role: string }> = {
  "src/cart.js": {
    name: "Cart Arithmetic Specialist",
    role: "You are a JavaScript developer who owns the cart arithmetic. You make small, exact changes and keep old saved carts working.",
  },
  "src/format-price.js": {
    name: "Currency Formatting Expert",
    role: "You are a JavaScript developer who knows money formatting. You change only how amounts are printed, never how they are computed.",
  },
};

/** Registers an answer for every prompt a demo run asks; `override` replaces the answers of some prompts (tests use it). */
export function scriptShopDemo(model: ScriptedModel, override: Record<string, AnswerFunction> = {}): ScriptedModel {
  for (const [prompt, answer] of Object.entries({ ...answers, ...override })) model.script(prompt, answer);
  return model;
}

/** The Manager's choice of the way on the shop's issue: dynamic, with the Reproducer it designs. */
export const SHOP_WAY = {
  reason: "The issue shows a wrong total on the checkout page; a short script that prices 3 pens at $2.50 shows it.",
  way: "dynamic",
  reproducer: { name: "Checkout Reproducer", role: "You know the shop's public functions and show a bug with the smallest script that calls them." },
};

/** The Manager's task for one file of the shop: what the issue needs changed there, or why nothing. */
function defineTask(r: ScriptedRequest): { description: string; needs_change: boolean } {
  const path = pathIn(r);
  const task = TASKS[path];
  return task
    ? { description: task, needs_change: true }
    : { description: `${path} only re-exports or tests the functions; it needs no change.`, needs_change: false };
}

const answers: Record<string, AnswerFunction> = {
  ...custodianAnswers((path) => /^src\/(cart|format-price|index)\.js$/.test(path)),
  // The Manager chooses the way with the first file's task.
  "manager-define-task-and-way": (r) => ({ ...defineTask(r), way: SHOP_WAY }),
  "developer-write-reproduction": () =>
    scriptReply({
      path: "reproduce-checkout.mjs",
      command: "node reproduce-checkout.mjs",
      content: [
        'import { cartTotal, formatPrice } from "./src/index.js";',
        "",
        'const shown = formatPrice(cartTotal([{ sku: "pen", price: 250, quantity: 3 }, { sku: "old", price: 100 }]));',
        "console.log(`3 pens at $2.50 and an old item at $1.00: ${shown}`);",
        'if (shown !== "$8.50") {',
        "  console.error(`expected $8.50, got ${shown}`);",
        "  process.exit(1);",
        "}",
        "",
      ].join("\n"),
      expected: "The total shows $3.5 instead of $8.50: quantities ignored, trailing zero lost.",
    }),

  "developer-check-reproduction": () => ({ reproduced: true, reason: "It prints $3.5 where the issue expects the quantities counted and two decimals." }),
  "manager-define-task": (r) => defineTask(r),
  "manager-design-developer": (r) => DEVELOPERS[pathIn(r)],
  "manager-open-meeting": () => ({
    speech:
      "Welcome. The issue has two causes: the cart total ignores quantities and prices drop their trailing zero. Each of you owns one of them. Is your task right, and do you need the other's change first?",
  }),
  "developer-speak": (r) =>
    pathIn(r) === "src/cart.js"
      ? {
          speech:
            "My task is right: I multiply by the quantity and treat a missing quantity as 1. I do not need the formatting change; we can work at the same time.",
        }
      : { speech: "Agreed. I switch formatPrice to two decimals. My change is independent of the cart arithmetic, so we can run in parallel." },
  "manager-close-meeting": () => ({
    speech:
      "Summary: the Cart Arithmetic Specialist fixes cartTotal, the Currency Formatting Expert fixes formatPrice. The two changes are independent and run concurrently.",
  }),
  "developer-refine-role": (r) => ({ role: `${DEVELOPERS[pathIn(r)]!.role} The team agreed that your change is independent of your teammate's.` }),
  "manager-make-plan": () => ({
    steps: [["src/cart.js", "src/format-price.js"]],
    rationale: "The two files do not depend on each other, so both tasks run at the same time.",
  }),
  "developer-design-qa": (r) => ({
    role:
      pathIn(r) === "src/cart.js"
        ? "You are a QA engineer for cart arithmetic. You check quantities, empty carts and items saved without a quantity."
        : "You are a QA engineer for money formatting. You check two decimals, negative amounts and whole dollars.",
  }),
  "developer-locate-lines": (r) => {
    const path = pathIn(r);
    const line = lineNumberOf(r, path === "src/cart.js" ? "total += item.price" : "return `${sign}$${dollars}`");
    return { path, ranges: [{ start: line, end: line, why: "this line computes the wrong value" }] };
  },
  "developer-write-code": (r) => {
    const old = oldLines(r);
    if (pathIn(r) === "src/format-price.js") return editBlockReply(old, old.replace("${dollars}", "${dollars.toFixed(2)}"));
    // The first attempt forgets carts without quantities; the QA Engineer catches it.
    const revised = /did not approve/.test(userText(r));
    return editBlockReply(old, old.replace("item.price;", revised ? "item.price * (item.quantity ?? 1);" : "item.price * item.quantity;"));
  },
  "qa-review": (r) => {
    if (pathIn(r) === "src/cart.js" && !userText(r).includes("item.quantity ?? 1")) {
      return {
        approved: false,
        comment:
          "Quantities are counted now, but an item saved without a `quantity` makes the total NaN. The issue says such items must count once: use `item.quantity ?? 1`.",
      };
    }
    return { approved: true, comment: "The change does the task and keeps the rest of the behaviour." };
  },
};

function lineNumberOf(request: ScriptedRequest, needle: string): number {
  for (const line of userText(request).split("\n")) {
    const numbered = /^\s*(\d+) \| (.*)$/.exec(line);
    if (numbered && numbered[2]!.includes(needle)) return Number(numbered[1]);
  }
  throw new Error(`scripted demo: no numbered line holds "${needle}"`);
}

function oldLines(request: ScriptedRequest): string {
  const match = /which you replace\n<data-[0-9a-f]{8}>\n([\s\S]*?)\n<\/data-[0-9a-f]{8}>/.exec(userText(request));
  if (!match) throw new Error("scripted demo: the write-code prompt shows no old lines");
  return match[1]!;
}
