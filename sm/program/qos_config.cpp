#include "sm/program/qos_config.h"

#include <fmt/format.h>

#include <charconv>

#include "mad/text.h"

namespace sm {

namespace {

// OpenSM's defaults (osm_subnet.h): VL0 alone at high priority, VL1-14 low with weight 4,
// SL n on VL n and SL15 on VL7.
constexpr std::string_view kVlarbHigh = "0:4,1:0,2:0,3:0,4:0,5:0,6:0,7:0,8:0,9:0,10:0,11:0,12:0,13:0,14:0";
constexpr std::string_view kVlarbLow = "0:0,1:4,2:4,3:4,4:4,5:4,6:4,7:4,8:4,9:4,10:4,11:4,12:4,13:4,14:4";
constexpr std::string_view kSl2vl = "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7";

std::string_view trim(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

mad::Result<unsigned> small(std::string_view item, unsigned hi, std::string_view what) {
  item = trim(item);
  unsigned v = 0;
  int base = 10;
  if (item.starts_with("0x") || item.starts_with("0X")) {
    item.remove_prefix(2);
    base = 16;
  }
  const auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), v, base);
  if (item.empty() || ec != std::errc() || p != item.data() + item.size() || v > hi)
    return mad::fail(mad::Errc::parse, fmt::format("{} is not a {} (0..{})", mad::quoted(item), what, hi));
  return v;
}

template <class F>
mad::Result<void> each_item(std::string_view text, F f) {
  size_t i = 0;
  while (i <= text.size()) {
    const size_t comma = std::min(text.find(',', i), text.size());
    if (auto r = f(text.substr(i, comma - i)); !r) return r;
    i = comma + 1;
  }
  return {};
}

}  // namespace

mad::Result<std::vector<mad::VlArbEntry>> parse_vlarb(std::string_view text) {
  std::vector<mad::VlArbEntry> out;
  auto r = each_item(trim(text), [&](std::string_view item) -> mad::Result<void> {
    const size_t colon = item.find(':');
    if (colon == std::string_view::npos)
      return mad::fail(mad::Errc::parse, fmt::format("{} is not VL:weight", mad::quoted(trim(item))));
    auto vl = small(item.substr(0, colon), 14, "data VL");
    if (!vl) return std::unexpected(vl.error());
    auto w = small(item.substr(colon + 1), 255, "weight");
    if (!w) return std::unexpected(w.error());
    if (out.size() == 64) return mad::fail(mad::Errc::parse, "more than 64 VL:weight pairs");
    out.push_back(mad::VlArbEntry{static_cast<uint8_t>(*vl), static_cast<uint8_t>(*w)});
    return {};
  });
  if (!r) return std::unexpected(r.error());
  return out;
}

mad::Result<std::array<uint8_t, 16>> parse_sl2vl(std::string_view text) {
  std::array<uint8_t, 16> out{};
  size_t n = 0;
  auto r = each_item(trim(text), [&](std::string_view item) -> mad::Result<void> {
    auto vl = small(item, 15, "VL");
    if (!vl) return std::unexpected(vl.error());
    if (n == out.size()) return mad::fail(mad::Errc::parse, "more than 16 VLs (one per SL)");
    out[n++] = static_cast<uint8_t>(*vl);
    return {};
  });
  if (!r) return std::unexpected(r.error());
  if (n != out.size()) return mad::fail(mad::Errc::parse, fmt::format("{} VLs; one per SL is 16", n));
  return out;
}

mad::Result<void> check_qos(const QosOptions& o) {
  for (const QosClassOptions* c : {&o.general, &o.ca, &o.sw0, &o.swe}) {
    for (const std::string* t : {&c->vlarb_high, &c->vlarb_low})
      if (!t->empty())
        if (auto r = parse_vlarb(*t); !r) return std::unexpected(r.error());
    if (!c->sl2vl.empty())
      if (auto r = parse_sl2vl(c->sl2vl); !r) return std::unexpected(r.error());
  }
  return {};
}

QosTables resolve_qos(const QosOptions& o, QosClass cls) {
  const QosClassOptions& c = o.of(cls);
  const QosClassOptions& g = o.general;
  QosTables t;
  t.max_vls = static_cast<unsigned>(c.max_vls > 0 ? c.max_vls : g.max_vls > 0 ? g.max_vls : 15);
  t.high_limit = static_cast<uint8_t>(c.high_limit >= 0 ? c.high_limit : g.high_limit >= 0 ? g.high_limit : 0);
  auto pick = [](const std::string& own, const std::string& general, std::string_view dflt) {
    return std::string_view(!own.empty() ? own : !general.empty() ? general : dflt);
  };
  // Checked when the configuration was read (check_qos); a default always parses.
  auto fill = [](std::array<mad::VlArbEntry, 64>& table, std::string_view text) {
    if (auto e = parse_vlarb(text)) std::copy(e->begin(), e->end(), table.begin());
  };
  fill(t.vlarb_high, pick(c.vlarb_high, g.vlarb_high, kVlarbHigh));
  fill(t.vlarb_low, pick(c.vlarb_low, g.vlarb_low, kVlarbLow));
  if (auto s = parse_sl2vl(pick(c.sl2vl, g.sl2vl, kSl2vl))) t.sl2vl = *s;
  return t;
}

uint8_t op_vls_for(unsigned max_vls) {
  if (max_vls >= 15) return 5;
  if (max_vls >= 8) return 4;
  if (max_vls >= 4) return 3;
  if (max_vls >= 2) return 2;
  return 1;
}

uint8_t vl_within(uint8_t vl, uint8_t op_vls) {
  if (vl == 15) return vl;
  const unsigned enc = op_vls == 0 ? 1 : std::min<unsigned>(op_vls, 5);
  return static_cast<uint8_t>(vl & ((1u << (enc - 1)) - 1));
}

}  // namespace sm
