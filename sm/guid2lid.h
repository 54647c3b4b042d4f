// OpenSM's guid2lid cache (/var/cache/opensm/guid2lid): one port a line, "GUID MIN_LID MAX_LID"
// (hex with 0x, or decimal), '#' comments. Read once at start (guid2lid_file) so that fabricsm
// replacing OpenSM gives every port the LID OpenSM gave it: the LID manager treats the entries
// as remembered LIDs for GUIDs its own store does not know.
#pragma once

#include <string>
#include <string_view>

#include "mad/error.h"
#include "sm/lid_manager.h"

namespace sm {

// Every entry a unicast range of 2^n LIDs (n <= 7) aligned to its size, no GUID twice and no two
// ranges overlapping: a file that is not OpenSM's cache is refused with the line, not half read.
mad::Result<LidMap> parse_guid2lid(std::string_view text, std::string_view path);
mad::Result<LidMap> load_guid2lid(const std::string& path);

// Adds the imported entries for GUIDs `remembered` does not have; returns how many were added.
size_t merge_imported_lids(LidMap& remembered, const LidMap& imported);

}  // namespace sm
