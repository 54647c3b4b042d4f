#include "mad/text.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <charconv>
#include <fstream>
#include <sstream>

namespace mad {

Result<std::string> read_text_file(const std::string& path, std::string_view what, size_t max_bytes) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return fail(Errc::io, fmt::format("{}: cannot read {}", path, what));
  if (S_ISDIR(st.st_mode)) return fail(Errc::invalid, fmt::format("{}: is a directory, not {}", path, what));
  if (!S_ISREG(st.st_mode)) return fail(Errc::invalid, fmt::format("{}: is not a regular file ({})", path, what));
  if (static_cast<size_t>(st.st_size) > max_bytes)
    return fail(Errc::invalid, fmt::format("{}: {} bytes, more than {} ({}) can be", path, st.st_size, what, max_bytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(Errc::io, fmt::format("{}: cannot read {}", path, what));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return fail(Errc::io, fmt::format("{}: read error ({})", path, what));
  return ss.str();
}

std::string quoted(std::string_view text, size_t max) {
  std::string out = "'";
  for (size_t i = 0; i < text.size() && i < max; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F && c != '\\') out += static_cast<char>(c);
    else out += fmt::format("\\x{:02x}", c);
  }
  out += '\'';
  if (text.size() > max) out += fmt::format("... ({} bytes)", text.size());
  return out;
}

std::optional<uint64_t> parse_number(std::string_view word) {
  int base = 10;
  if (word.starts_with("0x") || word.starts_with("0X")) {
    word.remove_prefix(2);
    base = 16;
  }
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), v, base);
  if (word.empty() || ec != std::errc() || end != word.data() + word.size()) return std::nullopt;
  return v;
}

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    const size_t b = line.find_first_not_of(" \t\r", i);
    if (b == std::string_view::npos) break;
    const size_t e = std::min(line.find_first_of(" \t\r", b), line.size());
    out.push_back(line.substr(b, e - b));
    i = e;
  }
  return out;
}

}  // namespace mad
