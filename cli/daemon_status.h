// What `fabricsm status` prints: the daemon's answer on its control socket, as JSON ("status")
// or as lines of text ("status text"), and the short STATUS= line systemd shows.
#pragma once

#include <chrono>
#include <string>

#include "mad/umad_transport.h"
#include "service/service.h"

namespace cli {

struct StatusContext {
  mad::UmadPort port;
  std::string config_file, db_path;
  std::chrono::steady_clock::time_point started;
};

std::string status_json(const service::Service& s, const StatusContext& c);
std::string status_text(const service::Service& s, const StatusContext& c);
// One line: "Master, subnet up: 80 switches, 128 CAs; sweep 3 (incremental) 12.5 ms".
std::string status_summary(const service::Service& s);

}  // namespace cli
