// The SM state machine of IBA 14.4 (Discovering, Standby, Master, NotActive) as a pure object:
// events go in (a discovery finished, an SMInfo answer or its absence, a control packet from
// another SM, time), decisions come out (discover, become master, stand by, ask a peer, hand
// over). It never touches a transport or a clock, so every rule is unit-testable.
//
// Election: an SM that finds a master stands by under it; else one that finds a higher SM
// (priority, then lower port GUID) stands by waiting for that one to take over; else it
// becomes master. A master hands over to a higher SM it finds (not with `sticky`, except to
// end a split brain); a lower master that finds it hands over in turn. A standby polls its
// master and declares it dead after `max_misses` silent polls or `stall_polls` answers with
// the same ActCount, then discovers and elects again. Peers whose SMInfo carries another
// SM_Key are not believed: no standing by under them, no handover to them.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ha/config.h"
#include "ha/rank.h"
#include "mad/error.h"
#include "mad/sm_info.h"

namespace ha {

using mad::Guid;
using mad::SmInfo;
using mad::SmState;

struct Action {
  enum class Kind : uint8_t {
    discover,       // walk the subnet without configuring it, then call discovered()
    become_master,  // configure the subnet from now on
    stand_by,       // configure nothing: another SM is (or is about to be) master
    resweep,        // a heavy sweep: another master handed its part of the subnet over
    query,          // SubnGet(SMInfo) to `peer`, then query_result()
    poll,           // SubnGet(SMInfo) to the master watched, then poll_result()
    confirm,        // the same by every route, with confirm_timeout to answer: the master seems lost
    handover,       // SubnSet(SMInfo, HANDOVER) to `peer`, then handover_result()
    acknowledge,    // SubnSet(SMInfo, ACKNOWLEDGE) to `peer`; its answer does not matter
    notify_master,  // trap 144 to `peer` (the master): this SM outranks it
  };
  Kind kind;
  Guid peer;
  bool operator==(const Action&) const = default;
};

// Something worth a log line and an event in the store.
struct Note {
  enum class Kind : uint8_t { state, master_lost, handover, security, peer, warning };
  Kind kind;
  std::string text;
};

struct Output {
  std::vector<Action> actions;
  std::vector<Note> notes;
  void act(Action::Kind k, Guid peer = Guid()) { actions.push_back(Action{k, peer}); }
  void note(Note::Kind k, std::string text) { notes.push_back(Note{k, std::move(text)}); }
};

// Another SM, as its last SMInfo answer described it.
struct Peer {
  Guid port;
  SmInfo info;
  bool answered = false;  // the last request got an answer from that port
  bool believed = false;  // ... and it carried our SM_Key
  Nanos first_seen{0}, last_heard{0};
};

// An SM port (CapabilityMask.IsSM) a discovery found; `route_changed` when the way to it
// differs from the one known before.
struct SmPort {
  Guid port;
  bool route_changed = false;
};

class Role {
 public:
  explicit Role(Config cfg) : cfg_(cfg) {}

  Output start(Nanos now);
  // This SM's port GUID, as soon as it is known (SMInfo answers carry it).
  void set_self(Guid self) { self_ = self; }
  // A discovery is over. `complete`: `ports` are all SM ports of the subnet (a heavy sweep),
  // else only those it re-read. `self`: this SM's port GUID.
  Output discovered(Nanos now, Guid self, const std::vector<SmPort>& ports, bool complete);
  Output query_result(Nanos now, Guid peer, const mad::Result<SmInfo>& r);
  Output poll_result(Nanos now, Guid peer, const mad::Result<SmInfo>& r);
  Output handover_result(Nanos now, Guid peer, const mad::Result<SmInfo>& r);
  // A SubnSet(SMInfo) control packet (HANDOVER, ACKNOWLEDGE, DISABLE, STANDBY, DISCOVER):
  // the MAD status to answer with, and what to do.
  struct SetOutcome {
    uint16_t status = 0;
    Output out;
  };
  SetOutcome on_set(Nanos now, uint32_t modifier, const SmInfo& sender);
  // Trap 144 from an SM port (an SM came, went or changed priority): read its SMInfo again.
  Output sm_port_changed(Nanos now, Guid port);
  Output tick(Nanos now);
  // The SM is stopping: a master hands the subnet to its best standby (one that answers with
  // our SM_Key), which takes over at once instead of after its heartbeat timeout. When that
  // standby takes it, this SM goes NotActive (so the new master does not hand it back).
  // Nothing to do (not master, no standby known): no action.
  Output resign(Nanos now);
  // The master cannot do its work (its routing hung): it hands the subnet over as resign()
  // does and, with nobody to hand it to or when the handover fails, enters NotActive, so that
  // a standby's next poll finds no master and takes over.
  Output step_down(Nanos now, const std::string& why);
  std::optional<Nanos> next_deadline() const;

  SmState state() const { return state_; }
  // This SM's SMInfo; the SM_Key only when the requester may see it.
  SmInfo self_info(bool with_key) const;
  uint32_t act_count() const { return act_count_; }
  Guid self() const { return self_; }
  Guid watched() const { return watched_; }  // the master a standby polls
  bool handing_over() const { return handover_to_.has_value(); }
  std::vector<Peer> peers() const;
  const Config& config() const { return cfg_; }

 private:
  struct PeerState {
    Peer p;
    bool in_flight = false;
    bool key_noted = false;    // a wrong SM_Key was reported
    bool split_noted = false;  // "waiting for it to hand over" was reported
    bool sticky_noted = false;
    Nanos next_check{0};
  };
  Rank me() const { return Rank{cfg_.priority, self_}; }
  static Rank rank(const PeerState& s) { return Rank{s.p.info.priority, s.p.port}; }
  void query(Output& out, PeerState& s);
  void absorb(Nanos now, PeerState& s, const mad::Result<SmInfo>& r, Output& out);
  void enter_discovering(Nanos now, Output& out);
  void enter_standby(Nanos now, Guid master, Output& out);
  void enter_master(Nanos now, Output& out);
  void handed_over_to(Nanos now, Guid peer, Output& out);
  void maybe_decide(Nanos now, Output& out);
  void evaluate(Nanos now, PeerState& s, Output& out);
  void master_lost(Nanos now, const std::string& why, Output& out);
  void send_poll(Nanos now, Output& out);
  bool settled(const PeerState& s) const;
  Nanos heartbeat() const;
  std::string describe(const PeerState& s) const;

  Config cfg_;
  SmState state_ = SmState::not_active;
  Guid self_;
  uint32_t act_count_ = 0;
  Nanos next_heartbeat_{0};
  std::map<Guid, PeerState> peers_;
  // Discovering
  bool walked_ = false;
  std::set<Guid> handed_over_;  // masters that handed over to this SM meanwhile
  // Standby
  Guid watched_;
  Nanos next_poll_{0}, poll_sent_{0};
  bool poll_in_flight_ = false;
  int misses_ = 0, stalls_ = 0, waits_ = 0;
  bool confirming_ = false;  // the poll out is the confirmation before taking the master for lost
  std::optional<uint32_t> last_act_;
  bool seen_master_ = false;
  std::optional<Nanos> last_discover_;  // the last SMInfo DISCOVER taken
  uint32_t discovers_refused_ = 0;       // since then  // the SM watched has been seen in Master state
  bool notified_ = false;
  // Master
  std::optional<Guid> handover_to_;
  bool resigning_ = false;
  bool stepping_down_ = false;
  void enter_not_active(const std::string& why, Output& out);
};

}  // namespace ha
