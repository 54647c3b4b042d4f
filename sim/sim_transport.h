// mad::Transport over the simulated fabric, for one SM endpoint. receive() runs the fabric's
// events on virtual time until a MAD arrives for this endpoint or the deadline passes, so an SM
// on it runs as fast as the CPU allows and the same way every time.
#pragma once

#include "mad/transport.h"
#include "sim/fabric.h"

namespace sim {

class SimTransport final : public mad::Transport {
 public:
  SimTransport(SimFabric& fabric, EndpointId ep) : fabric_(fabric), ep_(ep) {}

  mad::Result<void> send(const mad::Packet& p) override {
    fabric_.inject(ep_, p);
    return {};
  }
  mad::Result<void> receive(std::vector<mad::Packet>& out, mad::Nanos deadline) override {
    fabric_.run_for_endpoint(ep_, deadline);
    auto& inbox = fabric_.inbox(ep_);
    for (auto& p : inbox) out.push_back(std::move(p));
    inbox.clear();
    return {};
  }
  // What opening the issm device again does.
  mad::Result<void> retake_is_sm() override {
    fabric_.set_is_sm(ep_, true);
    return {};
  }
  const mad::Clock& clock() const override { return fabric_.clock(); }
  EndpointId endpoint() const { return ep_; }

 private:
  SimFabric& fabric_;
  EndpointId ep_;
};

}  // namespace sim
