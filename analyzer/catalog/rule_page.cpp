#include "analyzer/catalog/rule_page.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string_view>

#include "analyzer/catalog/probe_results.h"
#include "analyzer/catalog/rule_family.h"

namespace graphsafe {

namespace {

constexpr std::size_t kTerminalWidth = 80;
constexpr std::string_view kIndent = "  ";
constexpr std::string_view kCodeIndent = "    ";
constexpr std::size_t kFieldWidth = 16;  // "torch.compile: " and a space
constexpr std::string_view kUpdateNote =
    "edit the YAML, then run the tests with GRAPHSAFE_UPDATE_DOCS=1";

// Catalog prose is folded YAML: one line per paragraph.
std::vector<std::string_view> paragraphs(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) out.push_back(line);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return out;
}

// Greedy word wrap; a word longer than the line stays whole.
std::string wrapped(std::string_view paragraph, std::string_view indent, std::size_t width) {
  std::string out;
  std::size_t column = 0;
  while (!paragraph.empty()) {
    const std::size_t start = paragraph.find_first_not_of(' ');
    if (start == std::string_view::npos) break;
    paragraph.remove_prefix(start);
    const std::size_t end = std::min(paragraph.find(' '), paragraph.size());
    const std::string_view word = paragraph.substr(0, end);
    paragraph.remove_prefix(end);
    if (column > 0 && column + 1 + word.size() > width) {
      out += '\n';
      column = 0;
    }
    if (column == 0) {
      out += indent;
      column = indent.size();
    } else {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
  }
  return out + '\n';
}

std::string_view languageTitle(std::string_view language) {
  return language == "python" ? "Python" : "CUDA C++";
}

std::string_view fenceLanguage(std::string_view language) {
  return language == "python" ? "python" : "cuda";
}

std::string languagesText(const RuleInfo& rule) {
  std::string out;
  for (const std::string& language : rule.languages) {
    if (!out.empty()) out += ", ";
    out += languageTitle(language);
  }
  return out;
}

bool hasLanguage(const RuleInfo& rule, std::string_view language) {
  return std::find(rule.languages.begin(), rule.languages.end(), language) != rule.languages.end();
}

// The one-line fix is written as a compiler's `help:` line; on a page it is a sentence.
std::string sentence(std::string_view text) {
  std::string out(text);
  if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  if (!out.empty() && out.back() != '.' && out.back() != '!' && out.back() != '?') out += '.';
  return out;
}

std::string compileRegionsText(const RuleInfo& rule) {
  if (rule.applies_when_traced) return "checked too";
  if (hasLanguage(rule, "python")) {
    return "not checked (Dynamo traces them)";
  }
  return "not applicable";
}

std::string_view familyTitle(const RuleInfo& rule) {
  const RuleFamily* family = findRuleFamily(rule.family);
  return family ? family->title : std::string_view(rule.family);
}

// Suppression forms, as the engine reads them (analyzer/engine/suppressions.h).
struct SuppressionForm {
  std::string where;
  std::string comment;
};

std::vector<SuppressionForm> suppressionForms(const RuleInfo& rule, std::string_view language) {
  const std::string& id = rule.id;
  if (language == "python") {
    return {{"on the reported line", "# graphsafe: ignore[" + id + "]"},
            {"on the reported line", "# noqa: " + id},
            {"anywhere in the file, for the whole file", "# graphsafe: ignore-file[" + id + "]"}};
  }
  return {{"on the reported line", "// graphsafe: ignore[" + id + "]"},
          {"on the reported line", "// NOLINT(" + id + ")"},
          {"on the line before it", "// NOLINTNEXTLINE(" + id + ")"}};
}

std::string familyPrefix(const RuleInfo& rule) {
  return rule.id.substr(0, 3);
}

std::string escapeTableCell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

// ---- terminal ----------------------------------------------------------------------------------

void addHeading(std::string& out, std::string_view title) {
  out += '\n';
  out += title;
  out += '\n';
}

void addProse(std::string& out, std::string_view text) {
  bool first = true;
  for (std::string_view paragraph : paragraphs(text)) {
    if (!first) out += '\n';
    out += wrapped(paragraph, kIndent, kTerminalWidth);
    first = false;
  }
}

void addCode(std::string& out, std::string_view code) {
  std::string_view rest = code;
  while (true) {
    const std::size_t end = rest.find('\n');
    const std::string_view line = rest.substr(0, end);
    if (!line.empty()) out += kCodeIndent;
    out += line;
    out += '\n';
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
}

void addExamples(std::string& out, const std::vector<CodeExample>& examples) {
  bool first = true;
  for (const CodeExample& example : examples) {
    if (!first) out += '\n';
    if (examples.size() > 1) {
      out += kIndent;
      out += languageTitle(example.language);
      out += ":\n";
    }
    addCode(out, example.code);
    first = false;
  }
}

// ---- markdown ----------------------------------------------------------------------------------

void addMarkdownProse(std::string& out, std::string_view text) {
  for (std::string_view paragraph : paragraphs(text)) {
    out += '\n';
    out += paragraph;
    out += '\n';
  }
}

void addMarkdownExamples(std::string& out, const std::vector<CodeExample>& examples) {
  for (const CodeExample& example : examples) {
    if (examples.size() > 1) {
      out += '\n';
      out += languageTitle(example.language);
      out += ":\n";
    }
    out += "\n```";
    out += fenceLanguage(example.language);
    out += '\n';
    out += example.code;
    out += "\n```\n";
  }
}

// A timing case: "slower: 2.41x the time per iteration of fix.py (2.30x to 2.52x over 3 runs;
// 0.412 ms against 0.171 ms)", or a fix's "correct: 0.171 ms per iteration (median of 3 runs)".
std::string timingMeasurement(const ProbeRun& run, const ProbeCase& probe,
                              const ProbeMeasurement& m) {
  const ProbeTiming& t = m.timing;
  if (t.fix.empty()) {
    return fmt::format("{}: {:.4g} ms per iteration (median of {} runs)", m.verdict, t.median_ms,
                       t.runs);
  }
  const std::string folder = probe.path.substr(0, probe.path.rfind('/') + 1);
  const std::string fix = t.fix.starts_with(folder) ? t.fix.substr(folder.size()) : t.fix;
  std::string out = fmt::format(
      "{}: {:.2f}x the time per iteration of {} ({:.2f}x to {:.2f}x "
      "over {} runs",
      m.verdict, t.ratio_median, fix, t.ratio_min, t.ratio_max, t.runs);
  auto measured_fix = run.cases.find(t.fix);
  if (measured_fix != run.cases.end() && measured_fix->second.timing.runs > 0) {
    out += fmt::format("; {:.4g} ms against {:.4g} ms", t.median_ms,
                       measured_fix->second.timing.median_ms);
  }
  return out + ")";
}

}  // namespace

std::string measurementText(const ProbeRun& run, const ProbeCase& probe) {
  auto it = run.cases.find(probe.path);
  if (it == run.cases.end()) return "not in the latest run";
  const ProbeMeasurement& m = it->second;
  if (m.timing.runs > 0 && m.capture_error.empty() &&
      (m.verdict == "slower" || m.verdict == "not-slower" || m.verdict == "correct")) {
    return timingMeasurement(run, probe, m);
  }
  std::string out = m.verdict;
  if (!m.capture_error.empty()) return out + ": the capture failed with " + m.capture_error;
  if (m.observed.empty()) return out;
  out += ": observed " + m.observed;
  if (m.verdict != "correct" && !m.expected.empty()) out += ", correct is " + m.expected;
  return out;
}

namespace {

std::string measurementOf(const ProbeCase& probe) {
  return measurementText(probeRun(), probe);
}

// "Last run on NVIDIA H200, ... (runtime-probe/results/2026-11-29-nvidia-h200.md)".
std::string probeRunHeading() {
  const ProbeRun& run = probeRun();
  if (run.empty()) return "No runtime-probe results are embedded in this build.";
  std::string report = run.file.substr(0, run.file.rfind('.')) + ".md";
  return "Latest run on " + run.environment + " (runtime-probe/results/" + report + "):";
}

}  // namespace

std::string ruleDocsPath(const RuleInfo& rule) {
  return "docs/rules/" + rule.id + "-" + rule.name + ".md";
}

std::string renderRulePage(const RuleInfo& rule) {
  std::string out = rule.id + " " + rule.name + "\n";
  const auto field = [&out](std::string_view key, std::string_view value) {
    out += kIndent;
    out += key;
    out += std::string(kFieldWidth - key.size(), ' ');
    out += value;
    out += '\n';
  };
  std::string family(familyTitle(rule));
  std::transform(family.begin(), family.end(), family.begin(), [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  });
  field("severity:", severityName(rule.severity));
  field("family:", family);
  field("languages:", languagesText(rule));
  if (hasLanguage(rule, "python")) field("torch.compile:", compileRegionsText(rule));
  field("docs:", rule.docsUrl());
  if (!rule.implemented) {
    out += '\n';
    out += wrapped(
        "Not implemented in this version: the catalog documents this rule, but this build has no "
        "check for it.",
        kIndent, kTerminalWidth);
  }

  addHeading(out, "What it does");
  addProse(out, rule.summary);
  addHeading(out, "Why is this bad?");
  addProse(out, rule.rationale);
  addHeading(out, "Example");
  addExamples(out, rule.bad_examples);
  addHeading(out, "Use instead");
  addExamples(out, rule.good_examples);
  addHeading(out, "Fix");
  addProse(out, sentence(rule.fix));
  addHeading(out, "What graphsafe detects");
  addProse(out, rule.detects);
  addHeading(out, "Known misses");
  addProse(out, rule.misses);

  addHeading(out, "Measured on hardware");
  addProse(out, rule.observed);
  out += '\n';
  out += wrapped("Runtime-probe cases (runtime-probe/cases/). " + probeRunHeading(), kIndent,
                 kTerminalWidth);
  for (const ProbeCase& probe : rule.probe_cases) {
    out += kCodeIndent;
    out += probe.path;
    out += '\n';
    out += wrapped(measurementOf(probe), std::string(kCodeIndent) + "  ", kTerminalWidth);
  }

  addHeading(out, "Suppress");
  for (const std::string& language : rule.languages) {
    const std::vector<SuppressionForm> forms = suppressionForms(rule, language);
    std::size_t width = 0;
    for (const SuppressionForm& form : forms) width = std::max(width, form.comment.size());
    out += kIndent;
    out += languageTitle(language);
    out += ":\n";
    for (const SuppressionForm& form : forms) {
      out += kCodeIndent;
      out += form.comment;
      out += std::string(width - form.comment.size() + 2, ' ');
      out += form.where + "\n";
    }
    out += '\n';
  }
  out += wrapped("For a whole run: graphsafe check --ignore " + rule.id + " (--ignore " +
                     familyPrefix(rule) + " leaves out the whole family).",
                 kIndent, kTerminalWidth);
  return out;
}

std::string renderRuleMarkdown(const RuleInfo& rule) {
  std::string out = "<!-- Generated from " + catalogEntryPath(rule) + ": " +
                    std::string(kUpdateNote) + ". -->\n\n";
  out += "# " + rule.id + " " + rule.name + "\n";
  if (!rule.implemented) {
    out +=
        "\n> **Not implemented in this version.** The catalog documents this rule, but this "
        "build has no check for it yet.\n";
  }
  out += "\n| Family | Severity | Languages | `torch.compile` regions |\n|---|---|---|---|\n";
  out += "| [" + std::string(familyTitle(rule)) + "](README.md#" + rule.family + ") | " +
         severityName(rule.severity) + " | " + languagesText(rule) + " | " +
         compileRegionsText(rule) + " |\n";

  out += "\n## What it does\n";
  addMarkdownProse(out, rule.summary);
  out += "\n## Why is this bad?\n";
  addMarkdownProse(out, rule.rationale);
  out += "\n## Example\n";
  addMarkdownExamples(out, rule.bad_examples);
  out += "\n## Use instead\n";
  addMarkdownExamples(out, rule.good_examples);
  out += "\n## Fix\n";
  addMarkdownProse(out, sentence(rule.fix));
  out += "\n## What graphsafe detects\n";
  addMarkdownProse(out, rule.detects);
  out += "\n## Known misses\n";
  addMarkdownProse(out, rule.misses);

  out += "\n## Measured on hardware\n";
  addMarkdownProse(out, rule.observed);
  out += "\nRuntime-probe cases, each a standalone program. " + probeRunHeading() + "\n\n";
  for (const ProbeCase& probe : rule.probe_cases) {
    out += "- [`" + probe.path + "`](../../runtime-probe/cases/" + probe.path + "): " +
           measurementOf(probe) + "\n";
  }

  out += "\n## Suppress\n";
  for (const std::string& language : rule.languages) {
    out += "\n" + std::string(languageTitle(language)) + ":\n\n";
    for (const SuppressionForm& form : suppressionForms(rule, language)) {
      out += "- `" + form.comment + "` " + form.where + "\n";
    }
  }
  out += "\nFor a whole run: `graphsafe check --ignore " + rule.id + "` (`--ignore " +
         familyPrefix(rule) + "` leaves out the whole family).\n";
  return out;
}

std::string renderRuleIndexMarkdown(const std::vector<RuleInfo>& rules) {
  std::string out =
      "<!-- Generated from rules/**/*.yaml: " + std::string(kUpdateNote) + ". -->\n\n# Rules\n\n";
  out +=
      "Every rule has a stable ID: it never changes meaning and is never reused, so it is safe "
      "in suppression comments, configuration and baselines. `graphsafe rules` lists the rules "
      "and `graphsafe explain GS401` prints a page in the terminal.\n\n"
      "Severity is `error` for silent wrong results and capture failures, `warning` for "
      "heuristics. The `torch.compile` column says whether a rule also fires in regions that "
      "Dynamo traces instead of freezing.\n";
  for (const RuleFamily& family : ruleFamilies()) {
    out += "\n## " + std::string(family.title) + "\n\n" + sentence(family.tagline) + "\n\n";
    out += "| ID | Name | Severity | Languages | `torch.compile` | Check | What it flags |\n";
    out += "|---|---|---|---|---|---|---|\n";
    for (const RuleInfo& rule : rules) {
      if (rule.family != family.name) continue;
      out += "| [" + rule.id + "](" + rule.id + "-" + rule.name + ".md) | " + rule.name + " | " +
             severityName(rule.severity) + " | " + languagesText(rule) + " | " +
             (rule.applies_when_traced ? "yes" : "no") + " | " +
             (rule.implemented ? "yes" : "not yet") + " | " + escapeTableCell(rule.summary) +
             " |\n";
    }
  }
  out +=
      "\n## Updating these pages\n\n"
      "The pages are generated from the catalog entries in `rules/<family>/<name>.yaml` by "
      "`renderRuleMarkdown` (`analyzer/catalog/rule_page.cpp`), and `tests/rule_docs_test.cpp` "
      "fails when a page differs from what the catalog says. To change a page, edit the YAML, "
      "then run the tests with `GRAPHSAFE_UPDATE_DOCS=1`:\n\n"
      "```sh\n"
      "GRAPHSAFE_UPDATE_DOCS=1 build/tests/graphsafe_tests --gtest_filter='RuleDocs.*'\n"
      "bash scripts/dev.sh docs   # the same, after a build\n"
      "```\n\n"
      "A page also changes when a rule gains its check, since the page says whether this "
      "version implements the rule.\n";
  return out;
}

}  // namespace graphsafe
