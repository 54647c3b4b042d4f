// A flows file: any pattern, one flow a line, `SRC DST [WEIGHT]`. SRC and DST name CA ports:
// a node name (quoted as in net files when it has spaces: "H 1"), its first port with a
// link unless a port follows in brackets (H1[2]); WEIGHT (default 1) is the flow's share of
// bandwidth and of the message size relative to the others. `#` starts a comment. Any error
// names the file and line, and nothing is run.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "mad/error.h"
#include "sim/traffic/net.h"
#include "sim/traffic/patterns.h"

namespace sim::traffic {

mad::Result<std::vector<Flow>> parse_flows(std::string_view text, std::string_view label, const Net& net);
mad::Result<std::vector<Flow>> load_flows_file(const std::string& path, const Net& net);

}  // namespace sim::traffic
