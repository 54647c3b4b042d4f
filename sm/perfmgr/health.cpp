#include "sm/perfmgr/health.h"

#include <fmt/format.h>

#include <algorithm>

#include "mad/text.h"

namespace sm::perfmgr {

namespace {

// Increases within one sweep that make a finding. Error counters follow ibqueryerrors'
// defaults (10 for the link-quality counters, 100 for the ones a busy fabric sees in
// bursts), except that a link that went down or retrained even once is worth a line.
struct RuleDefault {
  std::string_view rule;
  uint64_t threshold;
  Severity severity;
};
constexpr RuleDefault kDefaults[] = {
    {"symbol_error", 10, Severity::warning},
    {"link_error_recovery", 1, Severity::warning},
    {"link_downed", 1, Severity::error},
    {"port_rcv_errors", 10, Severity::warning},
    {"port_rcv_remote_physical_errors", 100, Severity::warning},
    {"port_rcv_switch_relay_errors", 100, Severity::warning},
    {"port_xmit_discards", 100, Severity::warning},
    {"port_xmit_constraint_errors", 100, Severity::warning},
    {"port_rcv_constraint_errors", 100, Severity::warning},
    {"local_link_integrity_errors", 1, Severity::error},
    {"excessive_buffer_overrun_errors", 1, Severity::error},
    {"vl15_dropped", 100, Severity::warning},
    {"port_xmit_wait", 0x10000, Severity::warning},  // perfmgr_xmit_wait_threshold
    {"flapping", 1, Severity::error},
    {"degraded_link", 1, Severity::warning},
};

const RuleDefault* find_rule(std::string_view rule) {
  for (const auto& d : kDefaults)
    if (d.rule == rule) return &d;
  return nullptr;
}

}  // namespace

std::optional<uint64_t> default_threshold(std::string_view rule) {
  if (const RuleDefault* d = find_rule(rule)) return d->threshold;
  return std::nullopt;
}

std::vector<std::string_view> rule_names() {
  std::vector<std::string_view> v;
  for (const auto& d : kDefaults) v.push_back(d.rule);
  return v;
}

std::string grouped(uint64_t v) {
  const std::string digits = std::to_string(v);
  std::string s;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) s += ',';
    s += digits[i];
  }
  return s;
}

std::string describe(const PortEnd& e) {
  return fmt::format("{} {}[{}] (LID {})", mad::quoted(e.description, 48), e.node, e.port, e.lid);
}

uint64_t Health::threshold(std::string_view rule) const {
  if (auto it = cfg_->thresholds.find(std::string(rule)); it != cfg_->thresholds.end()) return it->second;
  if (rule == "port_xmit_wait") return cfg_->xmit_wait_threshold;
  return default_threshold(rule).value_or(1);
}

void Health::fire(std::string rule, Severity sev, const PortEnd& at, const std::optional<PortEnd>& peer,
                  std::string what, Stamp now) {
  auto key = std::make_tuple(rule, at.node, at.port);
  auto [it, fresh] = open_.try_emplace(key);
  Finding& f = it->second;
  if (fresh) {
    f.rule = std::move(rule);
    f.first_ms = now.wall_ms;
    opened_.push_back(key);
    ++fired_[f.rule];
  }
  f.severity = sev;
  f.at = at;
  f.peer = peer;
  f.what = std::move(what);
  f.last_ms = now.wall_ms;
  last_mono_[key] = now.mono_ms;
}

void Health::on_step(const PortEnd& at, const std::optional<PortEnd>& peer, const Step& s, Stamp now) {
  if (s.first) return;
  const auto secs = static_cast<int64_t>(s.seconds + 0.5);
  for (size_t i = 0; i < kCounters; ++i) {
    const CounterInfo& c = kCounterInfo[i];
    const bool wait = static_cast<Counter>(i) == Counter::xmit_wait;
    if (!c.error && !(wait && cfg_->xmit_wait_log)) continue;
    const uint64_t d = s.delta[i];
    const uint64_t t = threshold(c.name);
    if (d == 0 || d < t) continue;
    const RuleDefault* rd = find_rule(c.name);
    fire(std::string(c.name), rd ? rd->severity : Severity::warning, at, peer,
         fmt::format("{} +{} in {} s{}", c.iba_name, grouped(d), secs, s.saturated ? " (saturated: at least)" : ""),
         now);
  }
}

void Health::on_flapping(const PortEnd& at, const std::optional<PortEnd>& peer, size_t changes, Stamp now) {
  if (changes < threshold("flapping")) return;
  fire("flapping", Severity::error, at, peer, fmt::format("{} link state changes within the flap window", changes),
       now);
}

void Health::on_degraded(const PortEnd& at, const std::optional<PortEnd>& peer, std::string what, Stamp now) {
  fire("degraded_link", Severity::warning, at, peer, std::move(what), now);
}

std::vector<Health::Key> Health::end_sweep(Stamp now, int64_t started_mono_ms) {
  const int64_t clean_ms = std::chrono::duration_cast<std::chrono::milliseconds>(cfg_->clean_time).count();
  for (auto it = open_.begin(); it != open_.end();) {
    const int64_t last = last_mono_[it->first];
    const bool fired_now = last >= started_mono_ms;
    const bool quiet = now.mono_ms - last >= clean_ms;
    if (!fired_now && quiet && (clean_ms > 0 || !it->second.isolated)) {
      last_mono_.erase(it->first);
      it = open_.erase(it);
    } else {
      ++it;
    }
  }
  std::vector<Key> fresh;
  for (const auto& k : opened_)
    if (open_.contains(k)) fresh.push_back(k);
  opened_.clear();
  return fresh;
}

size_t Health::clear(std::optional<std::pair<Guid, uint8_t>> port) {
  size_t n = 0;
  for (auto it = open_.begin(); it != open_.end();) {
    const Finding& f = it->second;
    const bool match = !port || (f.at.node == port->first && f.at.port == port->second) ||
                       (f.peer && f.peer->node == port->first && f.peer->port == port->second);
    if (match) {
      last_mono_.erase(it->first);
      it = open_.erase(it);
      ++n;
    } else {
      ++it;
    }
  }
  return n;
}

std::vector<Finding> Health::open() const {
  std::vector<Finding> v;
  v.reserve(open_.size());
  for (const auto& [k, f] : open_) v.push_back(f);
  return v;
}

}  // namespace sm::perfmgr
