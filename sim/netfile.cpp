// Net-file reader (the writer is netfile_write.cpp). The format, and where we differ from ibsim,
// is described in netfile.h.
//
// ibsim's rules mirrored here (ibsim/sim_net.c, 0.10):
//  - node GUIDs come from one counter per node type: CAs from 0x100000, switches from 0x200000,
//    routers from 0. A node takes the counter's value; a switch then advances it by 1, a CA or
//    router by ports + 1 (port p's GUID is node GUID + p). `xxguid=V` sets the type's base and
//    counter to V; `xxguid+V` sets the counter to base + V. Two nodes with one GUID are refused.
//  - sysimgguid= and vendid= apply to the next node only; devid=, width=, speed=, extspeed= to
//    every node declared after them.
//  - a port's enabled width/speed start from those directives and are overridden by the w=/s=/e=
//    options and then the "lid N 4xEDR" tail of its own line (not on router lines: ibsim skips
//    their tails); a link runs at the best value both ends enable, refused when they share none.
//  - `do CMD` runs an ibsim console command at load time. We ignore it: those commands act on
//    the running simulator (Dump, Route, Unlink ...), not on what the fabric is made of.
#include "sim/netfile.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "sim/netfile_text.h"

namespace sim {
namespace {

namespace fs = std::filesystem;
using netfile_text::Cursor;

constexpr int kMaxIncludeDepth = 8;  // ibsim keeps 9 files open at most
constexpr uint32_t kNone = UINT32_MAX;

// ibsim's starting GUID counters, indexed by NodeType (ca = 1, sw = 2, router = 3).
constexpr std::array<uint64_t, 4> kGuidStart = {~0ULL, 0x100000, 0x200000, 0};

size_t type_index(mad::NodeType t) { return static_cast<size_t>(t); }

struct Loc {
  uint32_t file;
  uint32_t line;
};

// What one port line says: this end of a cable. Resolved once every node is known.
struct Claim {
  uint32_t node;
  uint8_t port;
  uint8_t rport;
  std::string_view remote;  // points into a text the parser keeps alive
  Loc loc;
};

struct PortSlot {
  uint8_t width_en, speed_en, ext_en;  // enabled sets, as ibsim keeps them per port
  uint32_t claim = kNone;              // this port's own line, if it has one
};

struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

mad::Result<std::string> read_regular_file(const fs::path& path) {
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec) return mad::fail(mad::Errc::io, ec.message());
  // Only regular files: a FIFO or a device would block or never end.
  if (!fs::is_regular_file(st)) return mad::fail(mad::Errc::io, "not a regular file");
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return mad::fail(mad::Errc::io, "cannot open");
  std::string text;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  bool bad = std::ferror(f) != 0;
  std::fclose(f);
  if (bad) return mad::fail(mad::Errc::io, "read error");
  return text;
}

class Parser {
 public:
  explicit Parser(const NetfileOptions& o) : opt_(o) {}
  mad::Result<FabricSpec> run(std::string_view text, std::string_view name);

 private:
  using Void = mad::Result<void>;
  std::unexpected<mad::Error> err(Loc loc, std::string_view what) const {
    return mad::fail(mad::Errc::parse,
                     fmt::format("{}:{}: {}", file_names_[loc.file], loc.line, what));
  }
  std::string where(Loc loc) const { return fmt::format("{}:{}", file_names_[loc.file], loc.line); }

  Void parse_text(std::string_view text, uint32_t file, const fs::path& dir, int depth);
  Void parse_line(std::string_view line, Loc loc, const fs::path& dir, int depth);
  Void header(mad::NodeType type, std::string_view kw, Cursor c, Loc loc);
  Void add_node(mad::NodeType type, std::string_view name, uint8_t ports, std::string desc,
                Loc loc);
  Void port_line(Cursor c, Loc loc);
  Void port_option(std::string_view token, PortSlot& slot, Loc loc);
  Void link_tail(std::string_view comment, PortSlot& slot, Loc loc);
  Void directive(std::string_view word, Cursor c, Loc loc);
  Void include(Cursor c, Loc loc, const fs::path& dir, int depth);
  Void resolve();
  uint32_t slot_of(uint32_t node, uint8_t port) const { return port_base_[node] + port - 1u; }

  NetfileOptions opt_;
  FabricSpec spec_;
  std::vector<Loc> node_loc_;
  std::vector<uint32_t> port_base_;  // node -> its port 1 in ports_
  std::vector<PortSlot> ports_;
  std::vector<Claim> claims_;        // in file order
  std::unordered_map<std::string, uint32_t, NameHash, std::equal_to<>> by_name_;
  std::unordered_map<uint64_t, uint32_t> by_guid_;
  std::vector<std::string> file_names_;
  std::deque<std::string> texts_;    // included files: claims point into them
  std::vector<fs::path> open_files_; // the include chain, for loop detection
  int64_t record_ = -1;              // node whose port lines may follow

  // ibsim's parse state.
  std::array<uint64_t, 4> guid_base_ = kGuidStart, guid_next_ = kGuidStart;
  uint64_t sysimgguid_ = 0;
  uint32_t vendid_ = 0;
  uint16_t devid_ = 0;
  uint8_t width_en_ = netfile_text::kWidthEnDefault;
  uint8_t speed_en_ = netfile_text::kSpeedEnDefault;
  uint8_t ext_en_ = netfile_text::kExtEnDefault;
};

mad::Result<FabricSpec> Parser::run(std::string_view text, std::string_view name) {
  file_names_.emplace_back(name);
  fs::path path(name);
  std::error_code ec;
  fs::path canon = fs::weakly_canonical(path, ec);
  open_files_.push_back(ec ? path : canon);
  // Rough sizes from the shared files (~36 bytes a port line, ~10 port lines a node) spare
  // most of the rehashing and regrowth on big files.
  claims_.reserve(text.size() / 36);
  by_name_.reserve(text.size() / 360);
  if (auto r = parse_text(text, 0, path.parent_path(), 0); !r) return std::unexpected(r.error());
  if (spec_.nodes.empty())
    return mad::fail(mad::Errc::parse, fmt::format("{}:1: no nodes in the file", name));
  if (auto r = resolve(); !r) return std::unexpected(r.error());
  canonicalise_links(spec_);
  return std::move(spec_);
}

Parser::Void Parser::parse_text(std::string_view text, uint32_t file, const fs::path& dir,
                                int depth) {
  uint32_t lineno = 0;
  size_t pos = 0;
  record_ = -1;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (auto r = parse_line(line, Loc{file, ++lineno}, dir, depth); !r) return r;
  }
  record_ = -1;  // a record does not continue past the end of its file
  return {};
}

Parser::Void Parser::parse_line(std::string_view line, Loc loc, const fs::path& dir, int depth) {
  Cursor c(line);
  c.skip_ws();
  if (c.done()) {  // blank: ends the record
    record_ = -1;
    return {};
  }
  if (c.peek() == '#') return {};  // comments do not end a record (as in ibsim)
  if (c.peek() == '[') {
    if (record_ < 0) return err(loc, "port line outside a node record (after a blank line?)");
    return port_line(c, loc);
  }
  record_ = -1;
  if (c.peek() == '@') return err(loc, "ibsim port aliases ('@[p] \"alias\"') are not supported");
  std::string_view word = c.word();
  if (word.empty())
    return err(loc, fmt::format("unrecognised line '{}'", netfile_text::clip(c.rest())));
  if (word == "Switch") return header(mad::NodeType::sw, word, c, loc);
  if (word == "Hca" || word == "Ca") return header(mad::NodeType::ca, word, c, loc);
  if (word == "Rt") return header(mad::NodeType::router, word, c, loc);
  if (word == "include") return include(c, loc, dir, depth);
  if (word == "module")
    return err(loc, "ibsim modules (module=\"prefix\") are not supported");
  return directive(word, c, loc);
}

Parser::Void Parser::header(mad::NodeType type, std::string_view kw, Cursor c, Loc loc) {
  c.skip_ws();
  uint64_t count = 0;
  if (!c.cnum(count))
    return err(loc, fmt::format("expected a port count (1..254) after '{}'", kw));
  if (count == 0 || count > 254)
    return err(loc, fmt::format("bad port count {} (a node has 1..254 ports)", count));
  c.skip_ws();
  if (!c.eat('"')) return err(loc, "expected a quoted node id after the port count");
  std::string_view name = c.until('"');
  if (!c.eat('"')) return err(loc, "unterminated node id (no closing '\"')");
  c.skip_ws();
  std::string desc;
  if (!c.done()) {
    if (!c.eat('#'))
      return err(loc, fmt::format("unexpected '{}' after the node id", netfile_text::clip(c.rest())));
    desc = netfile_text::header_description(c.rest());
  }
  return add_node(type, name, static_cast<uint8_t>(count), std::move(desc), loc);
}

Parser::Void Parser::add_node(mad::NodeType type, std::string_view name, uint8_t ports,
                              std::string desc, Loc loc) {
  if (name.empty()) return err(loc, "empty node id");
  if (name.find_first_of("#@") != std::string_view::npos)
    return err(loc, fmt::format("node id \"{}\": '#' and '@' are reserved (ibsim)", name));
  auto [it, fresh] = by_name_.try_emplace(std::string(name), static_cast<uint32_t>(spec_.nodes.size()));
  if (!fresh)
    return err(loc, fmt::format("duplicate node id \"{}\" (first declared at {})", name,
                                where(node_loc_[it->second])));
  size_t t = type_index(type);
  uint64_t guid = guid_next_[t];
  if (guid == 0)
    return err(loc, fmt::format("router \"{}\" would get node GUID 0 (ibsim's router GUIDs start "
                                "at 0, which InfiniBand forbids): put rtguid=0x... before it",
                                name));
  auto [g, unused] = by_guid_.try_emplace(guid, static_cast<uint32_t>(spec_.nodes.size()));
  if (!unused)
    return err(loc, fmt::format("node GUID {:#x} of \"{}\" is already \"{}\"'s (check the "
                                "*guid= lines)", guid, name, spec_.nodes[g->second].name));
  SpecNode n;
  n.type = type;
  n.name = std::string(name);
  n.description = std::move(desc);
  n.num_ports = ports;
  n.node_guid = mad::Guid(guid);
  n.system_guid = mad::Guid(sysimgguid_ ? sysimgguid_ : guid);
  n.vendor_id = vendid_;
  n.device_id = devid_;
  guid_next_[t] += type == mad::NodeType::sw ? 1u : ports + 1u;
  sysimgguid_ = 0;
  vendid_ = 0;
  record_ = static_cast<int64_t>(spec_.nodes.size());
  spec_.nodes.push_back(std::move(n));
  node_loc_.push_back(loc);
  port_base_.push_back(static_cast<uint32_t>(ports_.size()));
  ports_.resize(ports_.size() + ports, PortSlot{width_en_, speed_en_, ext_en_});
  return {};
}

// [p](guid) "remote"[q](guid)  w=N s=N e=N  # ... lid N 4xEDR
Parser::Void Parser::port_line(Cursor c, Loc loc) {
  auto node = static_cast<uint32_t>(record_);
  const SpecNode& n = spec_.nodes[node];
  uint64_t p = 0;
  c.eat('[');
  if (!c.dec(p) || !c.eat(']')) return err(loc, "bad port line: expected '[port]'");
  if (p == 0) return err(loc, "port 0 cannot be cabled (ports are 1..N)");
  if (p > n.num_ports)
    return err(loc, fmt::format("port {} beyond the {} ports of \"{}\"", p, n.num_ports, n.name));
  if (!c.ext_port() || !c.guid_suffix()) return err(loc, "bad port line after '[port]'");
  c.skip_ws();
  if (!c.eat('"')) return err(loc, "bad port line: expected the quoted remote node id");
  std::string_view remote = c.until('"');
  if (!c.eat('"')) return err(loc, "unterminated remote node id (no closing '\"')");
  if (remote.empty()) return err(loc, "empty remote node id");
  uint64_t q = 1;  // ibsim's default when the remote port is left out
  if (c.eat('[')) {
    if (!c.dec(q) || !c.eat(']')) return err(loc, "bad remote port: expected '[port]'");
    if (q == 0 || q > 254) return err(loc, fmt::format("bad remote port {} (ports are 1..254)", q));
  }
  if (!c.ext_port() || !c.guid_suffix()) return err(loc, "bad port line after the remote port");

  PortSlot& slot = ports_[slot_of(node, static_cast<uint8_t>(p))];
  for (;;) {
    c.skip_ws();
    if (c.done() || c.peek() == '#') break;
    if (auto r = port_option(c.token(), slot, loc); !r) return r;
  }
  // ibsim reads the "lid N 4xEDR" tail on switch and CA lines only; routers take options.
  if (c.eat('#') && n.type != mad::NodeType::router)
    if (auto r = link_tail(c.rest(), slot, loc); !r) return r;

  Claim claim{node, static_cast<uint8_t>(p), static_cast<uint8_t>(q), remote, loc};
  if (slot.claim != kNone) {
    const Claim& first = claims_[slot.claim];
    if (first.remote == remote && first.rport == q) return {};  // listed twice, same cable
    return err(loc, fmt::format("port {} of \"{}\" cabled twice: to \"{}\"[{}] here and to "
                                "\"{}\"[{}] at {}", p, n.name, remote, q, first.remote,
                                first.rport, where(first.loc)));
  }
  slot.claim = static_cast<uint32_t>(claims_.size());
  claims_.push_back(claim);
  return {};
}

// ibsim's per-port options: w= (enabled width set), s= (speed set, 0 = QDR), e= (ext speeds).
Parser::Void Parser::port_option(std::string_view token, PortSlot& slot, Loc loc) {
  Cursor c(token);
  std::string_view key = c.word();
  uint64_t v = 0;
  if (key.empty() || !c.eat('=') || !c.cnum(v) || !c.done())
    return err(loc, fmt::format("unexpected '{}' on a port line", netfile_text::clip(token)));
  if (key == "w" && v >= 1 && v <= 31) slot.width_en = static_cast<uint8_t>(v);
  else if (key == "s" && v <= 7) slot.speed_en = static_cast<uint8_t>(v ? v : speed::qdr);
  else if (key == "e" && v <= 15) slot.ext_en = static_cast<uint8_t>(v);
  else return err(loc, fmt::format("bad port option '{}' (w=1..31, s=0..7, e=0..15)", token));
  return {};
}

// The "lid N 4xEDR" that ibnetdiscover puts at the end: the first "lid" after the last quote.
Parser::Void Parser::link_tail(std::string_view comment, PortSlot& slot, Loc loc) {
  auto link = netfile_text::find_link_tail(comment);
  if (!link) return {};  // no tail: the port keeps its enabled sets
  auto w = netfile_text::width_by_lanes(link->lanes);
  if (!w) return err(loc, fmt::format("unknown link width '{}x'", link->lanes));
  auto s = netfile_text::speed_by_name(link->speed);
  if (!s) return err(loc, fmt::format("unknown link speed '{}'", netfile_text::clip(link->speed)));
  slot.width_en = w->enabled;
  slot.speed_en = s->speed_en;
  if (s->ext_en >= 0) slot.ext_en = static_cast<uint8_t>(s->ext_en);
  return {};
}

Parser::Void Parser::directive(std::string_view word, Cursor c, Loc loc) {
  if (word == "do" || word == "pdebug") return {};  // see the top of this file
  int guid_type = -1;
  if (word == "switchguid") guid_type = static_cast<int>(mad::NodeType::sw);
  else if (word == "caguid" || word == "caguids" || word == "hcaguid" || word == "hcaguids")
    guid_type = static_cast<int>(mad::NodeType::ca);
  else if (word == "rtguid") guid_type = static_cast<int>(mad::NodeType::router);
  static constexpr std::string_view kValued[] = {"vendid", "devid", "sysimgguid", "width",
                                                 "speed", "extspeed"};
  if (guid_type < 0 && std::find(std::begin(kValued), std::end(kValued), word) == std::end(kValued))
    return {};  // ibsim ignores lines it does not know (ibnetdiscover's extras)

  // NAME=VALUE (NAME+VALUE for GUID bases), VALUE as strtoul(.., 0) reads it.
  c.skip_ws();
  char op = c.peek();
  uint64_t v = 0;
  bool ok = c.eat('=') || (guid_type >= 0 && c.eat('+'));
  c.skip_ws();
  ok = ok && c.cnum(v);
  if (ok && guid_type >= 0) ok = c.guid_suffix();  // switchguid=0x...(portguid)
  c.skip_ws();
  ok = ok && (c.done() || c.peek() == '#');
  if (!ok) return err(loc, fmt::format("bad value in '{}'", netfile_text::clip(c.whole())));
  auto range = [&](uint64_t lo, uint64_t hi) -> Void {
    if (v >= lo && v <= hi) return {};
    return err(loc, fmt::format("{} {:#x} out of range ({:#x}..{:#x})", word, v, lo, hi));
  };
  if (guid_type >= 0) {
    auto t = static_cast<size_t>(guid_type);
    if (op == '=') guid_base_[t] = v;
    guid_next_[t] = op == '=' ? v : guid_base_[t] + v;
  } else if (word == "vendid") {
    if (auto r = range(0, 0xFFFFFF); !r) return r;
    vendid_ = static_cast<uint32_t>(v);
  } else if (word == "devid") {
    if (auto r = range(0, 0xFFFF); !r) return r;
    devid_ = static_cast<uint16_t>(v);
  } else if (word == "sysimgguid") {
    sysimgguid_ = v;
  } else if (word == "width") {
    if (auto r = range(1, 31); !r) return r;
    width_en_ = static_cast<uint8_t>(v);
  } else if (word == "speed") {
    if (auto r = range(1, 7); !r) return r;
    speed_en_ = static_cast<uint8_t>(v);
  } else {  // extspeed
    if (auto r = range(0, 15); !r) return r;
    ext_en_ = static_cast<uint8_t>(v);
  }
  return {};
}

// include FILE or include "FILE": relative to the including file's directory.
Parser::Void Parser::include(Cursor c, Loc loc, const fs::path& dir, int depth) {
  if (!opt_.allow_include) return err(loc, "include is not allowed here");
  c.skip_ws();
  std::string_view fname;
  if (c.eat('"')) {
    fname = c.until('"');
    if (!c.eat('"')) return err(loc, "unterminated include file name");
  } else {
    fname = c.token();
  }
  c.skip_ws();
  if (!c.done() && c.peek() != '#')
    return err(loc, fmt::format("unexpected '{}' after the include file name",
                                netfile_text::clip(c.rest())));
  if (fname.empty()) return err(loc, "include needs a file name");
  if (depth >= kMaxIncludeDepth)
    return err(loc, fmt::format("includes nested deeper than {}", kMaxIncludeDepth));
  fs::path path(fname);
  if (path.is_relative()) path = dir / path;
  std::error_code ec;
  fs::path canon = fs::weakly_canonical(path, ec);
  if (ec) canon = path.lexically_normal();
  if (std::find(open_files_.begin(), open_files_.end(), canon) != open_files_.end())
    return err(loc, fmt::format("include loop: \"{}\" is already being read", path.string()));
  auto text = read_regular_file(path);
  if (!text)
    return err(loc, fmt::format("cannot include \"{}\": {}", path.string(), text.error().message));
  texts_.push_back(std::move(*text));
  auto file = static_cast<uint32_t>(file_names_.size());
  file_names_.push_back(path.string());
  open_files_.push_back(canon);
  auto r = parse_text(texts_.back(), file, path.parent_path(), depth + 1);
  open_files_.pop_back();
  return r;
}

// Turns the claims into links, in file order, checking that both ends agree.
Parser::Void Parser::resolve() {
  std::vector<uint32_t> peer(ports_.size(), kNone);
  std::vector<uint32_t> via(ports_.size(), kNone);  // the claim that made the link
  spec_.links.reserve(claims_.size() / 2 + 16);
  for (uint32_t ci = 0; ci < claims_.size(); ++ci) {
    const Claim& c = claims_[ci];
    const SpecNode& n = spec_.nodes[c.node];
    auto it = by_name_.find(c.remote);
    if (it == by_name_.end()) return err(c.loc, fmt::format("unknown node \"{}\"", c.remote));
    uint32_t r = it->second;
    const SpecNode& rn = spec_.nodes[r];
    if (c.rport > rn.num_ports)
      return err(c.loc, fmt::format("remote port {} beyond the {} ports of \"{}\"", c.rport,
                                    rn.num_ports, rn.name));
    uint32_t a = slot_of(c.node, c.port), b = slot_of(r, c.rport);
    if (a == b) return err(c.loc, fmt::format("port {} of \"{}\" cabled to itself", c.port, n.name));
    if (peer[a] == b) continue;  // the other end's line came first
    if (uint32_t back = ports_[b].claim; back != kNone) {
      const Claim& o = claims_[back];
      if (o.remote != n.name || o.rport != c.port)
        return err(c.loc, fmt::format("\"{}\"[{}] -> \"{}\"[{}] disagrees with the other end: "
                                      "\"{}\"[{}] -> \"{}\"[{}] at {}", n.name, c.port, rn.name,
                                      c.rport, rn.name, c.rport, o.remote, o.rport, where(o.loc)));
    }
    if (peer[a] != kNone || peer[b] != kNone) {
      uint32_t taken = peer[a] != kNone ? a : b;
      const Claim& o = claims_[via[taken]];
      return err(c.loc, fmt::format("port {} of \"{}\" cabled twice: \"{}\"[{}] -> \"{}\"[{}] "
                                    "at {} already uses it", taken == a ? c.port : c.rport,
                                    taken == a ? n.name : rn.name, spec_.nodes[o.node].name,
                                    o.port, o.remote, o.rport, where(o.loc)));
    }
    const PortSlot &pa = ports_[a], &pb = ports_[b];
    uint8_t w = netfile_text::best_width(pa.width_en & pb.width_en);
    uint8_t s = netfile_text::best_speed(pa.speed_en & pb.speed_en);
    if (w == 0 || s == 0)
      return err(c.loc, fmt::format("\"{}\"[{}] and \"{}\"[{}] enable no common link {}", n.name,
                                    c.port, rn.name, c.rport, w == 0 ? "width" : "speed"));
    peer[a] = b;
    peer[b] = a;
    via[a] = via[b] = ci;
    spec_.links.push_back(SpecLink{c.node, c.port, r, c.rport, w, s,
                                   netfile_text::best_ext(pa.ext_en & pb.ext_en)});
  }
  return {};
}

}  // namespace

mad::Result<FabricSpec> parse_netfile(std::string_view text, std::string_view name,
                                      const NetfileOptions& options) {
  return Parser(options).run(text, name);
}

mad::Result<FabricSpec> load_netfile(const std::string& path, const NetfileOptions& options) {
  auto text = read_regular_file(path);
  if (!text)
    return mad::fail(mad::Errc::io, fmt::format("{}: {}", path, text.error().message));
  return parse_netfile(*text, path, options);
}

}  // namespace sim
