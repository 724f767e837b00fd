import type { Stage } from "../core/types";

/**
 * `stage`, starting from a state read back from JSON instead of a fresh one. `restore` runs on
 * every `init`, so each subscription gets its own copy (private states are mutated in place).
 */
export function resumedStage<S, I, O>(stage: Stage<S, I, O>, restore: () => S): Stage<S, I, O> {
  const finish = stage.finish;
  return {
    name: stage.name,
    init: restore,
    step: stage.step,
    ...(finish && { finish }),
  };
}
