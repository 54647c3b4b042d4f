// The M_Key audit of a walk: what every port's PortInfo says about its key, read off the model
// after the walk. A pure function of the topology, the model, a copy of the key ring and what the
// audit remembers from the walks before; the SM runs it on its worker (43k ports: 20 ms) and acts
// on the result on the loop: it logs, sends the probes, and clears the refusals it names.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "fabric/topology.h"
#include "mad/attributes.h"
#include "sm/fabric_model.h"
#include "sm/mkey/key_ring.h"

namespace sm::mkey {

// "GUID[port] (description, LID n)": how the audit's lines name a port.
std::string port_text(const fabric::Topology& t, fabric::NodeId id, uint8_t port);

// Remembered from walk to walk.
struct AuditState {
  // Port GUID -> M_KeyViolations as last read (the first read is the baseline).
  std::unordered_map<uint64_t, uint16_t> violations;
  // Ports already reported as showing another SM's key.
  std::set<Guid> foreign_noted;
};

struct AuditResult {
  AuditState state;
  struct Rise {  // M_KeyViolations counted on a port that shows this SM's key
    std::string port;
    uint16_t rose = 0;
    uint16_t total = 0;
  };
  std::vector<Rise> rises;
  std::vector<std::string> foreign;  // newly seen with another SM's key
  std::vector<Guid> accepted;        // were refusing; show this SM's key or none now
  // Ports that hide their key (protect bits set, M_Key read as 0) and are not known to refuse:
  // one Set that changes nothing tells whether they have one.
  struct Probe {
    fabric::NodeId id;
    uint8_t port;
    Guid guid;  // the key port (mkey::key_port)
    DrPath path;
    mad::PortInfo as_read;
  };
  std::vector<Probe> probes;
};

// `keys`: a copy of the ring (KeyRing::for_planning): own_key() fills its cache.
AuditResult audit_ports(const fabric::Topology& t, const FabricModel& model, const KeyRing& keys, AuditState state);

}  // namespace sm::mkey
