#include "sm/partitions/partitions.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

#include "mad/text.h"
#include "sm/partitions/mgroups.h"
#include "sm/partitions/pkey_match.h"

namespace sm {

PartitionSet PartitionSet::defaults() {
  Partition d;
  d.name = "Default";
  d.pkey = kDefaultPKey;
  d.ipoib = true;
  d.members.push_back(PartitionMember{PartitionMember::Who::all, {}, Membership::full});
  d.groups.push_back(broadcast_group(kDefaultPKey, GroupFlags{}));
  return PartitionSet{{std::move(d)}};
}

namespace {

// A word, one of the punctuation marks , : ; = (as a one-character token), or the GID after
// `mgid=` (IPv6 notation has colons).
struct Token {
  std::string text;
  unsigned line = 0;
  bool word = true;
  bool punct(char c) const { return !word && text[0] == c; }
};

bool is_punct(char c) { return c == ',' || c == ':' || c == ';' || c == '='; }
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
// A GID runs to a blank, ',', ';', '=', '#' or the end of the line; it has a colon.
bool is_gid_char(char c) { return !is_blank(c) && c != '\n' && c != ',' && c != ';' && c != '=' && c != '#'; }

std::vector<Token> tokenize(std::string_view text) {
  std::vector<Token> out;
  unsigned line = 1;
  size_t i = 0;
  auto after_mgid = [&] {
    const size_t n = out.size();
    return n >= 2 && out[n - 1].punct('=') && out[n - 2].word && out[n - 2].text == "mgid";
  };
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (is_blank(c)) {
      ++i;
    } else if (is_punct(c)) {
      out.push_back(Token{std::string(1, c), line, false});
      ++i;
    } else {
      size_t end = i;
      if (after_mgid()) {  // a GID
        while (end < text.size() && is_gid_char(text[end])) ++end;
        if (text.substr(i, end - i).find(':') == std::string_view::npos) end = i;
      }
      if (end == i)
        while (end < text.size() && !is_punct(text[end]) && text[end] != '#' && text[end] != '\n' && !is_blank(text[end]))
          ++end;
      out.push_back(Token{std::string(text.substr(i, end - i)), line, true});
      i = end;
    }
  }
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// full, limited, both, or a beginning of one ("limi"), as OpenSM reads them.
std::optional<Membership> membership(std::string_view s) {
  auto begins = [&](std::string_view word) { return !s.empty() && word.starts_with(s); };
  if (begins("full")) return Membership::full;
  if (begins("both")) return Membership::both;
  if (begins("limited")) return Membership::limited;
  return std::nullopt;
}

// A port GUID as OpenSM reads one (strtoull, base 0): 0x hex, 0 octal, else decimal.
std::optional<uint64_t> parse_guid(std::string_view w) {
  int base = 10;
  if (w.size() > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X')) {
    w.remove_prefix(2);
    base = 16;
  } else if (w.size() > 1 && w[0] == '0') {
    w.remove_prefix(1);
    base = 8;
  }
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), v, base);
  if (w.empty() || ec != std::errc() || end != w.data() + w.size() || v == 0) return std::nullopt;
  return v;
}

// What one statement says besides its members.
struct Header {
  std::string name;
  std::optional<uint16_t> pkey;
  bool ipoib = false;
  bool indx0 = false;
  Membership def = Membership::limited;
  GroupFlags flags;
};

class Parser {
 public:
  Parser(std::vector<Token> tokens, std::string_view file) : t_(std::move(tokens)), file_(file) {}

  mad::Result<PartitionSet> run() {
    // OpenSM makes the default partition before it reads the file: every port limited, its own
    // port full; what the file says about 0x7fff comes after.
    Partition d;
    d.name = "Default";
    d.pkey = kDefaultPKey;
    d.members.push_back(PartitionMember{PartitionMember::Who::all, {}, Membership::limited, false, ++seq_});
    d.members.push_back(PartitionMember{PartitionMember::Who::self, {}, Membership::full, false, ++seq_});
    set_.partitions.push_back(std::move(d));
    bool any = false;
    while (at_ < t_.size()) {
      if (t_[at_].punct(';')) {  // an empty statement
        ++at_;
        continue;
      }
      if (auto r = statement(); !r) return std::unexpected(r.error());
      any = true;
    }
    if (!any) return PartitionSet::defaults();  // OpenSM: a file without a statement is in error, defaults
    return std::move(set_);
  }

 private:
  std::unexpected<mad::Error> err(unsigned line, std::string what) const {
    return mad::fail(mad::Errc::parse, fmt::format("{}:{}: {}", file_, line, what));
  }
  unsigned last_line() const { return t_.empty() ? 1 : t_.back().line; }
  const Token* peek(size_t ahead = 0) const { return at_ + ahead < t_.size() ? &t_[at_ + ahead] : nullptr; }
  bool next_is(char c) const { return peek() && peek()->punct(c); }
  bool next_is_word() const { return peek() && peek()->word; }
  unsigned here() const { return peek() ? peek()->line : last_line(); }
  std::string next_text() const { return peek() ? "'" + peek()->text + "'" : "the end"; }

  // [name][=PKey] {, flag[=value]} : {member | mgid line} ;
  mad::Result<void> statement() {
    Header h;
    if (auto r = header(h); !r) return r;
    const unsigned line = t_[at_].line;  // ':'
    auto part = partition_for(h, line);
    if (!part) return std::unexpected(part.error());
    Partition* p = *part;
    if (h.ipoib) {
      p->ipoib = true;
      add_group(*p, broadcast_group(p->pkey, h.flags));
    }
    ++at_;  // ':'
    const std::string& name = p->name;
    bool need_sep = false;  // after an item, a ',' or a new line
    unsigned item_line = line;
    while (true) {
      if (!peek()) return err(last_line(), fmt::format("partition '{}': missing ';' at the end", name));
      if (next_is(';')) {
        ++at_;
        return {};
      }
      if (next_is(',')) {  // empty items are nothing, as in OpenSM
        ++at_;
        need_sep = false;
        continue;
      }
      if (need_sep && peek()->line == item_line)
        return err(peek()->line, fmt::format("partition '{}': missing ',' or ';' before '{}'", name, peek()->text));
      if (next_is_word() && peek()->text == "mgid" && peek(1) && peek(1)->punct('=')) {
        if (auto r = mgid_line(*p, h); !r) return r;
      } else if (auto r = member(*p, h); !r) {
        return r;
      }
      need_sep = true;
      item_line = t_[at_ - 1].line;
    }
  }

  mad::Result<void> header(Header& h) {  // up to the ':'
    const unsigned line = t_[at_].line;
    std::optional<std::string> key;  // the P_Key as written
    if (next_is_word()) {
      const std::string w = t_[at_++].text;
      if (!next_is('=') && std::isdigit(static_cast<unsigned char>(w[0]))) key = w;  // a P_Key alone
      else h.name = w;
    } else if (!next_is('=')) {
      return err(line, fmt::format("expected a partition name or P_Key, found '{}'", peek()->text));
    }
    if (next_is('=')) {
      ++at_;
      if (!next_is_word()) return err(line, fmt::format("partition '{}': missing P_Key after '='", h.name));
      key = t_[at_++].text;
    }
    if (key) {
      auto n = mad::parse_number(*key);
      if (!n) return err(line, fmt::format("partition '{}': bad P_Key '{}'", h.name, *key));
      if (*n == 0 || *n > kDefaultPKey)
        return err(line, fmt::format("partition '{}': P_Key {} out of range (0x0001..0x7fff)", h.name, *key));
      h.pkey = static_cast<uint16_t>(*n);
      if (h.name == "Default" && *h.pkey != kDefaultPKey)
        return err(line, fmt::format("partition 'Default' must have P_Key 0x7fff, not 0x{:04x}", *h.pkey));
    }
    while (next_is(',')) {
      ++at_;
      if (auto f = flag(h); !f) return f;
    }
    if (!peek()) return err(last_line(), fmt::format("partition '{}': missing ':' and ';'", h.name));
    if (!next_is(':'))
      return err(peek()->line, fmt::format("partition '{}': missing ':' before '{}'", h.name, peek()->text));
    return {};
  }

  mad::Result<void> flag(Header& h) {
    if (!next_is_word()) return err(here(), fmt::format("partition '{}': expected a flag after ','", h.name));
    const Token& f = t_[at_++];
    if (iequals(f.text, "ipoib") || iequals(f.text, "indx0")) {
      (iequals(f.text, "ipoib") ? h.ipoib : h.indx0) = true;
      return {};
    }
    if (!next_is('=')) return err(f.line, fmt::format("partition '{}': unknown flag '{}'", h.name, f.text));
    ++at_;
    if (!next_is_word()) return err(f.line, fmt::format("partition '{}': flag '{}' needs a value", h.name, f.text));
    const Token& v = t_[at_++];
    if (iequals(f.text, "defmember")) {
      auto m = membership(v.text);
      if (!m) return err(v.line, fmt::format("partition '{}': defmember must be full, limited or both, not '{}'", h.name, v.text));
      h.def = *m;
      return {};
    }
    auto g = apply_group_flag(h.flags, f.text, v.text);
    if (!g) return err(v.line, fmt::format("partition '{}': {}", h.name, g.error()));
    if (!*g) return err(f.line, fmt::format("partition '{}': unknown flag '{}'", h.name, f.text));
    return {};
  }

  // The partition a statement adds to: the one with its P_Key (merged, as OpenSM: the first
  // name stays), without a P_Key the first of its name, else a new one (P_Key generated as
  // OpenSM does, the lowest unused from 1).
  mad::Result<Partition*> partition_for(const Header& h, unsigned line) {
    auto with = [&](auto pred) -> Partition* {
      auto it = std::find_if(set_.partitions.begin(), set_.partitions.end(), pred);
      return it == set_.partitions.end() ? nullptr : &*it;
    };
    uint16_t key = 0;
    if (h.pkey) {
      key = *h.pkey;
    } else {
      if (Partition* p = with([&](const Partition& q) { return !h.name.empty() && q.name == h.name; })) return p;
      while (++generated_ < kDefaultPKey)
        if (!with([&](const Partition& q) { return q.pkey == generated_; })) break;
      if (generated_ >= kDefaultPKey) return err(line, fmt::format("partition '{}': no P_Key left to generate", h.name));
      key = generated_;
    }
    if (Partition* p = with([&](const Partition& q) { return q.pkey == key; })) return p;
    Partition p;
    p.pkey = key;
    p.name = h.name.empty() ? fmt::format("{:04x}", key) : h.name;
    set_.partitions.push_back(std::move(p));
    return &set_.partitions.back();
  }

  // Whether some partition keeps a group with this MGID already.
  bool group_exists(const mad::Gid& mgid) const {
    for (const Partition& q : set_.partitions)
      for (const PartitionGroup& g : q.groups)
        if (g.mgid == mgid) return true;
    return false;
  }
  void add_group(Partition& p, const PartitionGroup& g) {  // the first wins, as OpenSM
    if (!group_exists(g.mgid)) p.groups.push_back(g);
  }

  // mgid=<gid> {, flag=value} up to the end of the line (or ';'), as OpenSM reads it.
  mad::Result<void> mgid_line(Partition& p, const Header& h) {
    const unsigned line = t_[at_].line;
    at_ += 2;  // mgid =
    if (!next_is_word() || peek()->line != line)
      return err(line, fmt::format("partition '{}': mgid= needs a GID", p.name));
    const std::string gid = t_[at_++].text;
    GroupFlags f = inherited_flags(h.flags);
    while (next_is(',') && peek()->line == line) {
      ++at_;
      if (!next_is_word() || peek()->line != line)
        return err(line, fmt::format("partition '{}': mgid {}: expected a flag after ','", p.name, gid));
      const Token& name = t_[at_++];
      if (!next_is('=') || !peek(1) || !peek(1)->word)
        return err(line, fmt::format("partition '{}': mgid {}: flag '{}' needs a value", p.name, gid, name.text));
      const Token& v = t_[at_ + 1];
      at_ += 2;
      auto g = apply_group_flag(f, name.text, v.text);
      if (!g) return err(line, fmt::format("partition '{}': mgid {}: {}", p.name, gid, g.error()));
      if (!*g)
        return err(line, fmt::format("partition '{}': mgid {}: unknown group flag '{}' (mtu, rate, sl, scope, "
                                     "Q_Key, TClass, FlowLabel; the line ends the group)", p.name, gid, name.text));
    }
    if (peek() && !next_is(';') && peek()->line == line)
      return err(line, fmt::format("partition '{}': mgid {}: expected ',' or the end of the line before '{}'", p.name,
                                   gid, peek()->text));
    auto groups = mgid_groups(gid, p.pkey, h.flags, f);
    if (!groups) return err(line, fmt::format("partition '{}': {}", p.name, groups.error()));
    if (group_exists(groups->written)) return {};  // OpenSM: not twice
    for (const PartitionGroup& g : groups->groups) add_group(p, g);
    return {};
  }

  // A member that does not parse may be the next statement's header: a ';' is missing.
  bool header_ahead(size_t from) const {
    for (size_t i = from; i < t_.size() && i < from + 64; ++i) {
      if (t_[i].punct(';')) return false;
      if (t_[i].punct(':')) return true;
    }
    return false;
  }

  mad::Result<void> member(Partition& p, const Header& h) {
    const size_t start = at_;
    auto bad = [&](unsigned line, std::string what) -> std::unexpected<mad::Error> {
      if (t_[start].word && header_ahead(start))
        return err(t_[start].line, fmt::format("partition '{}': missing ';' before '{}'", p.name, t_[start].text));
      return err(line, fmt::format("partition '{}': {}", p.name, what));
    };
    if (!next_is_word()) return bad(here(), fmt::format("expected a member, found {}", next_text()));
    const Token& w = t_[at_++];
    PartitionMember m;
    m.membership = h.def;
    m.indx0 = h.indx0;
    using Who = PartitionMember::Who;
    if (w.text == "ALL") m.who = Who::all;
    else if (w.text == "ALL_CAS") m.who = Who::all_cas;
    else if (w.text == "ALL_SWITCHES") m.who = Who::all_switches;
    else if (w.text == "ALL_ROUTERS") m.who = Who::all_routers;
    else if (w.text == "SELF") m.who = Who::self;
    else if (w.text != "NONE") {
      auto g = parse_guid(w.text);
      if (!g)
        return bad(w.line, fmt::format("bad port GUID '{}' (0x hex, or decimal, or ALL, ALL_CAS, ALL_SWITCHES, "
                                       "ALL_ROUTERS, SELF, NONE)", w.text));
      m.who = Who::guid;
      m.port_guid = mad::Guid(*g);
    }
    if (next_is('=')) {
      ++at_;
      if (!next_is_word()) return bad(w.line, fmt::format("membership missing after '{}='", w.text));
      const Token& v = t_[at_++];
      auto ms = membership(v.text);
      if (!ms) return bad(v.line, fmt::format("membership of {} must be full, limited or both, not '{}'", w.text, v.text));
      m.membership = *ms;
    }
    if (w.text == "NONE") return {};  // OpenSM: no port
    m.seq = ++seq_;
    p.members.push_back(m);
    return {};
  }

  std::vector<Token> t_;
  std::string_view file_;
  size_t at_ = 0;
  PartitionSet set_;
  uint32_t seq_ = 0;
  uint16_t generated_ = 0;
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
