#include "sm/partitions/mgroups.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "mad/text.h"

namespace sm {

namespace {

bool same_word(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

constexpr uint16_t kFullBit = 0x8000;

mad::Gid with_scope(const mad::Gid& g, uint8_t scope) {
  return mad::Gid((g.prefix() & ~(0xFULL << 48)) | static_cast<uint64_t>(scope) << 48, g.interface_id());
}

mad::Gid with_pkey(const mad::Gid& g, uint16_t pkey) {
  return mad::Gid((g.prefix() & ~(0xFFFFULL << 16)) | static_cast<uint64_t>(pkey) << 16, g.interface_id());
}

std::vector<uint8_t> scopes_of(uint16_t mask) {
  std::vector<uint8_t> out;
  for (uint8_t s = 1; s < 16; ++s)
    if (mask & (1u << s)) out.push_back(s);
  if (out.empty()) out.push_back(2);
  return out;
}

PartitionGroup group_of(const mad::Gid& mgid, const GroupFlags& f) {
  return PartitionGroup{mgid, f.qkey, f.mtu, f.rate, f.sl, f.tclass, f.flow_label};
}

}  // namespace

std::expected<bool, std::string> apply_group_flag(GroupFlags& flags, std::string_view name, std::string_view value) {
  struct Range {
    const char* name;
    uint64_t lo, hi;
  };
  const auto n = mad::parse_number(value);
  auto in = [&](Range r) -> std::expected<uint64_t, std::string> {
    if (!n || *n < r.lo || *n > r.hi) return std::unexpected(fmt::format("{}={} is not a number in {}..{}", r.name, value, r.lo, r.hi));
    return *n;
  };
  std::expected<uint64_t, std::string> got = 0;
  if (same_word(name, "mtu")) {
    if ((got = in({"mtu", 1, 5}))) flags.mtu = static_cast<uint8_t>(*got);
  } else if (same_word(name, "rate")) {
    if ((got = in({"rate", 2, 22}))) flags.rate = static_cast<uint8_t>(*got);
  } else if (same_word(name, "sl")) {
    if ((got = in({"sl", 0, 15}))) flags.sl = static_cast<uint8_t>(*got);
  } else if (same_word(name, "scope")) {
    if ((got = in({"scope", 1, 15}))) flags.scopes = static_cast<uint16_t>(flags.scopes | 1u << *got);
  } else if (same_word(name, "qkey") || same_word(name, "q_key")) {
    if ((got = in({"qkey", 0, 0xFFFFFFFF}))) flags.qkey = static_cast<uint32_t>(*got);
  } else if (same_word(name, "tclass")) {
    if ((got = in({"TClass", 0, 0xFF}))) flags.tclass = static_cast<uint8_t>(*got);
  } else if (same_word(name, "flowlabel")) {
    if ((got = in({"FlowLabel", 0, 0xFFFFF}))) flags.flow_label = static_cast<uint32_t>(*got);
  } else {
    return false;
  }
  if (!got) return std::unexpected(got.error());
  return true;
}

GroupFlags inherited_flags(const GroupFlags& statement) {
  GroupFlags f = statement;
  f.tclass = 0;
  return f;
}

PartitionGroup broadcast_group(uint16_t pkey, const GroupFlags& statement) {
  GroupFlags f = statement;
  if (f.qkey == 0) f.qkey = 0x0B1B;
  return group_of(mad::ipoib_broadcast_mgid(pkey, 2), f);
}

std::expected<MgidGroups, std::string> mgid_groups(std::string_view gid, uint16_t pkey, const GroupFlags& statement,
                                                   const GroupFlags& line) {
  std::array<uint8_t, 16> raw{};
  const std::string text(gid);
  if (inet_pton(AF_INET6, text.c_str(), raw.data()) != 1)
    return std::unexpected(fmt::format("mgid '{}' is not a GID (IPv6 notation: ff12:401b::1)", gid));
  mad::Gid g = mad::Gid::decode(raw);
  if (!g.is_multicast()) return std::unexpected(fmt::format("mgid {} is not a multicast GID (ff..)", g.str()));
  GroupFlags f = line;
  const uint16_t full = static_cast<uint16_t>(pkey | kFullBit);
  if (g.mc_signature() == 0x401B || g.mc_signature() == 0x601B) {
    const bool wildcard_broadcast = g == mad::ipoib_broadcast_mgid(0x7FFF, 2);
    if (!wildcard_broadcast && g.mc_pkey() != 0 && g.mc_pkey() != full)
      return std::unexpected(fmt::format("IP group {} has P_Key 0x{:04x}, not the partition's 0x{:04x} (or 0)", g.str(),
                                         g.mc_pkey(), full));
    if (f.rate != statement.rate)
      return std::unexpected(fmt::format("IP group {} has rate {}, its partition's statement {}: they must match",
                                         g.str(), f.rate, statement.rate));
    if (f.mtu != statement.mtu)
      return std::unexpected(fmt::format("IP group {} has mtu {}, its partition's statement {}: they must match",
                                         g.str(), f.mtu, statement.mtu));
    g = with_pkey(g, full);
    if (f.qkey == 0) f.qkey = 0x0B1B;
  }
  MgidGroups out{g, {}};
  for (uint8_t s : scopes_of(f.scopes)) out.groups.push_back(group_of(with_scope(g, s), f));
  return out;
}

}  // namespace sm
