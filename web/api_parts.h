// Pieces the API's endpoints share: parameters, errors, and how a node, a port end and a
// link's rate read in JSON.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

#include "fabric/data_rate.h"
#include "web/api.h"

namespace web {

using Json = nlohmann::ordered_json;

Answer ok(const Json& j);
Answer error(int status, std::string_view message);

// An integer parameter (absent: `fallback`), clamped to [lo, hi]; none when it is not a number.
std::optional<int64_t> int_param(const Params& p, std::string_view key, int64_t fallback, int64_t lo, int64_t hi);
std::string str_param(const Params& p, std::string_view key);

const char* node_type_name(const fabric::Node& n);  // "switch", "CA", "router"
const char* web_port_state(mad::PortState s);       // "Down", "Init", "Armed", "Active"

// A port's state as the SM last read or set it (the topology holds it as the walk found it,
// before activation).
mad::PortState port_state_now(const FabricIndex& ix, NodeId id, uint8_t port);

// {id, guid, type, description, lid, tier, group}
Json node_brief(const FabricIndex& ix, NodeId id);
// {guid, description, port, lid} of one end of a cable
Json port_end(const FabricIndex& ix, NodeId id, uint8_t port);
using fabric::data_bytes_per_s;  // the link's data rate in bytes per second
std::string rate_name(const fabric::Port& p);  // "4xEDR"

// The PerfMgr's sample of a port, if it reads that port.
const sm::perfmgr::PortSample* sample_of(const Published& pub, mad::Guid node, uint8_t port);
// Errors counted at a port over the last interval, per second (the error counters' rates).
double error_rate(const sm::perfmgr::PortSample& s);

}  // namespace web
