#include "sm/light_sweep.h"

#include "mad/attributes.h"

namespace sm {

void LightSweep::start(const std::vector<std::pair<Guid, DrPath>>& switches, std::function<void()> done,
                       std::optional<uint8_t> own_port) {
  done_ = std::move(done);
  ++pending_;
  if (own_port) {
    ++pending_;
    ++result_.smps;
    client_.get_once(DrPath(), mad::attr::port_info, *own_port, [this](mad::Result<mad::Smp> r) {
      if (r)
        if (auto pi = mad::decode_attr<mad::PortInfo>(*r)) result_.own = *pi;
      end();
    });
  }
  for (const auto& [g, path] : switches) {
    ++pending_;
    ++result_.smps;
    client_.get_once(path, mad::attr::switch_info, 0, [this, g](mad::Result<mad::Smp> r) {
      auto si = r ? mad::decode_attr<mad::SwitchInfo>(*r) : mad::Result<mad::SwitchInfo>(std::unexpected(r.error()));
      if (!si) result_.silent.push_back(g);
      else if (si->port_state_change) result_.changed.push_back(g);
      end();
    });
  }
  end();
}

void LightSweep::end() {
  if (--pending_ != 0) return;
  auto d = std::move(done_);
  d();
}

}  // namespace sm
