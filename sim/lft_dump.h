// Forwarding tables made elsewhere, as text: `dump_fts` output (infiniband-diags, the format
// OpenSM's file engine reads with -U) and OpenSM's own LFT dump (opensm-lfts.dmp):
//   Unicast lids [0x0-0x2c] of switch DR path slid 0; dlid 0; 0,1 guid 0x0002c903000a0b0c (S1_000):
//   0x0001 005 : (Channel Adapter portguid 0x0002c903000a0b0d: 'H00000')
//   Unicast lids [0-44] of switch Lid 33 guid 0x0002c903000a0b0c ('S1_000'):
//   0x0001 005 # Channel Adapter portguid 0x0002c903000a0b0d: 'H00000'
// Each entry gives a switch's output port for a LID and, where the tool resolved it, the port
// GUID that holds the LID: together, the other SM's LIDs and routes, to be scored on the same
// fabric by the same metrics (sim/lft_import.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mad/error.h"
#include "mad/types.h"

namespace sim {

struct DumpEntry {
  uint16_t lid;
  uint8_t port;
  mad::Guid holder;  // the port GUID holding the LID; zero when the dump did not say
};

struct DumpSwitch {
  mad::Guid guid;  // node GUID
  std::string name;
  size_t line = 0;  // of its header, for errors
  std::vector<DumpEntry> entries;
};

struct LftDump {
  std::vector<DumpSwitch> switches;
};

// Errors name the file and line ("dump.txt:12: ..."); `name` is the file's name for them.
mad::Result<LftDump> parse_lft_dump(std::string_view text, std::string_view name);
mad::Result<LftDump> load_lft_dump(const std::string& path);

}  // namespace sim
