// The SM's side of high availability: ha::SmHost over the SM's transaction layer and its view
// of the fabric. It finds the other SMs' ports (CapabilityMask.IsSM) in every walk, sends
// SMInfo Gets and control Sets to them by directed route, answers their (and `sminfo`'s)
// SMInfo requests, and passes the ha::Agent's decisions on to the SM through `Hooks`.
// A master about to be taken for lost is asked by three routes at once: the walk's, a second
// directed route that shares no cable or switch with it, and by LID; if only another route
// answers, the polls take that one until the next walk.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "ha/agent.h"
#include "mad/transactions.h"
#include "sm/fabric_model.h"
#include "sm/log.h"
#include "sm/mkey/key_ring.h"
#include "sm/types.h"

namespace sm {

class HaHost final : public ha::SmHost {
 public:
  struct Hooks {
    std::function<void()> discover, become_master, stand_by, resweep;
    std::function<void(const ha::Note&)> note;  // after it is logged
  };
  // `keys` (borrowed): the M_Key of each SM port it asks, and of its own.
  HaHost(mad::Transport& transport, mad::Transactions& tx, Logger& log, const mkey::KeyRing& keys, Hooks hooks)
      : transport_(transport), tx_(tx), log_(log), keys_(keys), hooks_(std::move(hooks)) {}

  // The SM ports of a walked fabric (the SM's own included: the Role skips it), and the routes
  // to them from now on.
  std::vector<ha::SmPort> sm_ports(const Topology& topo, const FabricModel& model) {
    return sm_ports(scan(topo, model));
  }
  // The same in two steps: what the walk shows of the SM ports (a pure read of the fabric,
  // off the loop for the largest ones), then taken in.
  struct Scan {
    struct Found {
      Guid port;
      DrPath path;
      std::optional<DrPath> second;  // Topology::second_path_to_port
      Lid lid;
    };
    std::vector<Found> sm_ports;
    bool own_found = false;
    Lid own_lid;
    uint32_t own_caps = 0;
    bool on_switch = false;
  };
  static Scan scan(const Topology& topo, const FabricModel& model);
  std::vector<ha::SmPort> sm_ports(const Scan& scan);
  // The port that holds `lid` (for trap 144), and a route to it; zero GUID when unknown.
  Guid port_by_lid(const Topology& topo, Lid lid);
  // This SM's own port: its M_Key decides who may see the SM_Key.
  void set_self(Guid port) { self_ = port; }
  // Answers an SMInfo Get or Set addressed to this SM.
  void answer(const mad::Packet& p, const mad::Smp& req, ha::Agent& agent);

  // ha::SmHost
  mad::Nanos now() const override { return transport_.clock().now(); }
  void discover() override { hooks_.discover(); }
  void become_master() override { hooks_.become_master(); }
  void stand_by() override { hooks_.stand_by(); }
  void resweep() override { hooks_.resweep(); }
  void send_sm_info(Guid port, uint32_t modifier, const mad::SmInfo& payload, mad::Nanos timeout,
                    SmInfoDone done) override;
  void confirm_sm_info(Guid port, mad::Nanos timeout, SmInfoDone done) override;
  void notify_master(Guid port) override;
  void note(const ha::Note& n) override;

 private:
  enum class Way : uint8_t { walked, second, lid };
  struct Route {
    DrPath path;                   // the walk's directed route
    std::optional<DrPath> second;  // one that shares no cable or switch with it
    Lid lid;
    Way way = Way::walked;         // how polls and Sets go
  };
  bool has(const Route& r, Way way) const;
  // One SMInfo Get or Set to `port` by `way` (one that `r` has).
  void send_by(const Route& r, Way way, Guid port, uint32_t modifier, const mad::SmInfo& payload,
               mad::Nanos timeout, SmInfoDone done);
  // After a confirmation that only another way answered: polls go that way from now on.
  void prefer(Guid port, const DrPath& walked, Way way);
  mad::Transport& transport_;
  mad::Transactions& tx_;
  Logger& log_;
  const mkey::KeyRing& keys_;
  Guid self_;
  Hooks hooks_;
  std::unordered_map<Guid, Route> routes_;  // SM ports
  Lid own_lid_;
  uint32_t own_caps_ = 0;
  bool on_switch_ = false;
  uint32_t traps_sent_ = 0;
};

}  // namespace sm
