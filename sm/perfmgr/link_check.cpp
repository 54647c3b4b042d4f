#include "sm/perfmgr/link_check.h"

#include <fmt/format.h>

#include <array>

namespace sm::perfmgr {

namespace {

// Width bits from narrowest to widest (1x, 2x, 4x, 8x, 12x: the bit order is not the lane order).
constexpr std::array<std::pair<uint8_t, const char*>, 5> kWidths{{
    {mad::link_width::x1, "1x"},
    {mad::link_width::x2, "2x"},
    {mad::link_width::x4, "4x"},
    {mad::link_width::x8, "8x"},
    {mad::link_width::x12, "12x"},
}};
constexpr std::array<const char*, 4> kSpeeds{"SDR", "DDR", "QDR", "?"};
constexpr std::array<const char*, 4> kExtSpeeds{"FDR", "EDR", "HDR", "NDR"};

int width_rank(uint8_t bits) {  // of the widest width in `bits`; -1: none
  for (int i = static_cast<int>(kWidths.size()) - 1; i >= 0; --i)
    if (bits & kWidths[static_cast<size_t>(i)].first) return i;
  return -1;
}
int top_bit(uint8_t bits) {
  for (int i = 3; i >= 0; --i)
    if (bits & (1u << i)) return i;
  return -1;
}
uint8_t enabled_width(const mad::PortInfo& p) {
  return p.link_width_enabled == mad::link_width::set_to_supported ? p.link_width_supported
                                                                    : p.link_width_enabled & p.link_width_supported;
}
uint8_t enabled_speed(const mad::PortInfo& p) {
  return (p.link_speed_enabled == mad::link_speed::set_to_supported ? p.link_speed_supported : p.link_speed_enabled) &
         p.link_speed_supported & 0xF;
}
uint8_t enabled_ext(const mad::PortInfo& p, bool valid) {
  if (!valid) return 0;
  if (p.link_speed_ext_enabled == mad::link_speed_ext::disable) return 0;
  return (p.link_speed_ext_enabled == mad::link_speed_ext::set_to_supported ? p.link_speed_ext_supported
                                                                              : p.link_speed_ext_enabled) &
         p.link_speed_ext_supported & 0xF;
}

}  // namespace

std::optional<std::string> degraded(const mad::PortInfo& a, bool a_ext, const mad::PortInfo& b, bool b_ext) {
  std::string what;
  const int can_w = width_rank(enabled_width(a) & enabled_width(b));
  const int is_w = width_rank(a.link_width_active);
  if (can_w >= 0 && is_w >= 0 && is_w < can_w)
    what = fmt::format("running {} of {}", kWidths[static_cast<size_t>(is_w)].second,
                       kWidths[static_cast<size_t>(can_w)].second);
  // Extended speeds, when both ends enable one, decide the speed; else the base speeds do.
  const int can_ext = top_bit(enabled_ext(a, a_ext) & enabled_ext(b, b_ext));
  const int is_ext = top_bit(a.link_speed_ext_active);
  std::string speed;
  if (can_ext >= 0) {
    if (is_ext < can_ext)
      speed = fmt::format("{} of {}",
                          is_ext >= 0 ? kExtSpeeds[static_cast<size_t>(is_ext)]
                                      : kSpeeds[static_cast<size_t>(std::max(0, std::min(3, top_bit(a.link_speed_active))))],
                          kExtSpeeds[static_cast<size_t>(can_ext)]);
  } else {
    const int can_s = top_bit(enabled_speed(a) & enabled_speed(b));
    const int is_s = top_bit(a.link_speed_active);
    if (can_s >= 0 && is_s >= 0 && is_s < can_s)
      speed = fmt::format("{} of {}", kSpeeds[static_cast<size_t>(is_s)], kSpeeds[static_cast<size_t>(can_s)]);
  }
  if (!speed.empty()) what += (what.empty() ? "running " : ", ") + speed;
  if (what.empty()) return std::nullopt;
  return what;
}

}  // namespace sm::perfmgr
