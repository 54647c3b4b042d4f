// How `fabricsm sim` prints what it found: a text summary, a side-by-side comparison of
// engines, one JSON object, the per-link loads as CSV.
#pragma once

#include <string>
#include <vector>

#include "cli/json.h"
#include "cli/sim_run.h"

namespace cli {

std::string text_summary(const std::string& fabric, const SimOutcome& o, long peak_rss_kb);
std::string text_comparison(const std::string& fabric, const std::vector<SimOutcome>& runs);
Json json_outcome(const SimOutcome& o);  // one engine's object
std::string json_summary(const std::string& fabric, const std::vector<SimOutcome>& runs,
                         long peak_rss_kb);
std::string csv_link_loads(const std::vector<SimOutcome>& runs);

}  // namespace cli
