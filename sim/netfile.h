// The ibnetdiscover / ibsim "net file": read it into a FabricSpec and write one back.
//
// Accepted (what ibsim 0.10 loads and what ibnetdiscover prints):
//   Switch 36 "name"   # "description" enhanced|base port 0 lid 6 lmc 0
//   Hca|Ca 2 "name"    # "description"
//   Rt 2 "name"
//   [p](portguid) "remote"[q](remoteguid)  w=4 s=7 e=4  # "remote desc" lid 4 4xEDR
//   switchguid= caguid= hcaguids= rtguid= (=VALUE absolute, +VALUE from the last base),
//   sysimgguid= vendid= (next node only), devid= width= speed= extspeed= (until changed),
//   include FILE, do CMD, # comments, blank lines between records.
// Node GUIDs follow ibsim's counters exactly (see netfile.cpp), so a file has the same GUIDs
// here and in ibsim. Link width and speed: each port's enabled set comes from the width=/speed=
// directives in force when its node was declared, overridden by its own line's tail or w=/s=/e=
// options; the link runs at the best value both ends enable, as in ibsim. The one deliberate
// difference: with no speed directive, ports enable SDR..QDR (ibsim: SDR only), so links without
// tails are 4x QDR.
//
// Stricter than ibsim (it ignores or truncates these; we refuse with file:line): garbage on a
// header or port line, a port line outside a record, unknown speeds in tails, bad numbers,
// names with '#' or '@', the ibsim-only module=/@alias extensions (unsupported), a router that
// ibsim would give node GUID 0. More lenient: a link listed on one side only is connected
// (ibsim 0.10 refuses it), includes resolve relative to the including file, leading spaces.
// As in ibsim, tails on router (Rt) port lines are ignored; routers take w=/s=/e= options.
// Node descriptions come from the header comment; a '"' in one reads as '\'' (so the writer can
// quote it back). LIDs, LMC and "enhanced port 0" in comments are not kept: the SM assigns LIDs.
#pragma once

#include <string>
#include <string_view>

#include "mad/error.h"
#include "sim/spec.h"

namespace sim {

struct NetfileOptions {
  // `include` reads files; off for untrusted input (the fuzzer), where it is an error.
  bool allow_include = true;
};

// Parses a whole net file. `name` is used in error messages ("name:line: ...") and as the base
// for relative include paths. Errors are Errc::parse with "file:line: what is wrong".
mad::Result<FabricSpec> parse_netfile(std::string_view text, std::string_view name = "<input>",
                                      const NetfileOptions& options = {});

// Reads and parses a file (Errc::io when it cannot be read).
mad::Result<FabricSpec> load_netfile(const std::string& path, const NetfileOptions& options = {});

// Writes a net file that parse_netfile and ibsim both load to the same fabric: one record per
// node in spec order, every cable on both ends with a "# lid 0 4xHDR"-style tail, GUID and
// ID directives only where the spec differs from the defaults. parse(write(x)) == x for any
// spec parse_netfile returns, and for generator specs (GUIDs assigned by assign_guids).
std::string write_netfile(const FabricSpec& spec);

}  // namespace sim
