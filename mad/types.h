// Strong types for the identifiers an SM juggles. No raw network-order integers leave mad/:
// these hold host-order values and only the codecs in mad/ turn them into bytes.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <functional>
#include <string>

#include <fmt/core.h>

namespace mad {

class Guid {
 public:
  constexpr Guid() = default;
  constexpr explicit Guid(uint64_t v) : v_(v) {}
  constexpr uint64_t value() const { return v_; }
  constexpr bool is_zero() const { return v_ == 0; }
  constexpr auto operator<=>(const Guid&) const = default;
  std::string str() const { return fmt::format("0x{:016x}", v_); }

 private:
  uint64_t v_ = 0;
};

// 16-bit Local Identifier. 0 is reserved (unassigned), 1..0xBFFF unicast, 0xC000..0xFFFE
// multicast, 0xFFFF the permissive LID.
class Lid {
 public:
  static constexpr uint16_t kMaxUnicast = 0xBFFF;
  static constexpr uint16_t kPermissive = 0xFFFF;

  constexpr Lid() = default;
  constexpr explicit Lid(uint16_t v) : v_(v) {}
  constexpr uint16_t value() const { return v_; }
  constexpr bool is_unicast() const { return v_ >= 1 && v_ <= kMaxUnicast; }
  constexpr bool is_multicast() const { return v_ >= 0xC000 && v_ < kPermissive; }
  constexpr bool is_permissive() const { return v_ == kPermissive; }
  constexpr auto operator<=>(const Lid&) const = default;
  std::string str() const { return std::to_string(v_); }

 private:
  uint16_t v_ = 0;
};

inline constexpr Lid kPermissiveLid{Lid::kPermissive};

// A port number on a node: 0 is a switch's management port, 1..254 physical ports.
class PortNum {
 public:
  constexpr PortNum() = default;
  constexpr explicit PortNum(uint8_t v) : v_(v) {}
  constexpr uint8_t value() const { return v_; }
  constexpr auto operator<=>(const PortNum&) const = default;

 private:
  uint8_t v_ = 0;
};

// A directed-route path: the output port at each hop, InitialPath[1..hops] on the wire.
// IBA allows at most 63 hops (6-bit hop count).
class DrPath {
 public:
  static constexpr int kMaxHops = 63;

  constexpr DrPath() = default;
  constexpr int hops() const { return n_; }
  constexpr bool empty() const { return n_ == 0; }
  constexpr bool full() const { return n_ >= kMaxHops; }
  // The output port taken at hop i (1-based, as on the wire).
  constexpr PortNum at(int hop) const { return PortNum(p_[static_cast<size_t>(hop)]); }
  // Appends one hop; returns false (and leaves the path as it is) when it is already full.
  constexpr bool push(PortNum out) {
    if (full()) return false;
    p_[static_cast<size_t>(++n_)] = out.value();
    return true;
  }
  constexpr DrPath extended(PortNum out) const {
    DrPath d = *this;
    d.push(out);
    return d;
  }
  constexpr void pop() {
    if (n_ > 0) p_[static_cast<size_t>(n_--)] = 0;
  }
  // Shorter paths first, then lexicographic by port: a total order, used to pick one
  // canonical path to a node whatever order the answers arrived in.
  constexpr std::strong_ordering operator<=>(const DrPath& o) const {
    if (n_ != o.n_) return n_ <=> o.n_;
    for (int i = 1; i <= n_; ++i)
      if (p_[static_cast<size_t>(i)] != o.p_[static_cast<size_t>(i)])
        return p_[static_cast<size_t>(i)] <=> o.p_[static_cast<size_t>(i)];
    return std::strong_ordering::equal;
  }
  constexpr bool operator==(const DrPath& o) const { return (*this <=> o) == 0; }
  // "0" for the local node, "0,1,5" for two hops out of ports 1 then 5 (OpenSM's notation).
  std::string str() const;

 private:
  std::array<uint8_t, kMaxHops + 1> p_{};  // p_[0] unused, as InitialPath[0] on the wire
  int n_ = 0;
};

enum class NodeType : uint8_t { ca = 1, sw = 2, router = 3 };

enum class PortState : uint8_t { no_change = 0, down = 1, init = 2, armed = 3, active = 4 };

enum class PhysState : uint8_t {
  no_change = 0, sleep = 1, polling = 2, disabled = 3, training = 4, link_up = 5,
  error_recovery = 6, phy_test = 7,
};

std::string_view node_type_name(NodeType t);
std::string_view port_state_name(PortState s);
std::string_view phys_state_name(PhysState s);

}  // namespace mad

template <>
struct std::hash<mad::Guid> {
  size_t operator()(mad::Guid g) const noexcept {
    uint64_t x = g.value();  // splitmix64 finalizer: GUIDs share long vendor prefixes
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<size_t>(x ^ (x >> 31));
  }
};

// Formatting these is defined once, in types.cpp: an inline format() would instantiate fmt's
// writers in every file that prints a GUID or a LID (seconds of compile time each).
template <>
struct fmt::formatter<mad::Guid> : fmt::formatter<fmt::string_view> {
  fmt::format_context::iterator format(mad::Guid g, fmt::format_context& ctx) const;
};
template <>
struct fmt::formatter<mad::Lid> : fmt::formatter<unsigned> {
  fmt::format_context::iterator format(mad::Lid l, fmt::format_context& ctx) const;
};
template <>
struct fmt::formatter<mad::PortNum> : fmt::formatter<unsigned> {
  fmt::format_context::iterator format(mad::PortNum p, fmt::format_context& ctx) const;
};
template <>
struct fmt::formatter<mad::DrPath> : fmt::formatter<fmt::string_view> {
  fmt::format_context::iterator format(const mad::DrPath& p, fmt::format_context& ctx) const;
};
