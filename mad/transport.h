// The one boundary between the SM and the wire: send a MAD, receive MADs; nothing else.
// UmadTransport (libibumad: real HCAs and ibsim) and sim::SimTransport implement it; the SM
// never knows which one it has. Time comes from a Clock, so the simulator can run the SM on
// virtual time.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include "mad/error.h"
#include "mad/smp.h"
#include "mad/types.h"

namespace mad {

using Nanos = std::chrono::nanoseconds;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual Nanos now() const = 0;
  // Simulated time, which moves only when its owner runs the fabric: work off the loop is
  // waited for there, not overlapped (sm/worker.h).
  virtual bool is_virtual() const { return false; }
};

// CLOCK_MONOTONIC, for real transports.
class SteadyClock final : public Clock {
 public:
  Nanos now() const override {
    return std::chrono::duration_cast<Nanos>(
        std::chrono::steady_clock::now().time_since_epoch());
  }
};

inline constexpr uint32_t kGsiQkey = 0x80010000;

// Where a MAD goes (outbound) or came from (inbound), as umad addresses it.
struct MadAddress {
  Lid lid = kPermissiveLid;  // DR SMPs go to the permissive LID
  uint32_t qpn = 0;          // 0 for SMPs (QP0), 1 for GSI classes
  uint32_t qkey = 0;         // kGsiQkey for QP1
  uint8_t sl = 0;
  uint16_t pkey_index = 0;
};

struct Packet {
  MadBytes mad{};
  MadAddress addr;
  // Bytes of `mad` that carry data. Outbound, a single-MAD GetTable answer without kernel RMPP
  // is sent at its real length: a client that counts records from the length it received (as
  // saquery does) would otherwise count the zero padding as empty records. On a real HCA the
  // kernel pads it to 256 bytes again; inbound always kMadSize.
  uint16_t length = kMadSize;
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual Result<void> send(const Packet& p) = 0;
  // Whether send_rmpp() works: the transport (the kernel) does RMPP for long SA answers.
  // Otherwise the SA runs the RMPP sender itself, one MAD at a time through send().
  virtual bool sends_rmpp() const { return false; }
  // One MAD longer than 256 bytes (headers once, then all the data), with the RMPP header
  // active; the transport segments it.
  virtual Result<void> send_rmpp(const MadAddress&, std::span<const uint8_t>) {
    return fail(Errc::unsupported, "this transport does not do RMPP");
  }
  // IsSM was found clear on the SM's own port while the transport holds it (under ibsim,
  // another SM process on the same port cleared it as it exited): take it again.
  virtual Result<void> retake_is_sm() { return {}; }
  // Waits until at least one MAD has arrived or `clock` reaches `deadline`, then appends every
  // MAD that has arrived to `out`. Fails only when the transport itself is broken.
  virtual Result<void> receive(std::vector<Packet>& out, Nanos deadline) = 0;
  virtual const Clock& clock() const = 0;
};

}  // namespace mad
