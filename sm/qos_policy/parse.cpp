#include "sm/qos_policy/parse.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "mad/text.h"

namespace sm::qos {

bool in(const Ranges& set, uint64_t v) {
  return std::any_of(set.begin(), set.end(), [v](const Range& r) { return r.contains(v); });
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string_view> split_commas(std::string_view s) {
  std::vector<std::string_view> out;
  for (size_t at = 0;;) {
    const size_t comma = s.find(',', at);
    out.push_back(trim(s.substr(at, comma == std::string_view::npos ? std::string_view::npos : comma - at)));
    if (comma == std::string_view::npos) return out;
    at = comma + 1;
  }
}

// Where the parser is: which section and subsection a line belongs to.
enum class In { top, port_groups, port_group, qos_setup, levels, level, rules, rule, ulps };

// A name a rule refers to, checked once the whole file is read (groups may come after rules).
struct Ref {
  std::string name;
  unsigned line;
};
struct PendingRule {
  Rule rule;
  std::vector<Ref> sources, destinations;
  std::optional<Ref> level;
};

class Parser {
 public:
  explicit Parser(std::string_view file) : file_(file) {}

  mad::Result<Policy> run(std::string_view text) {
    unsigned n = 0;
    for (size_t at = 0; at <= text.size();) {
      const size_t eol = std::min(text.find('\n', at), text.size());
      std::string_view line = text.substr(at, eol - at);
      at = eol + 1;
      ++n;
      line_ = n;
      if (const size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
      line = trim(line);
      if (line.empty()) continue;
      last_ = n;
      if (auto r = one(line); !r) return std::unexpected(r.error());
    }
    if (in_ != In::top) return error(open_line_, fmt::format("{} has no {}", opened_, closing()));
    return finish();
  }

 private:
  std::string_view file_;
  unsigned line_ = 0;
  unsigned last_ = 1;  // the last line with something on it
  In in_ = In::top;
  unsigned open_line_ = 0;  // where the open section or subsection began
  std::string opened_;
  Policy p_;
  std::vector<unsigned> level_lines_;  // where each level began
  std::vector<unsigned> group_lines_;
  std::vector<PendingRule> rules_;
  std::vector<PendingRule> ulp_rules_;
  std::optional<uint8_t> ulp_default_;
  unsigned ulp_default_line_ = 0;
  bool have_name_ = false;  // the open port-group or qos-level has its name

  std::unexpected<mad::Error> error(unsigned line, const std::string& what) const {
    return std::unexpected(mad::Error{mad::Errc::parse, fmt::format("{}:{}: {}", file_, line, what)});
  }
  std::unexpected<mad::Error> error(const std::string& what) const { return error(line_, what); }

  std::string closing() const {
    switch (in_) {
      case In::port_groups: return "end-port-groups";
      case In::port_group: return "end-port-group";
      case In::qos_setup: return "end-qos-setup";
      case In::levels: return "end-qos-levels";
      case In::level: return "end-qos-level";
      case In::rules: return "end-qos-match-rules";
      case In::rule: return "end-qos-match-rule";
      case In::ulps: return "end-qos-ulps";
      case In::top: break;
    }
    return "";
  }

  void open(In next, std::string_view what) {
    in_ = next;
    open_line_ = line_;
    opened_ = std::string(what);
  }

  mad::Result<void> one(std::string_view line) {
    const std::string word = lower(line);
    switch (in_) {
      case In::top:
        if (word == "port-groups") return open(In::port_groups, word), mad::Result<void>{};
        if (word == "qos-setup") return open(In::qos_setup, word), mad::Result<void>{};
        if (word == "qos-levels") return open(In::levels, word), mad::Result<void>{};
        if (word == "qos-match-rules") return open(In::rules, word), mad::Result<void>{};
        if (word == "qos-ulps") return open(In::ulps, word), mad::Result<void>{};
        return error(fmt::format("{}: expected a section: port-groups, qos-setup, qos-levels, qos-match-rules or "
                                 "qos-ulps", mad::quoted(line)));
      case In::qos_setup:  // OpenSM parses and ignores it; the qos_* options set the tables
        if (word == "end-qos-setup") in_ = In::top;
        return {};
      case In::port_groups:
        if (word == "end-port-groups") return in_ = In::top, mad::Result<void>{};
        if (word == "port-group") return begin_group();
        return error(fmt::format("{}: expected port-group or end-port-groups", mad::quoted(line)));
      case In::levels:
        if (word == "end-qos-levels") return in_ = In::top, mad::Result<void>{};
        if (word == "qos-level") return begin_level();
        return error(fmt::format("{}: expected qos-level or end-qos-levels", mad::quoted(line)));
      case In::rules:
        if (word == "end-qos-match-rules") return in_ = In::top, mad::Result<void>{};
        if (word == "qos-match-rule") {
          open(In::rule, word);
          rules_.emplace_back().rule.line = line_;
          return {};
        }
        return error(fmt::format("{}: expected qos-match-rule or end-qos-match-rules", mad::quoted(line)));
      case In::port_group:
        if (word == "end-port-group") return end_group();
        return group_field(line);
      case In::level:
        if (word == "end-qos-level") return end_level();
        return level_field(line);
      case In::rule:
        if (word == "end-qos-match-rule") return end_rule();
        return rule_field(line);
      case In::ulps:
        if (word == "end-qos-ulps") return in_ = In::top, mad::Result<void>{};
        return ulp(line);
    }
    return {};
  }

  // "key: value" of a subsection; the key lower-cased.
  mad::Result<std::pair<std::string, std::string_view>> field(std::string_view line, std::string_view expected) {
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos)
      return error(fmt::format("{}: expected 'keyword: value' ({}) or {}", mad::quoted(line), expected, closing()));
    std::string key = lower(trim(line.substr(0, colon)));
    std::string_view value = trim(line.substr(colon + 1));
    if (value.empty()) return error(fmt::format("{}: no value", key));
    return std::pair{std::move(key), value};
  }

  mad::Result<uint64_t> number(std::string_view w, uint64_t max, std::string_view what) {
    auto v = mad::parse_number(w);
    if (!v || *v > max)
      return error(fmt::format("{}: {} is not {} (0-{:#x})", what, mad::quoted(w), "a number in range", max));
    return *v;
  }

  // "0x1, 0x5-0x9": numbers and ranges, each at most `max`.
  mad::Result<Ranges> ranges(std::string_view value, uint64_t max, std::string_view what) {
    Ranges out;
    for (std::string_view item : split_commas(value)) {
      if (item.empty()) return error(fmt::format("{}: an empty item in {}", what, mad::quoted(value)));
      const size_t dash = item.find('-');
      auto lo = number(trim(item.substr(0, dash)), max, what);
      if (!lo) return std::unexpected(lo.error());
      uint64_t hi = *lo;
      if (dash != std::string_view::npos) {
        auto h = number(trim(item.substr(dash + 1)), max, what);
        if (!h) return std::unexpected(h.error());
        hi = *h;
      }
      if (hi < *lo) return error(fmt::format("{}: {} is an empty range (low above high)", what, mad::quoted(item)));
      out.push_back(Range{*lo, hi});
    }
    return out;
  }

  // P_Keys compare without the membership bit, as partitions do.
  mad::Result<Ranges> pkeys(std::string_view value) {
    auto r = ranges(value, 0xFFFF, "pkey");
    if (!r) return r;
    for (Range& x : *r) {
      if ((x.lo & 0x8000) != (x.hi & 0x8000))
        return error(fmt::format("pkey: {:#x}-{:#x} spans the membership bit", x.lo, x.hi));
      x.lo &= 0x7FFF;
      x.hi &= 0x7FFF;
    }
    return r;
  }

  // The section just closed (the last of `all`) has a name no earlier one has.
  template <class Named>
  mad::Result<void> unique_name(const std::vector<Named>& all, const std::vector<unsigned>& lines, std::string_view what) {
    const std::string& name = all.back().name;
    for (size_t i = 0; i + 1 < all.size(); ++i)
      if (all[i].name == name)
        return error(open_line_, fmt::format("{} {} is defined twice (first at line {})", what, mad::quoted(name), lines[i]));
    return {};
  }

  mad::Result<void> begin_group() {
    open(In::port_group, "port-group");
    p_.groups.emplace_back();
    group_lines_.push_back(line_);
    have_name_ = false;
    return {};
  }

  mad::Result<void> end_group() {
    if (!have_name_) return error(open_line_, "port-group without a name");
    if (auto r = unique_name(p_.groups, group_lines_, "port group"); !r) return r;
    in_ = In::port_groups;
    return {};
  }

  mad::Result<void> group_field(std::string_view line) {
    auto f = field(line, "name, use, port-guid, port-name, node-type, partition or pkey");
    if (!f) return std::unexpected(f.error());
    auto& [key, value] = *f;
    PortGroup& g = p_.groups.back();
    if (key == "name") {
      g.name = std::string(value);
      have_name_ = true;
    } else if (key == "use") {
      g.use = std::string(value);
    } else if (key == "port-guid") {
      auto r = ranges(value, UINT64_MAX, "port-guid");
      if (!r) return std::unexpected(r.error());
      g.guids.insert(g.guids.end(), r->begin(), r->end());
    } else if (key == "port-name") {
      for (std::string_view item : split_commas(value)) {
        const size_t slash = item.rfind("/P");
        auto port = slash == std::string_view::npos ? std::optional<uint64_t>{} : mad::parse_number(item.substr(slash + 2));
        if (!port || *port > 254 || slash == 0)
          return error(fmt::format("port-name: {} is not 'node description/Pport'", mad::quoted(item)));
        g.names.push_back(PortName{std::string(item.substr(0, slash)), static_cast<unsigned>(*port)});
      }
    } else if (key == "node-type") {
      for (std::string_view item : split_commas(value)) {
        const std::string t = lower(item);
        if (t == "ca") g.kinds.push_back(NodeKind::ca);
        else if (t == "switch") g.kinds.push_back(NodeKind::sw);
        else if (t == "router") g.kinds.push_back(NodeKind::router);
        else if (t == "all") g.kinds.push_back(NodeKind::all);
        else if (t == "self") g.kinds.push_back(NodeKind::self);
        else return error(fmt::format("node-type: {} is not CA, SWITCH, ROUTER, ALL or SELF", mad::quoted(item)));
      }
    } else if (key == "partition") {
      g.partitions.emplace_back(value);
      g.partition_lines.push_back(line_);
    } else if (key == "pkey") {
      auto r = pkeys(value);
      if (!r) return std::unexpected(r.error());
      g.pkeys.insert(g.pkeys.end(), r->begin(), r->end());
    } else {
      return error(fmt::format("port-group: unknown keyword {} (name, use, port-guid, port-name, node-type, partition, "
                               "pkey)", mad::quoted(key)));
    }
    return {};
  }

  mad::Result<void> begin_level() {
    open(In::level, "qos-level");
    p_.levels.emplace_back();
    level_lines_.push_back(line_);
    have_name_ = false;
    return {};
  }

  mad::Result<void> end_level() {
    if (!have_name_) return error(open_line_, "qos-level without a name");
    if (auto r = unique_name(p_.levels, level_lines_, "qos-level"); !r) return r;
    in_ = In::levels;
    return {};
  }

  mad::Result<void> level_field(std::string_view line) {
    auto f = field(line, "name, use, sl, mtu-limit, rate-limit, packet-life or pkey");
    if (!f) return std::unexpected(f.error());
    auto& [key, value] = *f;
    Level& l = p_.levels.back();
    auto small = [&](uint64_t lo, uint64_t max) -> mad::Result<uint8_t> {
      auto v = number(value, max, key);
      if (!v) return std::unexpected(v.error());
      if (*v < lo) return error(fmt::format("{}: {} is below {}", key, *v, lo));
      return static_cast<uint8_t>(*v);
    };
    mad::Result<uint8_t> v{uint8_t{0}};
    if (key == "name") {
      l.name = std::string(value);
      have_name_ = true;
    } else if (key == "use") {
      l.use = std::string(value);
    } else if (key == "sl") {
      if (!(v = small(0, 15))) return std::unexpected(v.error());
      l.sl = *v;
    } else if (key == "mtu-limit") {  // IBA codes: 1 = 256 ... 5 = 4096
      if (!(v = small(1, 5))) return std::unexpected(v.error());
      l.mtu_limit = *v;
    } else if (key == "rate-limit") {  // IBA codes: 2 = 2.5 Gb/s ... 22
      if (!(v = small(2, 22))) return std::unexpected(v.error());
      l.rate_limit = *v;
    } else if (key == "packet-life") {
      if (!(v = small(0, 63))) return std::unexpected(v.error());
      l.packet_life = *v;
    } else if (key == "pkey") {
      auto r = pkeys(value);
      if (!r) return std::unexpected(r.error());
      l.pkeys.insert(l.pkeys.end(), r->begin(), r->end());
    } else {
      return error(fmt::format("qos-level: unknown keyword {} (name, use, sl, mtu-limit, rate-limit, packet-life, "
                               "pkey)", mad::quoted(key)));
    }
    return {};
  }

  std::vector<Ref> names(std::string_view value) {
    std::vector<Ref> out;
    for (std::string_view item : split_commas(value)) out.push_back(Ref{std::string(item), line_});
    return out;
  }

  mad::Result<void> end_rule() {
    if (!rules_.back().level) return error(open_line_, "qos-match-rule without a qos-level-name");
    in_ = In::rules;
    return {};
  }

  mad::Result<void> rule_field(std::string_view line) {
    auto f = field(line, "use, qos-class, source, destination, service-id, pkey or qos-level-name");
    if (!f) return std::unexpected(f.error());
    auto& [key, value] = *f;
    PendingRule& r = rules_.back();
    if (key == "use") {
      r.rule.use = std::string(value);
    } else if (key == "qos-class") {
      auto x = ranges(value, 0xFFF, key);
      if (!x) return std::unexpected(x.error());
      r.rule.qos_classes.insert(r.rule.qos_classes.end(), x->begin(), x->end());
    } else if (key == "source") {
      for (Ref& n : names(value)) r.sources.push_back(std::move(n));
    } else if (key == "destination") {
      for (Ref& n : names(value)) r.destinations.push_back(std::move(n));
    } else if (key == "service-id") {
      auto x = ranges(value, UINT64_MAX, key);
      if (!x) return std::unexpected(x.error());
      r.rule.service_ids.insert(r.rule.service_ids.end(), x->begin(), x->end());
    } else if (key == "pkey") {
      auto x = pkeys(value);
      if (!x) return std::unexpected(x.error());
      r.rule.pkeys.insert(r.rule.pkeys.end(), x->begin(), x->end());
    } else if (key == "qos-level-name") {
      if (r.level) return error("qos-level-name given twice");
      r.level = Ref{std::string(value), line_};
    } else {
      return error(fmt::format("qos-match-rule: unknown keyword {} (use, qos-class, source, destination, service-id, "
                               "pkey, qos-level-name)", mad::quoted(key)));
    }
    return {};
  }

  // "ulp[, criterion value] : SL" (OpenSM's simplified policy).
  mad::Result<void> ulp(std::string_view line) {
    const size_t colon = line.rfind(':');
    if (colon == std::string_view::npos) return error(fmt::format("{}: expected 'ulp[, criterion] : SL'", mad::quoted(line)));
    auto sl = number(trim(line.substr(colon + 1)), 15, "SL");
    if (!sl) return std::unexpected(sl.error());
    std::string_view lhs = trim(line.substr(0, colon));
    const size_t comma = lhs.find(',');
    const std::string name = lower(trim(lhs.substr(0, comma)));
    std::string crit;
    std::string_view arg;
    if (comma != std::string_view::npos) {
      std::string_view rest = trim(lhs.substr(comma + 1));
      const size_t blank = rest.find_first_of(" \t");
      if (blank == std::string_view::npos) return error(fmt::format("{}: a criterion needs a value", mad::quoted(rest)));
      crit = lower(rest.substr(0, blank));
      arg = trim(rest.substr(blank + 1));
    }
    if (name == "default") {
      if (!crit.empty()) return error("default takes no criterion");
      if (ulp_default_) return error(fmt::format("default given twice (first at line {})", ulp_default_line_));
      ulp_default_ = static_cast<uint8_t>(*sl);
      ulp_default_line_ = line_;
      return {};
    }
    PendingRule r;
    r.rule.line = line_;
    r.rule.use = fmt::format("qos-ulps: {}", lhs);
    auto want = [&](std::initializer_list<const char*> ok) -> mad::Result<void> {
      for (const char* c : ok)
        if (crit == c) return {};
      std::string list;
      for (const char* c : ok) list += (list.empty() ? "" : ", ") + std::string(c);
      return error(fmt::format("{}: criterion {} is not one of: {}", name, mad::quoted(crit), list));
    };
    auto port_ids = [&](uint64_t base, Range whole) -> mad::Result<void> {
      if (crit.empty()) {
        r.rule.service_ids.push_back(whole);
        return {};
      }
      if (auto w = want({"port-num"}); !w) return w;
      auto x = ranges(arg, 0xFFFF, "port-num");
      if (!x) return std::unexpected(x.error());
      for (const Range& p : *x) r.rule.service_ids.push_back(Range{base + p.lo, base + p.hi});
      return {};
    };
    auto guids = [&](std::vector<size_t>& side) -> mad::Result<void> {
      auto x = ranges(arg, UINT64_MAX, crit);
      if (!x) return std::unexpected(x.error());
      PortGroup g;  // a group of its own, unnamed: no rule of the full policy can name it
      g.guids = std::move(*x);
      side.push_back(p_.groups.size());
      p_.groups.push_back(std::move(g));
      group_lines_.push_back(line_);
      return {};
    };
    mad::Result<void> ok;
    if (name == "sdp") {
      ok = port_ids(0x10000, Range{0x10000, 0x1FFFF});
    } else if (name == "rds") {
      ok = port_ids(0x1060000, Range{0x10648CA, 0x10648CA});
    } else if (name == "iser") {
      ok = port_ids(0x1060000, Range{0x1060CBC, 0x1060CBC});
    } else if (name == "ipoib") {
      if (crit.empty()) {
        r.rule.pkeys.push_back(Range{0x7FFF, 0x7FFF});
      } else if (!(ok = want({"pkey"}))) {
      } else if (auto x = pkeys(arg); !x) {
        return std::unexpected(x.error());
      } else {
        r.rule.pkeys = std::move(*x);
      }
    } else if (name == "srp") {
      if (!(ok = want({"target-port-guid"}))) return ok;
      ok = guids(r.rule.destinations);
    } else if (name == "any") {
      if (crit.empty()) return error("any: needs a criterion: service-id, pkey, target-port-guid or source-port-guid");
      if (!(ok = want({"service-id", "pkey", "target-port-guid", "source-port-guid"}))) return ok;
      if (crit == "service-id") {
        auto x = ranges(arg, UINT64_MAX, crit);
        if (!x) return std::unexpected(x.error());
        r.rule.service_ids = std::move(*x);
      } else if (crit == "pkey") {
        auto x = pkeys(arg);
        if (!x) return std::unexpected(x.error());
        r.rule.pkeys = std::move(*x);
      } else {
        ok = guids(crit == "target-port-guid" ? r.rule.destinations : r.rule.sources);
      }
    } else {
      return error(fmt::format("qos-ulps: unknown ULP {} (default, sdp, rds, iser, ipoib, srp, any)", mad::quoted(name)));
    }
    if (!ok) return ok;
    Level l;  // each ulp rule has a level of its own, of its SL only
    l.name = fmt::format("qos-ulps line {}", line_);
    l.sl = static_cast<uint8_t>(*sl);
    r.rule.level = p_.levels.size();
    p_.levels.push_back(std::move(l));
    level_lines_.push_back(line_);
    ulp_rules_.push_back(std::move(r));
    return {};
  }

  mad::Result<Policy> finish() {
    const bool named_default = std::any_of(p_.levels.begin(), p_.levels.end(), [](const Level& l) {
      return l.name == "DEFAULT";
    });
    if (!named_default && ulp_default_) {  // qos-ulps' default is the DEFAULT level rules may name
      Level l;
      l.name = "DEFAULT";
      l.use = "qos-ulps default";
      l.sl = *ulp_default_;
      p_.levels.push_back(std::move(l));
      level_lines_.push_back(ulp_default_line_);
    }
    std::map<std::string, size_t> groups, levels;
    for (size_t i = 0; i < p_.groups.size(); ++i)
      if (!p_.groups[i].name.empty()) groups.emplace(p_.groups[i].name, i);
    for (size_t i = 0; i < p_.levels.size(); ++i)
      if (!p_.levels[i].name.starts_with("qos-ulps line ")) levels.emplace(p_.levels[i].name, i);
    auto resolve = [&](const std::vector<Ref>& refs, std::vector<size_t>& out) -> mad::Result<void> {
      for (const Ref& ref : refs) {
        auto at = groups.find(ref.name);
        if (at == groups.end()) return error(ref.line, fmt::format("no port-group named {}", mad::quoted(ref.name)));
        out.push_back(at->second);
      }
      return {};
    };
    for (PendingRule& r : rules_) {
      if (auto x = resolve(r.sources, r.rule.sources); !x) return std::unexpected(x.error());
      if (auto x = resolve(r.destinations, r.rule.destinations); !x) return std::unexpected(x.error());
      auto at = levels.find(r.level->name);
      if (at == levels.end()) return error(r.level->line, fmt::format("no qos-level named {}", mad::quoted(r.level->name)));
      r.rule.level = at->second;
      p_.rules.push_back(std::move(r.rule));
    }
    for (PendingRule& r : ulp_rules_) p_.rules.push_back(std::move(r.rule));  // after the full policy's
    if (auto at = levels.find("DEFAULT"); at != levels.end()) {
      p_.default_level = at->second;
    } else {
      return error(last_, "no qos-level named DEFAULT (nor a qos-ulps default): queries no rule matches need one");
    }
    return std::move(p_);
  }
};

}  // namespace

mad::Result<Policy> parse_policy(std::string_view text, std::string_view file_name) {
  return Parser(file_name).run(text);
}

mad::Result<Policy> load_policy(const std::string& path) {
  auto text = mad::read_text_file(path, "the QoS policy file");
  if (!text) return std::unexpected(text.error());
  return parse_policy(*text, path);
}

mad::Result<void> resolve_partitions(Policy& policy, const PartitionSet& partitions, std::string_view file_name) {
  for (PortGroup& g : policy.groups) {
    for (size_t i = 0; i < g.partitions.size(); ++i) {
      auto p = std::find_if(partitions.partitions.begin(), partitions.partitions.end(),
                            [&](const Partition& x) { return x.name == g.partitions[i]; });
      if (p == partitions.partitions.end())
        return mad::fail(mad::Errc::not_found, fmt::format("{}:{}: port-group {}: no partition named {} in the "
                                                           "partitions file", file_name, g.partition_lines[i],
                                                           mad::quoted(g.name), mad::quoted(g.partitions[i])));
      g.pkeys.push_back(Range{p->pkey, p->pkey});
    }
    g.partitions.clear();  // resolved: a second call adds nothing
    g.partition_lines.clear();
  }
  return {};
}

}  // namespace sm::qos
