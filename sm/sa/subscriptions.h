// Event subscriptions (IBA 1.3 vol 1 13.4.8.3, 15.2.5.12): a client Sets InformInfo to
// subscribe to (or unsubscribe from) the notices that match it, and reads them back as
// InformInfoRecords. The Reporter (reports.h) sends each matching notice to the subscribers.
// A subscription is the requester's port GID plus the InformInfo it sent (all fields but
// Subscribe and RespTimeValue); subscribing again changes nothing. Changes go to `on_change`
// (the store, kind "inform") and load() brings them back.
#pragma once

#include <functional>
#include <map>
#include <vector>

#include "mad/notice.h"
#include "mad/sa_service_records.h"
#include "sm/sa/handler.h"
#include "sm/store/store.h"

namespace sm::sa {

struct Subscription {
  mad::Gid subscriber;  // the requester's port GID
  mad::Lid lid;         // its LID when it subscribed (Reports go to its LID of the day)
  uint16_t enumeration = 0;
  mad::InformInfo info;
};

class Subscriptions final : public Handler {
 public:
  static constexpr size_t kMax = 1u << 14;  // more: NO_RESOURCES
  static constexpr const char* kKind = "inform";

  explicit Subscriptions(uint64_t subnet_prefix = mad::kDefaultGidPrefix) : prefix_(subnet_prefix) {}

  size_t claims(uint16_t attr_id) const override;
  Records handle(const Request& req, const Index& ix) override;

  // The subscriptions a notice reaches (IBA 13.4.8.3): a non-zero GID must be the IssuerGID,
  // else a LID range (begin 0xFFFF: any) must hold the IssuerLID; IsGeneric must be equal;
  // Type, TrapNumber/DeviceID and ProducerType/VendorID match or are the wildcard.
  std::vector<const Subscription*> matching(const mad::Notice& n) const;
  // A port out of service takes its subscriptions with it; returns how many.
  size_t drop_subscriber(const mad::Gid& port);
  size_t size() const { return subs_.size(); }

  // Replaces every subscription held by the stored ones (a start, or a takeover).
  size_t load(const std::vector<store::SaObject>& objects);
  std::function<void(store::SaObject)> on_change;

 private:
  using Key = std::vector<uint8_t>;  // subscriber GID, then the InformInfo without its flags
  static Key key_of(const mad::Gid& subscriber, const mad::InformInfo& info);
  Records set(const Request& req, const Index& ix);
  Records records(const mad::SaMad& m) const;
  static std::vector<uint8_t> encode(const Subscription& s);
  void changed(const Key& k, const Subscription* s);

  uint64_t prefix_;
  std::map<Key, Subscription> subs_;
};

}  // namespace sm::sa
