// The text outputs (text, concise, notices) over arbitrary source text: the input is a file's
// bytes, and findings, notes and notices are cut out of it (their ranges and messages), as the
// rules quote the analyzed code. Checks what a terminal and a CI log rely on:
// - no control character but newline and tab, no DEL, no C1 control, and valid UTF-8 (an
//   escape sequence in the code is printed, never sent);
// - a bounded size per finding, whatever the line length (findings times line length would
//   print gigabytes for a minified file).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

#include "analyzer/engine/engine.h"
#include "analyzer/output/output_format.h"
#include "analyzer/source/utf8.h"

namespace {

using namespace graphsafe;

// A cheap deterministic stream of numbers from the input (no state outside the call).
struct Numbers {
  std::uint64_t state;
  std::uint32_t next(std::uint32_t bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return bound == 0 ? 0 : static_cast<std::uint32_t>((state >> 33) % bound);
  }
};

bool printable(std::string_view text) {
  if (firstInvalidUtf8(text) != std::string_view::npos) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) return false;
    if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) < 0xa0) {
      return false;  // U+0080 to U+009F
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  Numbers numbers{size * 0x9e3779b97f4a7c15ULL + static_cast<unsigned char>(input[0])};
  const std::size_t findings = static_cast<unsigned char>(input[0]) % 48;
  auto file = std::make_shared<const SourceFile>(
      std::string(input.substr(1, std::min<std::size_t>(input.size() - 1, 12))) + ".py",
      std::string(input.substr(1)));
  const auto length = static_cast<std::uint32_t>(file->text().size());
  auto slice = [&] {
    const std::uint32_t begin = numbers.next(length + 1);
    const std::uint32_t end = begin + numbers.next(length - begin + 1);
    return file->rangeOf(begin, end);
  };
  auto quote = [&] {
    SourceRange range = slice();
    return file->text().substr(range.begin, range.end - range.begin);
  };
  RunResult result;
  for (std::size_t i = 0; i < findings; ++i) {
    Diagnostic d;
    d.rule_id = "GS401";
    d.rule_name = "host-sync";
    d.severity = i % 2 == 0 ? Severity::kError : Severity::kWarning;
    d.file = file;
    d.range = slice();
    d.message = "`" + quote() + "` waits";
    d.help = quote();
    d.related.push_back({file, slice(), "reached through this call: " + quote()});
    result.diagnostics.push_back(std::move(d));
  }
  result.notices.push_back({file->path(), static_cast<std::int32_t>(numbers.next(4)) - 1,
                            "unknown rule '" + quote() + "' in suppression comment"});
  result.files_analyzed = 1;

  for (OutputFormat format : {OutputFormat::kText, OutputFormat::kConcise}) {
    std::ostringstream out;
    std::ostringstream status;
    writeResult(format, result, out, status, {});
    const std::string written = out.str() + status.str();
    if (!printable(written)) __builtin_trap();
    // Per finding: a location (the name, escaped and quoted), a message, a note and a help line
    // of at most 2 KB each (four bytes an escaped byte), and a window of the line.
    const std::size_t bound = (findings + 1) * (4 * 4 * (2'000 + 64 + 4 * 12) + 4 * 2 * 240);
    if (written.size() > bound) __builtin_trap();
  }
  return 0;
}
