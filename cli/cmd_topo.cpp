// fabricsm topo: generate, check and convert net files (sim/netfile.h, sim/generators.h).
// Boost.Program_options reports errors by throwing; everything is caught in this file.
#include <fcntl.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "sim/generators.h"
#include "sim/netfile.h"
#include "cli/commands.h"

namespace cli {
namespace {

namespace po = boost::program_options;

constexpr int kExitFail = 1;   // the input is bad or the output cannot be written

struct Sub {
  std::string_view name;
  std::string_view args;     // usage after the name
  std::string_view summary;
  int (*run)(const std::string& prog, int argc, char** argv);
};

// Options every generator takes.
struct Common {
  std::string output;
  double drop = 0;
  uint64_t seed = 1;
};

void add_output(po::options_description& d, Common& c) {
  d.add_options()("output,o", po::value(&c.output), "write to FILE instead of stdout");
}
void add_drop(po::options_description& d, Common& c) {
  d.add_options()("drop-links", po::value(&c.drop)->default_value(0.0),
                  "remove this fraction (0..1) of the switch-to-switch links")(
      "seed", po::value(&c.seed)->default_value(1), "seed for --drop-links");
}

// Parses the options; nullopt to go on, or the exit status (after --help or an error).
std::optional<int> parse(const std::string& prog, std::string_view args, int argc, char** argv,
                         po::options_description& desc,
                         const po::positional_options_description* pos = nullptr) {
  desc.add_options()("help,h", "show this help");
  po::variables_map vm;
  try {
    po::command_line_parser p(argc, argv);
    p.options(desc);
    if (pos) p.positional(*pos);
    po::store(p.run(), vm);
    if (vm.count("help")) {
      std::ostringstream s;
      s << desc;
      fmt::print("usage: {} {}\n\n{}", prog, args, s.str());
      return 0;
    }
    po::notify(vm);
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: {}\nusage: {} {}   ({} --help)\n", prog, e.what(), prog, args, prog);
    return kExitUsage;
  }
  return std::nullopt;
}

// Writes `text` to stdout, or to `path` through a temporary file, fsync and rename, so a reader
// never sees half a file.
int emit(const std::string& prog, const std::string& text, const std::string& path) {
  if (path.empty() || path == "-") {
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout)) {
      fmt::print(stderr, "{}: cannot write to stdout: {}\n", prog, std::strerror(errno));
      return kExitFail;
    }
    return 0;
  }
  std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  bool ok = fd >= 0;
  for (size_t off = 0; ok && off < text.size();) {
    ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) off += static_cast<size_t>(n);
  }
  ok = ok && ::fsync(fd) == 0;
  int saved = errno;
  if (fd >= 0) ::close(fd);
  ok = ok && ::rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok) {
    if (!saved) saved = errno;
    ::unlink(tmp.c_str());
    fmt::print(stderr, "{}: cannot write {}: {}\n", prog, path, std::strerror(saved ? saved : errno));
    return kExitFail;
  }
  return 0;
}

// Finishes a generator command: degrade if asked, write the file.
int finish(const std::string& prog, mad::Result<sim::FabricSpec> spec, const Common& c) {
  if (!spec) {
    fmt::print(stderr, "fabricsm topo: {}\n", spec.error().message);
    return kExitUsage;
  }
  if (c.drop != 0) {  // drop_switch_links refuses what is outside 0..1
    if (auto r = sim::drop_switch_links(*spec, c.drop, c.seed); !r) {
      fmt::print(stderr, "{}: --drop-links: {}\n", prog, r.error().message);
      return kExitUsage;
    }
  }
  return emit(prog, sim::write_netfile(*spec), c.output);
}

// "4,4,8" -> {4, 4, 8}
std::optional<std::vector<uint32_t>> number_list(std::string_view s) {
  std::vector<uint32_t> out;
  while (!s.empty()) {
    size_t comma = s.find(',');
    std::string_view item = s.substr(0, comma);
    uint64_t v = 0;
    if (item.empty() || item.size() > 9) return std::nullopt;
    for (char ch : item) {
      if (ch < '0' || ch > '9') return std::nullopt;
      v = v * 10 + static_cast<uint64_t>(ch - '0');
    }
    out.push_back(static_cast<uint32_t>(v));
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
    if (s.empty()) return std::nullopt;  // trailing comma
  }
  return out;
}

// "4x4x2" -> {4, 4, 2}, or nullopt after saying what is wrong.
std::optional<std::vector<uint32_t>> dims_list(const std::string& prog, std::string list) {
  for (char& ch : list)
    if (ch == 'x' || ch == 'X') ch = ',';
  auto l = number_list(list);
  if (!l) fmt::print(stderr, "{}: --dims takes sizes like 4x4 or 4x4x4\n", prog);
  return l;
}

int run_fat_tree(const std::string& prog, int argc, char** argv) {
  constexpr std::string_view kArgs = "--levels L --radix K [--drop-links F --seed N] [-o FILE]";
  uint32_t levels = 0, radix = 0;
  Common c;
  po::options_description d("options");
  d.add_options()("levels", po::value(&levels)->required(), "levels of switches, 2..4")(
      "radix", po::value(&radix)->required(), "ports per switch, even (k-ary tree: k/2 down, k/2 up)");
  add_drop(d, c);
  add_output(d, c);
  if (auto r = parse(prog, kArgs, argc, argv, d)) return *r;
  return finish(prog, sim::make_fat_tree(levels, radix), c);
}

int run_two_level(const std::string& prog, int argc, char** argv) {
  constexpr std::string_view kArgs =
      "--leaves N --spines N --radix K --cas-per-leaf N [--drop-links F --seed N] [-o FILE]";
  sim::TwoLevelParams t;
  Common c;
  po::options_description d("options");
  d.add_options()("leaves", po::value(&t.leaves)->required(), "leaf switches")(
      "spines", po::value(&t.spines)->required(), "spine switches")(
      "radix", po::value(&t.radix)->required(), "ports per switch")(
      "cas-per-leaf", po::value(&t.cas_per_leaf)->required(), "CAs on each leaf");
  add_drop(d, c);
  add_output(d, c);
  if (auto r = parse(prog, kArgs, argc, argv, d)) return *r;
  return finish(prog, sim::make_two_level(t), c);
}

int run_pgft(const std::string& prog, int argc, char** argv) {
  constexpr std::string_view kArgs =
      "--h H --m M1,..,MH --w W1,..,WH [--p P1,..,PH] [--radix K] [--drop-links F --seed N] "
      "[-o FILE]";
  uint32_t h = 0;
  std::string m, w, p;
  sim::PgftParams params;
  Common c;
  po::options_description d(
      "PGFT(h; m; w; p): level 0 = CAs; m_l children per level-l switch, w_l parents per "
      "level-(l-1) node, p_l parallel cables to each parent (see sim/generators.h)\noptions");
  d.add_options()("h", po::value(&h)->required(), "levels of switches")(
      "m", po::value(&m)->required(), "children per switch, per level: m1,..,mh")(
      "w", po::value(&w)->required(), "parents per node, per level: w1,..,wh")(
      "p", po::value(&p), "parallel cables, per level: p1,..,ph (default all 1)")(
      "radix", po::value(&params.radix)->default_value(0), "ports per switch (0 = as needed)");
  add_drop(d, c);
  add_output(d, c);
  if (auto r = parse(prog, kArgs, argc, argv, d)) return *r;
  auto lm = number_list(m), lw = number_list(w), lp = number_list(p);
  if (!lm || !lw || !lp) {
    fmt::print(stderr, "{}: --m, --w and --p take comma-separated numbers\n", prog);
    return kExitUsage;
  }
  if (lm->size() != h || lw->size() != h || (!lp->empty() && lp->size() != h)) {
    fmt::print(stderr, "{}: --h {} needs {} values in each of --m, --w (and --p)\n", prog, h, h);
    return kExitUsage;
  }
  params.m = *lm;
  params.w = *lw;
  params.p = *lp;
  return finish(prog, sim::make_pgft(params), c);
}

int run_torus(const std::string& prog, int argc, char** argv) {
  constexpr std::string_view kArgs =
      "--dims XxY[xZ] [--mesh] [--cas-per-switch N] [--ports N] [--drop-links F --seed N] "
      "[-o FILE]";
  std::string dims;
  sim::TorusParams t;
  Common c;
  po::options_description d("options");
  d.add_options()("dims", po::value(&dims)->required(), "switches per dimension, e.g. 4x4 or 4x4x4")(
      "mesh", po::bool_switch(&t.mesh), "no wrap-around cables")(
      "cas-per-switch", po::value(&t.cas_per_switch)->default_value(1), "CAs on each switch")(
      "ports", po::value(&t.ports)->default_value(0), "ports per switch (0 = as needed)");
  add_drop(d, c);
  add_output(d, c);
  if (auto r = parse(prog, kArgs, argc, argv, d)) return *r;
  auto l = dims_list(prog, dims);
  if (!l) return kExitUsage;
  t.dims = *l;
  return finish(prog, sim::make_torus(t), c);
}

int run_hyperx(const std::string& prog, int argc, char** argv) {
  constexpr std::string_view kArgs =
      "--dims XxY[xZ] [--trunk K] [--cas-per-switch N] [--ports N] [--drop-links F --seed N] "
      "[-o FILE]";
  std::string dims;
  sim::HyperXParams x;
  Common c;
  po::options_description d("HyperX: every switch cabled to every switch that differs in one "
                            "coordinate (see sim/generators.h for the ports)\noptions");
  d.add_options()("dims", po::value(&dims)->required(), "switches per dimension, e.g. 4x4 or 4x4x4")(
      "trunk", po::value(&x.trunk)->default_value(1), "parallel cables between two switches")(
      "cas-per-switch", po::value(&x.cas_per_switch)->default_value(1), "CAs on each switch")(
      "ports", po::value(&x.ports)->default_value(0), "ports per switch (0 = as needed)");
  add_drop(d, c);
  add_output(d, c);
  if (auto r = parse(prog, kArgs, argc, argv, d)) return *r;
  auto l = dims_list(prog, dims);
  if (!l) return kExitUsage;
  x.dims = *l;
  return finish(prog, sim::make_hyperx(x), c);
}

int run_dragonfly(const std::string& prog, int argc, char** argv) {
  constexpr std::string_view kArgs =
      "--p N --a N --h N [--groups G] [--plus [--spines N]] [--drop-links F --seed N] [-o FILE]";
  sim::DragonflyParams f;
  Common c;
  po::options_description d(
      "Dragonfly: groups of a fully connected routers with p CAs and h global cables each; "
      "--plus: Dragonfly+, each group a leaf/spine tree, global cables on the spines (see "
      "sim/generators.h)\noptions");
  d.add_options()("p", po::value(&f.p)->required(), "CAs per router (per leaf with --plus)")(
      "a", po::value(&f.a)->required(), "routers per group (leaves with --plus)")(
      "h", po::value(&f.h)->required(), "global cables per router (per spine with --plus)")(
      "groups", po::value(&f.groups)->default_value(0), "groups, 2..a*h+1 (0 = a*h+1, the most)")(
      "plus", po::bool_switch(&f.plus), "Dragonfly+")(
      "spines", po::value(&f.spines)->default_value(0), "--plus: spines per group (0 = a)");
  add_drop(d, c);
  add_output(d, c);
  if (auto r = parse(prog, kArgs, argc, argv, d)) return *r;
  return finish(prog, sim::make_dragonfly(f), c);
}

int run_random(const std::string& prog, int argc, char** argv) {
  constexpr std::string_view kArgs =
      "--switches N --ports N [--cas-per-switch N] [--degree N] [--seed N] [-o FILE]";
  sim::RandomParams r;
  Common c;
  po::options_description d("options");
  d.add_options()("switches", po::value(&r.switches)->required(), "switches")(
      "ports", po::value(&r.ports)->required(), "ports per switch")(
      "cas-per-switch", po::value(&r.cas_per_switch)->default_value(1), "CAs on each switch")(
      "degree", po::value(&r.degree)->default_value(0),
      "switch-to-switch cables per switch at most (0 = all free ports)")(
      "seed", po::value(&r.seed)->default_value(1), "seed of the random graph");
  add_output(d, c);
  if (auto res = parse(prog, kArgs, argc, argv, d)) return *res;
  return finish(prog, sim::make_random(r), c);
}

// FILE, or standard input for "-".
mad::Result<sim::FabricSpec> load(const std::string& file) {
  if (file != "-") return sim::load_netfile(file);
  std::string text;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) text.append(buf, n);
  if (std::ferror(stdin)) return mad::fail(mad::Errc::io, "<stdin>: read error");
  return sim::parse_netfile(text, "<stdin>");
}

int run_check(const std::string& prog, int argc, char** argv) {
  constexpr std::string_view kArgs = "FILE [--guids]";
  std::string file;
  bool guids = false;
  po::options_description d("options");
  d.add_options()("file", po::value(&file)->required(), "the net file (- for stdin)")(
      "guids", po::bool_switch(&guids), "then list every node as: GUID name");
  po::positional_options_description pos;
  pos.add("file", 1);
  if (auto r = parse(prog, kArgs, argc, argv, d, &pos)) return *r;
  auto spec = load(file);
  if (!spec) {
    fmt::print(stderr, "{}\n", spec.error().message);
    return kExitFail;
  }
  sim::SpecCounts n = sim::count_spec(*spec);
  fmt::print("{}: {} switches, {} CAs, {} routers, {} links ({} switch-to-switch), {}\n", file,
             n.switches, n.cas, n.routers, n.links, n.switch_links,
             n.components == 1 ? std::string("connected")
                               : fmt::format("{} separate subnets", n.components));
  if (guids)
    for (const sim::SpecNode& node : spec->nodes) fmt::print("{:#x} {}\n", node.node_guid.value(), node.name);
  return 0;
}

int run_convert(const std::string& prog, int argc, char** argv) {
  constexpr std::string_view kArgs = "FILE [-o FILE]";
  std::string file;
  Common c;
  po::options_description d("options");
  d.add_options()("file", po::value(&file)->required(), "the net file to rewrite (- for stdin)");
  add_output(d, c);
  po::positional_options_description pos;
  pos.add("file", 1);
  if (auto r = parse(prog, kArgs, argc, argv, d, &pos)) return *r;
  auto spec = load(file);
  if (!spec) {
    fmt::print(stderr, "{}\n", spec.error().message);
    return kExitFail;
  }
  return emit(prog, sim::write_netfile(*spec), c.output);
}

constexpr Sub kSubs[] = {
    {"fat-tree", "--levels L --radix K [--drop-links F --seed N] [-o FILE]",
     "k-ary n-level fat tree from radix-K switches", run_fat_tree},
    {"two-level", "--leaves N --spines N --radix K --cas-per-leaf N [-o FILE]",
     "two-level leaf/spine fat tree", run_two_level},
    {"pgft", "--h H --m LIST --w LIST [--p LIST] [--radix K] [-o FILE]",
     "general XGFT/PGFT fat tree", run_pgft},
    {"torus", "--dims 4x4[x4] [--mesh] [--cas-per-switch N] [--ports N] [-o FILE]",
     "2D/3D torus or mesh of switches", run_torus},
    {"hyperx", "--dims 4x4[x4] [--trunk K] [--cas-per-switch N] [--ports N] [-o FILE]",
     "2D/3D HyperX (each dimension fully connected)", run_hyperx},
    {"dragonfly", "--p N --a N --h N [--groups G] [--plus [--spines N]] [-o FILE]",
     "Dragonfly or Dragonfly+ (leaf/spine groups)", run_dragonfly},
    {"random", "--switches N --ports N [--cas-per-switch N] [--degree N] [--seed N] [-o FILE]",
     "connected random irregular switch graph", run_random},
    {"check", "FILE [--guids]", "parse a net file and print its counts, or the file:line error", run_check},
    {"convert", "FILE [-o FILE]", "rewrite a net file in the normal layout", run_convert},
};

void topo_usage(std::FILE* out) {
  fmt::print(out, "usage: fabricsm topo <command> [options]   (fabricsm topo <command> --help)\n"
                  "Net files (ibnetdiscover/ibsim format) go to stdout unless -o FILE.\n\n");
  for (const Sub& s : kSubs) fmt::print(out, "  {:<10} {}\n  {:<10}   {}\n", s.name, s.summary, "", s.args);
}

}  // namespace

int cmd_topo(int argc, char** argv) {
  if (argc < 2) {
    topo_usage(stderr);
    return kExitUsage;
  }
  std::string_view name = argv[1];
  if (name == "-h" || name == "--help" || name == "help") {
    topo_usage(stdout);
    return 0;
  }
  for (const Sub& s : kSubs) {
    if (s.name != name) continue;
    std::string prog = fmt::format("fabricsm topo {}", name);
    std::vector<char*> args(argv + 1, argv + argc);
    args[0] = prog.data();
    try {
      return s.run(prog, static_cast<int>(args.size()), args.data());
    } catch (const std::exception& e) {  // bad_alloc and the like: nothing may escape
      fmt::print(stderr, "{}: {}\n", prog, e.what());
      return kExitFail;
    }
  }
  fmt::print(stderr, "fabricsm topo: unknown command '{}'\n", name);
  topo_usage(stderr);
  return kExitUsage;
}

}  // namespace cli
