// Reports (SA method 0x06, attribute Notice) to the subscribers a notice matches
// (subscriptions.h): the SM's own traps 64/65 when a sweep that configured the subnet finds an
// end port in or out of service (the previous index against the new one), and the traps the SM
// receives from the fabric. A Report goes to the subscriber's LID and QPN with the GSI Q_Key
// and is sent again until a ReportResp with its TID comes back, or the retries run out.
#pragma once

#include <map>
#include <memory>
#include <optional>

#include "mad/notice.h"
#include "mad/transport.h"
#include "sm/log.h"
#include "sm/sa/index.h"
#include "sm/sa/subscriptions.h"

namespace sm::sa {

struct ReporterConfig {
  mad::Nanos resend = std::chrono::seconds(1);  // silence before a Report goes again
  int retries = 3;                              // resends after the first
  size_t max_pending = 4096;                    // Reports awaiting their ReportResp
  uint64_t subnet_prefix = mad::kDefaultGidPrefix;
};

struct ReporterStats {
  uint64_t sent = 0, resent = 0, acknowledged = 0, given_up = 0, dropped = 0;
};

class Reporter {
 public:
  Reporter(mad::Transport& t, Subscriptions& subs, Logger& log, ReporterConfig cfg = {});

  // A sweep configured the subnet: trap 64 for every end port `after` has and `before` had not,
  // 65 for the reverse (a port gone also loses its subscriptions). `before` null: this SM has
  // no earlier view of the subnet (just started, or just became master), nothing to compare.
  void on_index(const Index* before, std::shared_ptr<const Index> after);
  // The end ports gone from and come into `after` since `before` (none without a before):
  // what on_index reports, found apart (off the loop) for the largest fabrics.
  struct Changes {
    std::vector<Guid> gone, came;
  };
  static Changes changes(const Index* before, const Index& after);
  void on_index(std::shared_ptr<const Index> after, const Changes& changes);
  // A notice the SM received (a trap): forwarded to the matching subscribers.
  void on_notice(const mad::Notice& n);
  // A ReportResp (class 0x03, method 0x86): the Report with its TID is done.
  void on_report_resp(const mad::Packet& p);
  // Resends what is due; the service calls it with the SA's tick.
  void on_tick();
  std::optional<mad::Nanos> next_deadline() const;

  const ReporterStats& stats() const { return stats_; }
  size_t pending() const { return pending_.size(); }
  // Notice a trap 64/65 for `port` as this SM issues it (for tests and on_index).
  mad::Notice gid_notice(uint16_t trap, Guid port) const;

 private:
  struct Pending {
    mad::Packet packet;
    mad::Nanos due;
    int retries_left;
  };
  void report(const mad::Notice& n);

  mad::Transport& transport_;
  Subscriptions& subs_;
  Logger& log_;
  ReporterConfig cfg_;
  std::shared_ptr<const Index> index_;
  std::map<uint32_t, Pending> pending_;  // by TID (low 32 bits: ibsim rewrites the high ones)
  uint32_t next_tid_ = 1;
  ReporterStats stats_;
};

}  // namespace sm::sa
