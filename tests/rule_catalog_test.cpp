// The rule catalog: the stable IDs and names of RULES.md, the layout of rules/ and of the probe
// cases, and the errors parse() gives for bad entries.
#include "analyzer/catalog/rule_catalog.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/catalog/embedded_catalog.h"
#include "analyzer/catalog/rule_family.h"
#include "analyzer/engine/check.h"

namespace graphsafe {
namespace {

namespace fs = std::filesystem;

const fs::path kSourceDir = GRAPHSAFE_SOURCE_DIR;

// A contract with users: suppression comments, configs and baselines name these.
const std::vector<std::pair<std::string, std::string>> kStableRules = {
    {"GS101", "tensor-branch"},
    {"GS102", "frozen-branch"},
    {"GS103", "frozen-scalar"},
    {"GS104", "capture-aware-logic"},
    {"GS105", "frozen-shape"},
    {"GS106", "host-side-effect"},
    {"GS107", "state-changed-once"},
    {"GS108", "skipped-at-capture"},
    {"GS109", "capture-specialized-argument"},
    {"GS201", "rebound-static-input"},
    {"GS202", "freed-static-input"},
    {"GS203", "output-kept-without-clone"},
    {"GS204", "autocast-cache"},
    {"GS205", "shared-pool-order"},
    {"GS206", "graphed-callables-order"},
    {"GS207", "gradients-reset-between-replays"},
    {"GS208", "graph-shared-across-instances"},
    {"GS301", "non-capture-stream"},
    {"GS302", "unjoined-stream"},
    {"GS303", "hooks-after-graphing"},
    {"GS304", "extension-default-stream"},
    {"GS401", "host-sync"},
    {"GS402", "pageable-copy"},
    {"GS403", "no-warmup"},
    {"GS404", "lazy-capture-in-thread"},
    {"GS501", "host-buffer-race"},
    {"GS502", "concurrent-pool-replay"},
    {"GS601", "fragmented-graph"},
    {"GS602", "input-copies-outweigh-graph"},
    {"GS603", "deferred-gradient-hooks"},
    {"GS604", "too-many-streams"},
    {"GS605", "graph-per-value"},
};

const RuleCatalog& catalog() {
  return RuleCatalog::instance();
}

TEST(RuleCatalog, HasEveryRuleOfTheTableWithItsStableName) {
  for (const auto& [id, name] : kStableRules) {
    const RuleInfo* rule = catalog().find(id);
    ASSERT_NE(rule, nullptr) << id << " is missing from the catalog";
    EXPECT_EQ(rule->name, name) << id;
  }
  EXPECT_EQ(catalog().rules().size(), kStableRules.size())
      << "a rule was added: add it to RULES.md and to this table";
}

TEST(RuleCatalog, IsSortedByIdAndFindsByIdOrName) {
  const auto& rules = catalog().rules();
  EXPECT_TRUE(std::is_sorted(rules.begin(), rules.end(),
                             [](const RuleInfo& a, const RuleInfo& b) { return a.id < b.id; }));
  EXPECT_EQ(catalog().find("host-sync"), catalog().find("GS401"));
  EXPECT_EQ(catalog().find("GS999"), nullptr);
  EXPECT_EQ(catalog().find("GS40"), nullptr);
  EXPECT_EQ(catalog().find(""), nullptr);
}

TEST(RuleCatalog, SeverityAndTracedFollowTheRuleTable) {
  // Heuristics are warnings; the (T) rules of RULES.md also fire in torch.compile regions.
  const std::set<std::string> warnings = {"GS108", "GS403", "GS404", "GS601",
                                          "GS602", "GS603", "GS604", "GS605"};
  const std::set<std::string> traced = {"GS101", "GS201", "GS203", "GS401", "GS601"};
  for (const RuleInfo& rule : catalog().rules()) {
    EXPECT_EQ(rule.severity, warnings.count(rule.id) != 0 ? Severity::kWarning : Severity::kError)
        << rule.id;
    EXPECT_EQ(rule.applies_when_traced, traced.count(rule.id) != 0) << rule.id;
  }
}

TEST(RuleCatalog, LanguagesFollowTheRuleTable) {
  const auto languages = [](std::string_view id) { return catalog().find(id)->languages; };
  using Languages = std::vector<std::string>;
  EXPECT_EQ(languages("GS101"), (Languages{"python"}));
  EXPECT_EQ(languages("GS301"), (Languages{"python", "cuda"}));
  EXPECT_EQ(languages("GS304"), (Languages{"cuda"}));
  EXPECT_EQ(languages("GS401"), (Languages{"python", "cuda"}));
  EXPECT_EQ(languages("GS501"), (Languages{"python", "cuda"}));
  EXPECT_EQ(languages("GS601"), (Languages{"python"}));
  EXPECT_EQ(languages("GS602"), (Languages{"python", "cuda"}));
  EXPECT_EQ(languages("GS604"), (Languages{"python", "cuda"}));
}

TEST(RuleCatalog, EveryEntryLivesInItsFamilyFolder) {
  std::set<std::string> on_disk;
  for (const auto& entry : fs::recursive_directory_iterator(kSourceDir / "rules")) {
    if (entry.path().extension() == ".yaml") {
      on_disk.insert(fs::relative(entry.path(), kSourceDir).generic_string());
    }
  }
  std::set<std::string> expected;
  for (const RuleInfo& rule : catalog().rules()) expected.insert(catalogEntryPath(rule));
  EXPECT_EQ(on_disk, expected);
  EXPECT_EQ(embeddedCatalogFiles().size(), on_disk.size())
      << "the build embedded a different set of catalog files: re-run cmake";
}

TEST(RuleCatalog, EveryRuleHasAnExampleAndProbeCasesPerLanguage) {
  for (const RuleInfo& rule : catalog().rules()) {
    for (const std::string& language : rule.languages) {
      for (const auto* examples : {&rule.bad_examples, &rule.good_examples}) {
        EXPECT_TRUE(std::any_of(examples->begin(), examples->end(),
                                [&](const CodeExample& e) { return e.language == language; }))
            << rule.id << " has no " << language << " example";
      }
    }
    EXPECT_EQ(rule.bad, rule.bad_examples.front().code);
    EXPECT_EQ(rule.good, rule.good_examples.front().code);
  }
}

TEST(RuleCatalog, ProbePathsFollowTheCaseLayout) {
  // runtime-probe/cases/<python|cuda>/<ID>-<name>/{bug*,fix*}.{py,cu}
  const std::regex layout(
      R"((python|cuda)/(GS[0-9]{3}-[a-z0-9-]+)/(bug|fix)[A-Za-z0-9_-]*\.(py|cu))");
  for (const RuleInfo& rule : catalog().rules()) {
    ASSERT_FALSE(rule.probe_cases.empty()) << rule.id;
    for (const ProbeCase& probe : rule.probe_cases) {
      std::smatch match;
      ASSERT_TRUE(std::regex_match(probe.path, match, layout)) << rule.id << ": " << probe.path;
      EXPECT_EQ(match[1].str(), probe.language) << probe.path;
      EXPECT_EQ(match[2].str(), rule.id + "-" + rule.name) << probe.path;
      EXPECT_EQ(match[4].str(), probe.language == "python" ? "py" : "cu") << probe.path;
    }
    for (const std::string& language : rule.languages) {
      const std::string ext = language == "python" ? ".py" : ".cu";
      for (const std::string kind : {"bug", "fix"}) {
        const std::string path = language + "/" + rule.id + "-" + rule.name + "/" + kind + ext;
        EXPECT_TRUE(std::any_of(rule.probe_cases.begin(), rule.probe_cases.end(),
                                [&](const ProbeCase& probe) { return probe.path == path; }))
            << rule.id << " does not list " << path;
      }
    }
  }
}

TEST(RuleCatalog, ProbeCaseFoldersHoldExactlyTheListedCases) {
  // A rule's case folder, once it exists, must hold what the catalog lists and nothing more:
  // the catalog is the list that the probe and the static checks of the cases go by.
  const fs::path cases = kSourceDir / "runtime-probe" / "cases";
  for (const RuleInfo& rule : catalog().rules()) {
    std::set<std::string> folders;
    std::set<std::string> listed;
    for (const ProbeCase& probe : rule.probe_cases) {
      listed.insert(probe.path);
      folders.insert(fs::path(probe.path).parent_path().generic_string());
    }
    for (const std::string& folder : folders) {
      if (!fs::is_directory(cases / folder)) continue;
      for (const ProbeCase& probe : rule.probe_cases) {
        if (fs::path(probe.path).parent_path().generic_string() != folder) continue;
        EXPECT_TRUE(fs::is_regular_file(cases / probe.path))
            << rule.id << " lists a case that does not exist: " << probe.path;
      }
      for (const auto& entry : fs::directory_iterator(cases / folder)) {
        const std::string name = entry.path().filename().string();
        const std::string ext = entry.path().extension().string();
        const bool is_case =
            (name.starts_with("bug") || name.starts_with("fix")) && (ext == ".py" || ext == ".cu");
        if (!is_case) continue;
        EXPECT_TRUE(listed.count(folder + "/" + name) != 0)
            << rule.id << ": case " << folder << "/" << name << " is not listed under `probe:` in "
            << catalogEntryPath(rule);
      }
    }
  }
}

TEST(RuleCatalog, ImplementedMeansThisBuildHasTheCheck) {
  std::set<std::string> checks;
  for (const auto& check : makeAllChecks()) checks.emplace(check->id());
  for (const RuleInfo& rule : catalog().rules()) {
    EXPECT_EQ(rule.implemented, checks.count(rule.id) != 0) << rule.id;
  }
  for (const std::string& id : checks) {
    EXPECT_NE(catalog().find(id), nullptr) << "check " << id << " has no catalog entry";
  }
}

TEST(RuleCatalog, DocsUrlNamesTheRulePage) {
  EXPECT_EQ(catalog().find("GS401")->docsUrl(),
            "https://github.com/graphsafe/graphsafe/blob/main/docs/rules/GS401-host-sync.md");
}

TEST(RuleCatalog, OneLineTextsAreOneLine) {
  for (const RuleInfo& rule : catalog().rules()) {
    EXPECT_EQ(rule.summary.find('\n'), std::string::npos) << rule.id;
    EXPECT_EQ(rule.fix.find('\n'), std::string::npos) << rule.id;
    // `help:` lines read like a compiler's: lower case, no final period.
    EXPECT_TRUE(std::islower(static_cast<unsigned char>(rule.fix.front()))) << rule.id;
    EXPECT_NE(rule.fix.back(), '.') << rule.id;
  }
}

// ---- parse() errors --------------------------------------------------------------------------

// A valid entry, one key per line (line numbers below are 1-based).
std::vector<std::string> sampleLines(const std::string& id = "GS590",
                                     const std::string& name = "sample-rule") {
  return {
      "id: " + id,                 // 1
      "name: " + name,             // 2
      "family: async-replay",      // 3
      "severity: error",           // 4
      "languages: [python]",       // 5
      "traced: false",             // 6
      "summary: Flags a sample.",  // 7
      "rationale: Because.",       // 8
      "bad: x = 1",                // 9
      "good: x = 2",               // 10
      "fix: do the other thing",   // 11
      "detects: A sample.",        // 12
      "misses: Nothing.",          // 13
      "probe: [python/" + id + "-" + name + "/bug.py, python/" + id + "-" + name +
          "/fix.py]",             // 14
      "observed: Not measured.",  // 15
  };
}

std::string joinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

std::vector<std::pair<std::string, std::string>> oneFile(const std::vector<std::string>& lines) {
  return {{"sample_rule.yaml", joinLines(lines)}};
}

// The error must let a contributor find the problem: file, line and key.
void expectParseError(const std::vector<std::pair<std::string, std::string>>& files,
                      const std::string& where, const std::string& key) {
  try {
    RuleCatalog::parse(files);
    ADD_FAILURE() << "parse() accepted the catalog; expected an error at " << where;
  } catch (const std::runtime_error& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.rfind(where, 0), 0U) << message;
    EXPECT_NE(message.find(key), std::string::npos) << message;
  }
}

TEST(RuleCatalogParse, AcceptsAValidEntry) {
  const auto rules = RuleCatalog::parse(oneFile(sampleLines()));
  ASSERT_EQ(rules.size(), 1U);
  EXPECT_EQ(rules[0].id, "GS590");
  EXPECT_EQ(rules[0].family, "async-replay");
  EXPECT_EQ(rules[0].bad, "x = 1");
  ASSERT_EQ(rules[0].bad_examples.size(), 1U);
  EXPECT_EQ(rules[0].bad_examples[0].language, "python");
  ASSERT_EQ(rules[0].probe_cases.size(), 2U);
  EXPECT_EQ(rules[0].probe_cases[0].language, "python");
  EXPECT_FALSE(rules[0].implemented);
}

TEST(RuleCatalogParse, MissingKeyNamesFileLineAndKey) {
  auto lines = sampleLines();
  lines.erase(lines.begin() + 10);  // fix
  expectParseError(oneFile(lines), "sample_rule.yaml:1:", "fix");
}

TEST(RuleCatalogParse, DuplicateIdNamesFileLineAndKey) {
  const std::vector<std::pair<std::string, std::string>> files = {
      {"first.yaml", joinLines(sampleLines("GS590", "first-rule"))},
      {"second.yaml", joinLines(sampleLines("GS590", "second-rule"))},
  };
  expectParseError(files, "second.yaml:1:", "id");
  try {
    RuleCatalog::parse(files);
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("first.yaml"), std::string::npos) << error.what();
  }
}

TEST(RuleCatalogParse, DuplicateNameNamesFileLineAndKey) {
  const std::vector<std::pair<std::string, std::string>> files = {
      {"first.yaml", joinLines(sampleLines("GS590", "same-name"))},
      {"second.yaml", joinLines(sampleLines("GS591", "same-name"))},
  };
  expectParseError(files, "second.yaml:2:", "name");
}

TEST(RuleCatalogParse, BadSeverityNamesFileLineAndKey) {
  auto lines = sampleLines();
  lines[3] = "severity: fatal";
  expectParseError(oneFile(lines), "sample_rule.yaml:4:", "severity");
}

TEST(RuleCatalogParse, RejectsBadValues) {
  const auto withLine = [](std::size_t index, const std::string& line) {
    auto lines = sampleLines();
    lines[index] = line;
    return oneFile(lines);
  };
  expectParseError(withLine(0, "id: GS59"), "sample_rule.yaml:1:", "id");
  expectParseError(withLine(0, "id: XX590"), "sample_rule.yaml:1:", "id");
  expectParseError(withLine(1, "name: Sample_Rule"), "sample_rule.yaml:2:", "name");
  expectParseError(withLine(2, "family: frozen"), "sample_rule.yaml:3:", "family");
  // GS5xx rules belong to async-replay.
  expectParseError(withLine(2, "family: missing-nodes"), "sample_rule.yaml:3:", "family");
  expectParseError(withLine(4, "languages: [rust]"), "sample_rule.yaml:5:", "languages");
  expectParseError(withLine(4, "languages: []"), "sample_rule.yaml:5:", "languages");
  expectParseError(withLine(5, "traced: maybe"), "sample_rule.yaml:6:", "traced");
  expectParseError(withLine(6, "summary: ''"), "sample_rule.yaml:7:", "summary");
  expectParseError(withLine(8, "bad: {cuda: x}"), "sample_rule.yaml:9:", "bad");
  expectParseError(withLine(13, "probe: [python/GS590-sample-rule/bug.py]"),
                   "sample_rule.yaml:14:", "probe");
  expectParseError(
      withLine(13, "probe: [python/GS590-other/bug.py, python/GS590-sample-rule/fix.py]"),
      "sample_rule.yaml:14:", "probe");
  expectParseError(
      withLine(13, "probe: [cuda/GS590-sample-rule/bug.cu, python/GS590-sample-rule/fix.py]"),
      "sample_rule.yaml:14:", "probe");
  expectParseError(withLine(13,
                            "probe: [python/GS590-sample-rule/bug.cu, "
                            "python/GS590-sample-rule/fix.py]"),
                   "sample_rule.yaml:14:", "probe");
  expectParseError(withLine(13,
                            "probe: [python/GS590-sample-rule/case.py, "
                            "python/GS590-sample-rule/fix.py]"),
                   "sample_rule.yaml:14:", "probe");
}

TEST(RuleCatalogParse, RejectsUnknownAndRepeatedKeys) {
  auto lines = sampleLines();
  lines.push_back("sevrity: error");
  expectParseError(oneFile(lines), "sample_rule.yaml:16:", "sevrity");
  lines = sampleLines();
  lines.push_back("fix: again");
  expectParseError(oneFile(lines), "sample_rule.yaml:16:", "fix");
}

TEST(RuleCatalogParse, InvalidYamlNamesFileAndLine) {
  auto lines = sampleLines();
  lines[7] = "rationale: [unclosed";
  expectParseError(oneFile(lines), "sample_rule.yaml:", "invalid YAML");
  expectParseError({{"empty.yaml", ""}}, "empty.yaml:1:", "catalog entry");
}

TEST(RuleCatalogParse, ExamplesPerLanguageComeInLanguageOrder) {
  auto lines = sampleLines();
  lines[4] = "languages: [python, cuda]";
  lines[8] = "bad: {cuda: 'launch<<<1, 1>>>();', python: 'x.item()'}";
  lines[13] =
      "probe: [python/GS590-sample-rule/bug.py, python/GS590-sample-rule/fix.py, "
      "cuda/GS590-sample-rule/bug.cu, cuda/GS590-sample-rule/fix_stream.cu]";
  const auto rules = RuleCatalog::parse(oneFile(lines));
  ASSERT_EQ(rules[0].bad_examples.size(), 2U);
  EXPECT_EQ(rules[0].bad_examples[0].language, "python");
  EXPECT_EQ(rules[0].bad_examples[1].language, "cuda");
  EXPECT_EQ(rules[0].bad, "x.item()");
  EXPECT_EQ(rules[0].good_examples.size(), 1U);
  EXPECT_EQ(rules[0].probe_cases[3].language, "cuda");
}

TEST(RuleCatalogParse, SortsById) {
  const std::vector<std::pair<std::string, std::string>> files = {
      {"b.yaml", joinLines(sampleLines("GS592", "b-rule"))},
      {"a.yaml", joinLines(sampleLines("GS590", "a-rule"))},
  };
  const auto rules = RuleCatalog::parse(files);
  ASSERT_EQ(rules.size(), 2U);
  EXPECT_EQ(rules[0].id, "GS590");
  EXPECT_EQ(rules[1].id, "GS592");
}

}  // namespace
}  // namespace graphsafe
