// ServiceRecords (IBA 1.3 vol 1 15.2.5.14): clients register services (Set), look them up
// (Get/GetTable with a ComponentMask) and withdraw them (Delete). A record is identified by
// ServiceID, ServiceGID and ServiceP_Key; a Set with the same three replaces it. Each has a
// lease in seconds (0xFFFFFFFF: forever) counted on the transport's clock, so the simulator
// expires them in virtual time. Every change goes to `on_change` (the store, kind "service"),
// and load() brings them back after a restart or a takeover.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <optional>

#include "mad/sa_service_records.h"
#include "mad/transport.h"
#include "sm/sa/handler.h"
#include "sm/store/store.h"

namespace sm::sa {

// The SM's two clocks: the transport's (leases run on it) and the wall clock (what the store
// keeps, since the transport's starts anew with each process).
struct Clocks {
  const mad::Clock& mono;
  std::function<int64_t()> wall_ms;  // ms since the epoch
  // A time on the transport clock as wall ms, and back.
  int64_t to_wall(mad::Nanos t) const;
  mad::Nanos from_wall(int64_t ms) const;
};

class Services final : public Handler {
 public:
  static constexpr size_t kMaxRecords = 1u << 16;  // more: NO_RESOURCES
  static constexpr const char* kKind = "service";

  explicit Services(Clocks clocks) : clocks_(std::move(clocks)) {}

  size_t claims(uint16_t attr_id) const override;
  Records handle(const Request& req, const Index& ix) override;

  // Drops the records whose lease ran out (handle() does it too, before it answers).
  void expire();
  // When the next lease runs out.
  std::optional<mad::Nanos> next_expiry() const;
  // Records kept in the store; expired and malformed ones are skipped. Returns how many came back.
  // Replaces every record held by the stored ones (a start, or a takeover on a shared store).
  size_t load(const std::vector<store::SaObject>& objects);
  std::function<void(store::SaObject)> on_change;
  size_t size() const { return records_.size(); }

 private:
  using Key = std::array<uint8_t, 26>;  // ServiceID, ServiceGID, ServiceP_Key as on the wire
  struct Entry {
    mad::ServiceRecord rec;
    std::optional<mad::Nanos> expires;  // none: an infinite lease
  };
  static Key key_of(const mad::ServiceRecord& r);
  // `who`: the requester's end port when the index knows it (its partitions decide which
  // services it may register and see, as OpenSM's).
  Records set(const mad::SaMad& m, const Index& ix, const Endport* who);
  Records del(const mad::SaMad& m);
  Records get(const mad::SaMad& m, const Index& ix, const Endport* who);
  std::vector<uint8_t> encode_live(const Entry& e) const;  // the lease left, in seconds
  void changed(const Key& k, const Entry* e);

  Clocks clocks_;
  std::map<Key, Entry> records_;
};

}  // namespace sm::sa
