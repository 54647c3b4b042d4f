#include "sm/partitions/partitions.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>

#include "mad/text.h"
#include "sm/partitions/pkey_match.h"
namespace sm {

PartitionSet PartitionSet::defaults() {
  Partition d;
  d.name = "Default";
  d.pkey = 0x7FFF;
  d.ipoib = true;
  d.members.push_back(PartitionMember{PartitionMember::Who::all, {}, Membership::full});
  return PartitionSet{{std::move(d)}};
}

namespace {

// A word, or one of the punctuation marks , : ; = (as a one-character token).
struct Token {
  std::string text;
  unsigned line = 0;
  bool punct(char c) const { return text.size() == 1 && text[0] == c; }
};

bool is_punct(char c) { return c == ',' || c == ':' || c == ';' || c == '='; }

std::vector<Token> tokenize(std::string_view text) {
  std::vector<Token> out;
  unsigned line = 1;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++i;
    } else if (is_punct(c)) {
      out.push_back(Token{std::string(1, c), line});
      ++i;
    } else {
      const size_t from = i;
      while (i < text.size() && !is_punct(text[i]) && text[i] != '#' && text[i] != '\n' && text[i] != ' ' &&
             text[i] != '\t' && text[i] != '\r' && text[i] != '\f' && text[i] != '\v')
        ++i;
      out.push_back(Token{std::string(text.substr(from, i - from)), line});
    }
  }
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::optional<Membership> membership(std::string_view s) {
  if (iequals(s, "full")) return Membership::full;
  if (iequals(s, "limited")) return Membership::limited;
  if (iequals(s, "both")) return Membership::both;
  return std::nullopt;
}

class Parser {
 public:
  Parser(std::vector<Token> tokens, std::string_view file) : t_(std::move(tokens)), file_(file) {}

  mad::Result<PartitionSet> run() {
    PartitionSet set;
    std::vector<unsigned> lines;  // where each partition was defined
    while (at_ < t_.size()) {
      if (t_[at_].punct(';')) {  // an empty statement
        ++at_;
        continue;
      }
      const unsigned line = t_[at_].line;
      auto p = statement();
      if (!p) return std::unexpected(p.error());
      for (size_t i = 0; i < set.partitions.size(); ++i) {
        const Partition& q = set.partitions[i];
        if (q.pkey == p->pkey)
          return err(line, fmt::format("duplicate P_Key 0x{:04x}: partition '{}' has it already (line {})", p->pkey,
                                       q.name, lines[i]));
        if (q.name == p->name)
          return err(line, fmt::format("duplicate partition name '{}' (first on line {})", p->name, lines[i]));
      }
      set.partitions.push_back(std::move(*p));
      lines.push_back(line);
    }
    // Default first, whether the file named it or not.
    auto d = std::find_if(set.partitions.begin(), set.partitions.end(),
                          [](const Partition& p) { return p.pkey == kDefaultPKey; });
    if (d == set.partitions.end()) {
      set.partitions.insert(set.partitions.begin(), PartitionSet::defaults().partitions.front());
    } else {
      std::rotate(set.partitions.begin(), d, d + 1);
    }
    return set;
  }

 private:
  std::unexpected<mad::Error> err(unsigned line, std::string what) const {
    return mad::fail(mad::Errc::parse, fmt::format("{}:{}: {}", file_, line, what));
  }
  unsigned last_line() const { return t_.empty() ? 1 : t_.back().line; }
  const Token* peek() const { return at_ < t_.size() ? &t_[at_] : nullptr; }
  bool next_is(char c) const { return peek() && peek()->punct(c); }
  bool next_is_word() const { return peek() && !is_punct(peek()->text[0]); }

  // name[=PKey] {, flag[=value]} : [member[=membership] {, member[=membership]}] ;
  mad::Result<Partition> statement() {
    Partition p;
    p.members.clear();
    if (!next_is_word()) return err(peek()->line, fmt::format("expected a partition name, found '{}'", peek()->text));
    const Token& name = t_[at_++];
    p.name = name.text;
    std::optional<uint16_t> pkey;
    if (next_is('=')) {
      ++at_;
      if (!next_is_word()) return err(name.line, fmt::format("partition '{}': missing P_Key after '='", p.name));
      const Token& v = t_[at_++];
      auto n = mad::parse_number(v.text);
      if (!n) return err(v.line, fmt::format("partition '{}': bad P_Key '{}'", p.name, v.text));
      if (*n == 0 || *n > kDefaultPKey)
        return err(v.line, fmt::format("partition '{}': P_Key {} out of range (0x0001..0x7fff)", p.name, v.text));
      pkey = static_cast<uint16_t>(*n);
    }
    if (!pkey && p.name != "Default")
      return err(name.line, fmt::format("partition '{}': missing '=P_Key'", p.name));
    p.pkey = pkey.value_or(kDefaultPKey);
    if (p.name == "Default" && p.pkey != kDefaultPKey)
      return err(name.line, fmt::format("partition 'Default' must have P_Key 0x7fff, not 0x{:04x}", p.pkey));
    Membership def = Membership::limited;
    while (next_is(',')) {
      ++at_;
      if (auto f = flag(p, def); !f) return std::unexpected(f.error());
    }
    if (!peek()) return err(last_line(), fmt::format("partition '{}': missing ':' and ';'", p.name));
    if (!next_is(':'))
      return err(peek()->line, fmt::format("partition '{}': missing ':' before '{}'", p.name, peek()->text));
    ++at_;
    bool first = true;
    while (peek() && !next_is(';')) {
      if (!first) {
        if (!next_is(','))
          return err(peek()->line, fmt::format("partition '{}': missing ',' or ';' before '{}'", p.name, peek()->text));
        ++at_;
      }
      first = false;
      auto m = member(p.name, def);
      if (!m) return std::unexpected(m.error());
      p.members.push_back(*m);
    }
    if (!peek()) return err(last_line(), fmt::format("partition '{}': missing ';' at the end", p.name));
    ++at_;  // ';'
    return p;
  }

  mad::Result<void> flag(Partition& p, Membership& def) {
    if (!next_is_word()) {
      const unsigned line = peek() ? peek()->line : last_line();
      return err(line, fmt::format("partition '{}': expected a flag after ','", p.name));
    }
    const Token& f = t_[at_++];
    if (iequals(f.text, "ipoib")) {
      p.ipoib = true;
      return {};
    }
    if (!next_is('=')) return err(f.line, fmt::format("partition '{}': unknown flag '{}'", p.name, f.text));
    ++at_;
    if (!next_is_word()) return err(f.line, fmt::format("partition '{}': flag '{}' needs a value", p.name, f.text));
    const Token& v = t_[at_++];
    if (iequals(f.text, "defmember")) {
      auto m = membership(v.text);
      if (!m) return err(v.line, fmt::format("partition '{}': defmember must be full, limited or both, not '{}'", p.name, v.text));
      def = *m;
      return {};
    }
    struct Range {
      const char* name;
      uint64_t lo, hi;
    };
    const auto n = mad::parse_number(v.text);
    auto in = [&](Range r) -> mad::Result<uint64_t> {
      if (!n || *n < r.lo || *n > r.hi)
        return err(v.line, fmt::format("partition '{}': {}={} is not a number in {}..{}", p.name, r.name, v.text, r.lo, r.hi));
      return *n;
    };
    mad::Result<uint64_t> got = 0;
    if (iequals(f.text, "mtu")) {
      if ((got = in({"mtu", 1, 5}))) p.mtu = static_cast<uint8_t>(*got);
    } else if (iequals(f.text, "rate")) {
      if ((got = in({"rate", 2, 22}))) p.rate = static_cast<uint8_t>(*got);
    } else if (iequals(f.text, "sl")) {
      if ((got = in({"sl", 0, 15}))) p.sl = static_cast<uint8_t>(*got);
    } else if (iequals(f.text, "scope")) {
      if ((got = in({"scope", 1, 15}))) p.scope = static_cast<uint8_t>(*got);
    } else if (iequals(f.text, "qkey") || iequals(f.text, "q_key")) {
      if ((got = in({"qkey", 0, 0xFFFFFFFF}))) p.qkey = static_cast<uint32_t>(*got);
    } else {
      return err(f.line, fmt::format("partition '{}': unknown flag '{}'", p.name, f.text));
    }
    if (!got) return std::unexpected(got.error());
    return {};
  }

  mad::Result<PartitionMember> member(const std::string& part, Membership def) {
    if (!next_is_word()) {
      const unsigned line = peek() ? peek()->line : last_line();
      return err(line, fmt::format("partition '{}': expected a member, found '{}'", part, peek() ? peek()->text : "the end"));
    }
    const Token& w = t_[at_++];
    PartitionMember m;
    m.membership = def;
    using Who = PartitionMember::Who;
    if (w.text == "ALL") m.who = Who::all;
    else if (w.text == "ALL_CAS") m.who = Who::all_cas;
    else if (w.text == "ALL_SWITCHES") m.who = Who::all_switches;
    else if (w.text == "SELF") m.who = Who::self;
    else {
      const bool hex = w.text.size() > 2 && w.text[0] == '0' && (w.text[1] == 'x' || w.text[1] == 'X') &&
                       w.text.size() <= 18;
      auto g = hex ? mad::parse_number(w.text) : std::nullopt;
      if (!g || *g == 0)
        return err(w.line, fmt::format("partition '{}': bad port GUID '{}' (0x and up to 16 hex digits, or ALL, "
                                       "ALL_CAS, ALL_SWITCHES, SELF)", part, w.text));
      m.who = Who::guid;
      m.port_guid = mad::Guid(*g);
    }
    if (next_is('=')) {
      ++at_;
      if (!next_is_word()) return err(w.line, fmt::format("partition '{}': membership missing after '{}='", part, w.text));
      const Token& v = t_[at_++];
      auto ms = membership(v.text);
      if (!ms) return err(v.line, fmt::format("partition '{}': membership of {} must be full, limited or both, not '{}'",
                                              part, w.text, v.text));
      m.membership = *ms;
    }
    return m;
  }

  std::vector<Token> t_;
  std::string_view file_;
  size_t at_ = 0;
};

}  // namespace

mad::Result<PartitionSet> parse_partitions(std::string_view text, std::string_view file_name) {
  return Parser(tokenize(text), file_name).run();
}

mad::Result<PartitionSet> load_partitions(const std::string& path) {
  auto text = mad::read_text_file(path, "the partitions file");
  if (!text) return std::unexpected(text.error());
  return parse_partitions(*text, path);
}

}  // namespace sm
