#!/usr/bin/env bash
# The step of the `agui-reasoning check` GitHub Action (action.yml at the repository root): checks
# every recording named by AGUI_RECORDINGS (files or globs, space-separated) with
# `check <file> --format sarif $AGUI_ARGS`, merges the logs into one SARIF file at AGUI_SARIF for
# code scanning, prints a GitHub annotation line per recording, and exits 1 when any check failed
# (2 when a recording could not be read). AGUI_COMMAND is the command to run (default: the npm
# package at AGUI_VERSION).
set -uo pipefail
command="${AGUI_COMMAND:-npx --yes agui-reasoning@${AGUI_VERSION:-latest}}"
sarif="${AGUI_SARIF:-agui-reasoning.sarif}"
work="$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/agui-reasoning.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# Split the patterns first (unexpanded), then expand each: one that matches nothing is an error.
read -ra patterns <<< "${AGUI_RECORDINGS:?name the recordings to check}"
shopt -s nullglob globstar
files=()
for pattern in "${patterns[@]}"; do
  # shellcheck disable=SC2206 # the pattern is expanded on purpose
  matched=($pattern)
  if [ ${#matched[@]} -eq 0 ]; then echo "::error::agui-reasoning: no recording matches ${pattern}"; exit 2; fi
  files+=("${matched[@]}")
done

status=0
i=0
for file in "${files[@]}"; do
  i=$((i + 1))
  # shellcheck disable=SC2086 # AGUI_ARGS holds several options on purpose
  $command check "$file" --no-progress --format sarif ${AGUI_ARGS:-} > "$work/$i.sarif"
  code=$?
  if [ "$code" -eq 0 ]; then echo "agui-reasoning check: $file: ✓ valid"
  elif [ "$code" -eq 1 ]; then echo "::error file=$file::agui-reasoning check failed (see the code scanning results)"
  else echo "::error file=$file::agui-reasoning check could not read it (exit $code)"; rm -f "$work/$i.sarif"; fi
  [ "$code" -gt "$status" ] && status=$code
done

# One SARIF log of every recording's run (code scanning takes several runs of one tool in one file).
node -e '
  const fs = require("fs");
  const [out, ...logs] = process.argv.slice(1);
  const parsed = logs.filter((f) => fs.existsSync(f)).map((f) => JSON.parse(fs.readFileSync(f, "utf8")));
  const merged = { $schema: "https://json.schemastore.org/sarif-2.1.0.json", version: "2.1.0", runs: parsed.flatMap((l) => l.runs) };
  fs.writeFileSync(out, JSON.stringify(merged, null, 2) + "\n");
' "$sarif" $(for n in $(seq 1 "$i"); do echo "$work/$n.sarif"; done)
echo "agui-reasoning check: ${#files[@]} recording(s), SARIF in $sarif"
exit "$status"
