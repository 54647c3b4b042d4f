// Whether two ports share a partition, from the P_Keys they hold (IBA 10.9.1, 15.2.5.16): they
// do when both hold the P_Key (its low 15 bits) and at least one of them as a full member; two
// limited members of a partition cannot talk. Pure functions over small sorted sets, so the SA
// decides a PathRecord's P_Key without decoding tables per query.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace sm {

inline constexpr uint16_t kDefaultPKey = 0x7FFF;
inline constexpr uint16_t kPKeyFull = 0x8000;

// A P_Key table as the SA matches it: one entry per partition, sorted by the low 15 bits,
// with bit 15 set when the port is a full member (a table holding a P_Key both ways keeps
// the full entry). Invalid entries (low 15 bits zero) are dropped.
std::vector<uint16_t> pkey_set(std::span<const uint16_t> table);

// `a`'s entry for partition `pkey` (low 15 bits looked at) when `a` and `b` share it.
std::optional<uint16_t> shared_pkey(std::span<const uint16_t> a, std::span<const uint16_t> b, uint16_t pkey);

// The partition a path from `a` to `b` uses when the requester names none: the default
// partition when they share it, else the lowest shared P_Key; `a`'s entry. (OpenSM takes the
// first shared P_Key in a map keyed by network-order values, an order that depends on the
// host's byte order; this one does not.)
std::optional<uint16_t> common_pkey(std::span<const uint16_t> a, std::span<const uint16_t> b);

// Whether the port holds partition `pkey` (low 15 bits), as a full or limited member.
bool holds_pkey(std::span<const uint16_t> set, uint16_t pkey);

}  // namespace sm
