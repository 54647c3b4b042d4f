// SLs and SL-to-VL tables read off a fabric elsewhere (ibsim, with saquery and smpquery), as
// text, so that another run's VL layers are checked for deadlock freedom on the same fabric by
// the same code as the simulator's own (sim/sl_import.h). One record a line, '#' comments:
//   path SLID DLID SL                      the SL a PathRecord SLID -> DLID carries
//   sl2vl SWITCH_GUID IN OUT VL0 .. VL15   a switch's SL-to-VL table for input port IN, output
//                                          port OUT (smpquery sl2vl LID OUT prints every IN)
// Numbers are decimal or 0x-hex.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mad/error.h"
#include "mad/types.h"

namespace sim {

struct SlPath {
  uint16_t slid = 0, dlid = 0;
  uint8_t sl = 0;
  size_t line = 0;  // for errors
};

struct SlToVlRow {
  mad::Guid sw;  // node GUID
  uint8_t in = 0, out = 0;
  std::array<uint8_t, 16> vl{};  // by SL
  size_t line = 0;
};

struct SlDump {
  std::vector<SlPath> paths;
  std::vector<SlToVlRow> sl2vl;
};

// Errors name the file and line ("sls.txt:3: ..."); `name` is the file's name for them.
mad::Result<SlDump> parse_sl_dump(std::string_view text, std::string_view name);
mad::Result<SlDump> load_sl_dump(const std::string& path);

}  // namespace sim
