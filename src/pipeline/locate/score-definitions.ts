import type { NamedSymbol } from "./build-query.js";
import type { Definition } from "../../edit/syntax/parse-definitions.js";

/** How much a file defining a name the issue uses counts, by what it defines. */
export interface DefinitionWeights {
  /** The file defines the method the issue names together with its class (`RST.__init__`). */
  qualified: number;
  /** The file defines the class (or struct, interface, type) the issue names. */
  class: number;
  /** The file defines a function or method of that name. */
  function: number;
  /** The file assigns a top-level variable or constant of that name. */
  name: number;
}

/** The weights the benchmarks support: a class's definition above a function's, a method named with its class above both. */
export const DEFINITION_WEIGHTS: DefinitionWeights = { qualified: 3, class: 2, function: 1, name: 0.5 };

/** Whether a definition is the method the symbol names with its class. */
function isQualifiedMatch(definition: Definition, symbol: NamedSymbol): boolean {
  return symbol.owner !== undefined && definition.kind === "method" && definition.parent === symbol.owner && definition.name === symbol.name;
}

/** How well one definition answers one symbol by name alone: the weight of its kind, or 0. */
function nameWeight(definition: Definition, symbol: NamedSymbol, weights: DefinitionWeights): number {
  if (definition.name !== symbol.name) return 0;
  return definition.kind === "method" ? weights.function : weights[definition.kind];
}

/**
 * How strongly a file's definitions answer the names an issue uses: for each symbol, the best weight of
 * the file's definitions of it, times the symbol's strength, divided by the number of files that
 * define that name (`__init__` or `update`, defined in dozens of files, says little about any one).
 */
export function scoreDefinitions(
  definitions: Definition[],
  symbols: NamedSymbol[],
  definers: (name: string) => number,
  weights: DefinitionWeights = DEFINITION_WEIGHTS,
): number {
  let score = 0;
  for (const symbol of symbols) {
    // A method named with its class is as rare as the class; alone, as rare as its own name.
    if (definitions.some((definition) => isQualifiedMatch(definition, symbol))) {
      score += (weights.qualified * symbol.strength) / Math.max(1, definers(symbol.owner!));
      continue;
    }
    let best = 0;
    for (const definition of definitions) best = Math.max(best, nameWeight(definition, symbol, weights));
    score += (best * symbol.strength) / Math.max(1, definers(symbol.name));
  }
  return score;
}
