import type { Stage } from "../core/types";

/**
 * `stage`, starting from a state read back from JSON instead of a fresh one. `restore` runs on
 * every `init`, so each subscription gets its own copy (private states are mutated in place).
 */
export function resumedStage<S, I, O>(stage: Stage<S, I, O>, restore: () => S): Stage<S, I, O> {
  // Bound: a stage written as a class keeps its `this` in the resumed copy.
  const finish = stage.finish?.bind(stage);
  return {
    name: stage.name,
    init: restore,
    step: stage.step.bind(stage),
    ...(finish && { finish }),
  };
}
