// Which local port `fabricsm run` takes: the ports sysfs lists (or the ibsim shim's copy of
// it), and the choice among them by --ca/--port or --guid. Pure functions over the list, so
// the choice and its error messages are tested without a device; umad_transport.cpp gathers
// the list from libibumad and opens the chosen port.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mad/error.h"
#include "mad/types.h"

namespace mad {

struct UmadOptions {
  std::string ca;                 // empty: any CA
  int port = 0;                   // 0: any port
  std::optional<Guid> port_guid;  // overrides ca/port when set
  // How long the kernel keeps a sent request waiting for its response. The kernel drops a
  // response that matches no waiting request, so this must be at least the longest wait of
  // one attempt in the transaction layer; retries are the transaction layer's (umad retries 0).
  // ibsim ignores it.
  std::chrono::milliseconds request_timeout{1000};
};

// The port the transport runs on, as sysfs (or the shim's copy of it) describes it.
struct UmadPort {
  std::string ca;
  int port = 0;
  Guid guid;
  Lid lid;
  Lid sm_lid;
  unsigned state = 0;       // 1 Down, 2 Init, 3 Armed, 4 Active
  unsigned phys_state = 0;  // 5 LinkUp
  std::string device;       // /dev/infiniband/umadN
};

// One port of the list, with what decides whether an SM can run on it.
struct PortCandidate {
  UmadPort port;
  std::string link_layer;  // sysfs: "InfiniBand" or "Ethernet" (RoCE); the shim says "IB"
  bool is_ib() const { return link_layer == "InfiniBand" || link_layer == "IB"; }
  bool link_up() const { return port.state >= 2; }  // Init or better: what OpenSM binds to
  std::string str() const;  // "mlx5_0 port 1 (InfiniBand, Active, GUID 0x...)"
};

// The port the options name (GUID; or CA and/or port), or else the first InfiniBand port with
// its link up. Errors (Errc::not_found) say what was asked for and list every port.
Result<PortCandidate> pick_port(const std::vector<PortCandidate>& all, const UmadOptions& o);

// Why umad_open_port(`where`) failed: it returned `id` (< 0) with errno `err`;
// `device_denied`: access(2) on the umad device gave EACCES.
Error open_port_error(std::string_view where, int id, int err, bool device_denied);

}  // namespace mad
