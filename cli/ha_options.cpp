#include "cli/ha_options.h"

#include <fmt/format.h>

#include <charconv>

namespace po = boost::program_options;

namespace cli {

void add_ha_options(po::options_description& opts, HaArgs& a) {
  opts.add_options()
      ("sticky", po::bool_switch(&a.sticky), "sticky master: keep mastership when a higher-priority SM "
       "shows up (no handover back and forth when a preferred SM returns)")
      ("sm-key", po::value(&a.sm_key)->default_value(a.sm_key), "SM_Key (hex): SMs whose SMInfo carries "
       "another key are not believed (no handover to them, no standing by under them)")
      ("poll-ms", po::value(&a.poll_ms)->default_value(a.poll_ms), "a standby polls the master's SMInfo "
       "this often (OpenSM: 10000)")
      ("poll-timeout-ms", po::value(&a.poll_timeout_ms)->default_value(a.poll_timeout_ms), "a poll not "
       "answered within this is a miss (0: the poll interval)")
      ("poll-misses", po::value(&a.misses)->default_value(a.misses), "polls missed in a row before the "
       "master is declared dead (OpenSM: 4)")
      ("stall-polls", po::value(&a.stall_polls)->default_value(a.stall_polls), "answers in a row with "
       "an unchanged ActCount before the master is declared hung");
}

mad::Result<ha::Config> ha_config(const HaArgs& a, uint8_t priority) {
  ha::Config c;
  c.priority = priority;
  c.sticky = a.sticky;
  std::string key = a.sm_key;
  if (key.starts_with("0x") || key.starts_with("0X")) key.erase(0, 2);
  auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), c.sm_key, 16);
  if (key.empty() || ec != std::errc() || end != key.data() + key.size())
    return mad::fail(mad::Errc::parse, fmt::format("--sm-key wants a hex number such as 0x1234abcd, not '{}'", a.sm_key));
  if (a.poll_ms < 1 || a.poll_timeout_ms < 0 || a.misses < 1 || a.stall_polls < 1)
    return mad::fail(mad::Errc::parse, "--poll-ms, --poll-misses and --stall-polls must be >= 1, "
                                       "--poll-timeout-ms >= 0");
  c.poll_interval = std::chrono::milliseconds(a.poll_ms);
  c.poll_timeout = std::chrono::milliseconds(a.poll_timeout_ms ? a.poll_timeout_ms : a.poll_ms);
  c.max_misses = a.misses;
  c.stall_polls = a.stall_polls;
  return c;
}

}  // namespace cli
