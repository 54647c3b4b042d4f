// The Subnet Administrator (class 0x03) of the master SM: Get and GetTable of ClassPortInfo,
// NodeRecord, PortInfoRecord, SMInfoRecord and PathRecord, with component masks, answered
// from the Index built after each sweep, and whatever its handlers claim (multicast, services,
// subscriptions: sm/sa/handler.h); multi-record answers go out by RMPP (mad/rmpp.h).
// Anything else gets the IBA error status, never a crash.
//
// A client flooding queries cannot starve the sweep: requests wait in a bounded queue per
// source LID, and each tick answers a bounded number of them, taking sources in turn. While a
// sweep runs (the index is being replaced) requests wait; a full queue drops (the client
// resends, as after any lost MAD).
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "mad/rmpp.h"
#include "mad/sa_mad.h"
#include "mad/transport.h"
#include "sm/log.h"
#include "sm/sa/handler.h"
#include "sm/sa/index.h"

namespace sm::sa {

struct ServerConfig {
  size_t queue_per_source = 64;   // requests waiting per source LID
  size_t queue_total = 16384;
  size_t per_tick = 256;          // requests answered per tick at most
  mad::Nanos rmpp_timeout = std::chrono::milliseconds(200);  // silence before RMPP resends
  int rmpp_retries = 4;
  uint64_t subnet_prefix = 0xFE80000000000000ULL;
};

struct ServerStats {
  uint64_t requests = 0, answered = 0, errors = 0, dropped = 0;
  uint64_t rmpp_transfers = 0, rmpp_segments = 0, rmpp_failed = 0;
  std::map<uint16_t, uint64_t> answered_by_attr;  // by AttributeID (the metrics endpoint's)
};

class Server {
 public:
  Server(mad::Transport& t, Logger& log, ServerConfig cfg = {});

  // A new index (after a sweep that configured the subnet), or none (not master: no answers).
  void set_index(std::shared_ptr<const Index> ix) { index_ = std::move(ix); }
  const std::shared_ptr<const Index>& index() const { return index_; }
  // The QoS policy PathRecords answer SLs from (null: none, SL 0); a SIGHUP swaps it.
  void set_qos_policy(std::shared_ptr<const qos::Policy> p) { qos_policy_ = std::move(p); }
  const qos::Policy* qos_policy() const { return qos_policy_.get(); }
  // A handler for the attributes it claims (sm/sa/handler.h); it must outlive the server.
  void add_handler(Handler& h) { handlers_.push_back(&h); }
  // A class-0x03 MAD: a request (queued), or an RMPP ACK/STOP/ABORT for one of our answers.
  void on_mad(const mad::Packet& p);
  // Answers queued requests from the index it has (through sweeps too: the last published
  // subnet's) and resends RMPP segments due. The daemon calls it after every batch of MADs and
  // at least every 100 ms.
  void on_tick();
  // When on_tick next has something to do: queued requests, RMPP resends.
  std::optional<mad::Nanos> next_deadline() const;
  size_t queued() const { return queued_; }
  const ServerStats& stats() const { return stats_; }

  // The answer to one request (no queue, no RMPP state): for tests and the fuzzer. Empty when
  // the request gets no answer (a response, a malformed header).
  std::vector<mad::MadBytes> answer(const mad::Packet& request);

 private:
  struct Transfer {
    mad::MadAddress to;
    mad::RmppSender sender;
    mad::Nanos deadline;
  };
  using TransferKey = std::pair<uint16_t, uint64_t>;  // requester LID, TID

  void serve(const mad::Packet& p);
  void send_all(const mad::MadAddress& to, const std::vector<mad::MadBytes>& mads, size_t length = mad::kMadSize);

  mad::Transport& transport_;
  Logger& log_;
  ServerConfig cfg_;
  std::shared_ptr<const Index> index_;
  std::shared_ptr<const qos::Policy> qos_policy_;
  std::vector<Handler*> handlers_;
  std::map<uint16_t, std::deque<mad::Packet>> queues_;  // by source LID
  uint16_t next_source_ = 0;                             // round robin position
  size_t queued_ = 0;
  std::map<TransferKey, Transfer> transfers_;
  ServerStats stats_;
};

}  // namespace sm::sa
