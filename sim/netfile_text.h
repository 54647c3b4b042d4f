// Lexing helpers and link width/speed tables shared by the net-file reader and writer.
// Private to sim/netfile*.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/spec.h"

namespace sim::netfile_text {

// A port's enabled sets before any directive or tail: 4x (ibsim's default) and SDR..QDR (ibsim
// enables SDR only; we want links without tails at QDR, and a superset keeps SDR tails valid).
inline constexpr uint8_t kWidthEnDefault = width::x4;
inline constexpr uint8_t kSpeedEnDefault = speed::sdr | speed::ddr | speed::qdr;
inline constexpr uint8_t kExtEnDefault = speed::ext_none;

// "4x" in a tail enables 1x and 4x, "12x" 1x, 4x and 12x, as ibsim does; the link runs at the
// widest both ends enable.
struct WidthInfo {
  uint64_t lanes;
  uint8_t enabled;
  uint8_t active;
};
inline constexpr WidthInfo kWidths[] = {{1, width::x1, width::x1},
                                        {2, width::x2, width::x2},
                                        {4, width::x1 | width::x4, width::x4},
                                        {8, width::x8, width::x8},
                                        {12, width::x1 | width::x4 | width::x12, width::x12}};

// ext_en < 0: the tail leaves the port's extended speeds as they were (ibsim).
struct SpeedInfo {
  std::string_view name;
  uint8_t speed_en;
  int ext_en;
  uint8_t speed, ext;  // what a link at this speed holds in SpecLink
};
inline constexpr uint8_t kSdrToQdr = speed::sdr | speed::ddr | speed::qdr;
inline constexpr SpeedInfo kSpeeds[] = {
    {"SDR", speed::sdr, -1, speed::sdr, speed::ext_none},
    {"DDR", speed::sdr | speed::ddr, -1, speed::ddr, speed::ext_none},
    {"QDR", kSdrToQdr, -1, speed::qdr, speed::ext_none},
    {"FDR", kSdrToQdr, speed::fdr, speed::qdr, speed::fdr},
    {"EDR", kSdrToQdr, speed::fdr | speed::edr, speed::qdr, speed::edr},
    {"HDR", kSdrToQdr, speed::fdr | speed::edr | speed::hdr, speed::qdr, speed::hdr},
    {"NDR", kSdrToQdr, speed::fdr | speed::edr | speed::hdr | speed::ndr, speed::qdr, speed::ndr},
    {"FDR10", kSdrToQdr, -1, speed::qdr, speed::ext_none},  // Mellanox's; runs as QDR here
};

inline const WidthInfo* width_by_lanes(uint64_t lanes) {
  for (const WidthInfo& w : kWidths)
    if (w.lanes == lanes) return &w;
  return nullptr;
}
inline const WidthInfo* width_by_active(uint8_t active) {
  for (const WidthInfo& w : kWidths)
    if (w.active == active) return &w;
  return nullptr;
}
inline const SpeedInfo* speed_by_name(std::string_view name) {
  for (const SpeedInfo& s : kSpeeds)
    if (s.name == name) return &s;
  return nullptr;
}
inline const SpeedInfo* speed_by_active(uint8_t spd, uint8_t ext) {
  for (const SpeedInfo& s : kSpeeds)
    if (s.speed == spd && s.ext == ext) return &s;
  return nullptr;
}

// The value a link runs at: the best one both ends enable (0 = none in common).
inline uint8_t best_width(unsigned en) {
  for (uint8_t w : {width::x12, width::x8, width::x4, width::x2, width::x1})
    if (en & w) return w;
  return 0;
}
inline uint8_t best_speed(unsigned en) {
  for (uint8_t s : {speed::qdr, speed::ddr, speed::sdr})
    if (en & s) return s;
  return 0;
}
inline uint8_t best_ext(unsigned en) {
  for (uint8_t s : {speed::ndr, speed::hdr, speed::edr, speed::fdr})
    if (en & s) return s;
  return speed::ext_none;
}

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r'; }
inline bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline int hex_value(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A read position in one line. Every read is bounds-checked; failures leave it where it was.
class Cursor {
 public:
  explicit Cursor(std::string_view s) : s_(s) {}
  bool done() const { return i_ >= s_.size(); }
  char peek() const { return done() ? '\0' : s_[i_]; }
  std::string_view rest() const { return s_.substr(i_); }
  std::string_view whole() const { return s_; }
  void skip_ws() {
    while (!done() && is_space(s_[i_])) ++i_;
  }
  bool eat(char c) {
    if (done() || s_[i_] != c) return false;
    ++i_;
    return true;
  }
  // Up to (not including) `c` or the end.
  std::string_view until(char c) {
    size_t e = s_.find(c, i_);
    if (e == std::string_view::npos) e = s_.size();
    return take(e);
  }
  // Leading ASCII letters.
  std::string_view word() {
    size_t e = i_;
    while (e < s_.size() && is_alpha(s_[e])) ++e;
    return take(e);
  }
  // Up to white space or '#'.
  std::string_view token() {
    size_t e = i_;
    while (e < s_.size() && !is_space(s_[e]) && s_[e] != '#') ++e;
    return take(e);
  }
  // Base 10 digits; false when there are none or the value overflows.
  bool dec(uint64_t& v) { return digits(10, v); }
  // As strtoul(s, 0, 0) reads: 0x.. hex, 0.. octal, else decimal.
  bool cnum(uint64_t& v) {
    if (peek() == '0' && i_ + 2 < s_.size() && (s_[i_ + 1] == 'x' || s_[i_ + 1] == 'X') &&
        hex_value(s_[i_ + 2]) >= 0) {
      i_ += 2;
      if (digits(16, v)) return true;
      i_ -= 2;
      return false;
    }
    return digits(peek() == '0' ? 8 : 10, v);
  }
  // Optional "[ext N]" (ibnetdiscover's split-port numbering): false when malformed.
  bool ext_port() {
    if (rest().substr(0, 4) != "[ext") return true;
    size_t save = i_;
    i_ += 4;
    skip_ws();
    uint64_t v = 0;
    if (dec(v) && eat(']')) return true;
    i_ = save;
    return false;
  }
  // Optional "(hexguid)" after a port or a GUID directive: false when malformed.
  bool guid_suffix() {
    if (!eat('(')) return true;
    uint64_t v = 0;
    if (digits(16, v) && eat(')')) return true;
    return false;
  }

 private:
  std::string_view take(size_t e) {
    std::string_view out = s_.substr(i_, e - i_);
    i_ = e;
    return out;
  }
  bool digits(unsigned base, uint64_t& v) {
    size_t e = i_;
    uint64_t x = 0;
    for (; e < s_.size(); ++e) {
      int d = hex_value(s_[e]);
      if (d < 0 || static_cast<unsigned>(d) >= base) break;
      if (x > (UINT64_MAX - static_cast<unsigned>(d)) / base) return false;
      x = x * base + static_cast<unsigned>(d);
    }
    if (e == i_) return false;
    i_ = e;
    v = x;
    return true;
  }

  std::string_view s_;
  size_t i_ = 0;
};

// A piece of a line for an error message: at most 40 bytes, unprintable bytes as '?'.
inline std::string clip(std::string_view s) {
  std::string out(s.substr(0, 40));
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7F) c = '?';
  if (s.size() > 40) out += "...";
  return out;
}

// The description in a header's comment, as ibsim takes it: a quoted string, or the text up
// to " enhanced port ", " base port ", " lid " or " lmc " (checked in that order). A '"' inside
// becomes '\'' so the writer can always quote it back.
inline std::string header_description(std::string_view comment) {
  Cursor c(comment);
  c.skip_ws();
  std::string_view d;
  if (c.eat('"')) {
    d = c.until('"');
  } else {
    d = c.rest();
    for (std::string_view stop : {" enhanced port ", " base port ", " lid ", " lmc "}) {
      if (size_t e = d.find(stop); e != std::string_view::npos) {
        d = d.substr(0, e);
        break;
      }
    }
    while (!d.empty() && is_space(d.back())) d.remove_suffix(1);
  }
  std::string out(d);
  for (char& ch : out)
    if (ch == '"') ch = '\'';
  return out;
}

// "lid N 4xEDR" in a port line's comment: the first "lid" after the last quote, as ibsim's
// regex finds it. nullopt when there is none or it is not followed by "<lanes>x<speed>".
struct LinkTail {
  uint64_t lanes;
  std::string_view speed;
};
inline std::optional<LinkTail> find_link_tail(std::string_view comment) {
  size_t q = comment.rfind('"');
  size_t l = comment.find("lid", q == std::string_view::npos ? 0 : q + 1);
  if (l == std::string_view::npos) return std::nullopt;
  Cursor c(comment.substr(l + 3));
  uint64_t lid = 0, lanes = 0;
  c.skip_ws();
  if (!c.dec(lid)) return std::nullopt;
  c.skip_ws();
  if (!c.dec(lanes) || !c.eat('x')) return std::nullopt;
  return LinkTail{lanes, c.token()};
}

}  // namespace sim::netfile_text
