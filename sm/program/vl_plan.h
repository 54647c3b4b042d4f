// Routing engines that spread routes over virtual lanes (routing/engine.h vls() > 1): how many
// VLs the SM lets them use, and what SL2VL and VLArbitration it programs for their layers.
// SL i rides VL i for every SL the routes use (as OpenSM's lash and dfsssp program it);
// multicast gets the next VL to itself when the ports operate one (a multicast tree alone
// has no cyclic dependency, but beside a unicast layer it could close one); every other SL
// maps to VL 15, which drops: a packet on an SL no PathRecord handed out (and so on no
// layer's acyclic set of routes) is lost instead of adding dependencies to a layer.
#pragma once

#include <cstdint>
#include <optional>

#include "fabric/topology.h"
#include "sm/program/port_plan.h"
#include "sm/program/qos_config.h"

namespace sm {

// Data VLs an OperationalVLs / VLCap code holds (1: 1, 2: 2, 3: 4, 4: 8, 5: 15; 0: none).
unsigned vls_of_code(uint8_t code);

// RoutingOptions::max_vls: qos_max_vls when set, else 8, capped by the VLs every cabled
// switch-to-switch link operates (both ends' VLCap, the policy's cap, and with qos on the
// OperationalVLs qos_max_vls gives the class). At least 1.
unsigned routing_max_vls(const fabric::Topology& topo, const PortPolicy& ports, const QosOptions& qos);

// The VL layers the SM programs for tables with SLs.
struct VlLayers {
  unsigned vls_used = 1;                // SLs 0..vls_used-1 ride VLs 0..vls_used-1
  std::optional<uint8_t> multicast_sl;  // SL (and VL) of multicast; none: SL 0 with unicast layer 0
  bool operator==(const VlLayers&) const = default;
};
// `max_vls`: what routing_max_vls() allowed (the VLs every switch link operates).
VlLayers vl_layers(unsigned vls_used, unsigned max_vls);

// The SL2VL table of the layers: SL i -> VL i for the layers and multicast, 15 for the rest.
std::array<uint8_t, 16> layer_sl2vl(const VlLayers& l);
// VLArbitration when qos is off: every VL of the layers (and multicast) in the low table with
// equal weight, the high table empty, so that each gets bandwidth.
void layer_vlarb(const VlLayers& l, QosTables& t);
// A class's tables with the layers' SL2VL (and, qos off, their arbitration).
QosTables with_layers(QosTables t, const VlLayers& l, bool qos_on);

}  // namespace sm
