// A link running below what both its ends enable and support (a degraded cable: lanes lost,
// or trained down to a lower speed). Pure: two PortInfos in, a description or nothing out.
#pragma once

#include <optional>
#include <string>

#include "mad/port_info.h"

namespace sm::perfmgr {

// "running 1x of 4x" / "running QDR of EDR"; nullopt when the link is as good as it can be
// (or either end says too little to tell). `a_ext`/`b_ext`: the end's LinkSpeedExt fields are
// valid (IsExtendedSpeedsSupported, which a switch says on its port 0).
std::optional<std::string> degraded(const mad::PortInfo& a, bool a_ext, const mad::PortInfo& b, bool b_ext);

}  // namespace sm::perfmgr
