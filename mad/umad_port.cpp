#include "mad/umad_port.h"

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace mad {

namespace {

std::string state_name(unsigned s) {
  switch (s) {
    case 1: return "Down";
    case 2: return "Init";
    case 3: return "Armed";
    case 4: return "Active";
    default: return fmt::format("state {}", s);
  }
}

std::string list_text(const std::vector<PortCandidate>& all) {
  std::string s;
  for (const PortCandidate& c : all) s += (s.empty() ? "" : "; ") + c.str();
  return s;
}

}  // namespace

std::string PortCandidate::str() const {
  return fmt::format("{} port {} ({}, {}, GUID {})", port.ca, port.port, link_layer, state_name(port.state),
                     port.guid.str());
}

Result<PortCandidate> pick_port(const std::vector<PortCandidate>& all, const UmadOptions& o) {
  const PortCandidate* found = nullptr;
  if (o.port_guid) {
    for (const PortCandidate& c : all)
      if (c.port.guid == *o.port_guid) found = &c;
    if (!found)
      return fail(Errc::not_found, fmt::format("no local port has GUID {} (ports: {})", o.port_guid->str(),
                                               list_text(all)));
  } else if (!o.ca.empty() || o.port != 0) {
    for (const PortCandidate& c : all) {
      if (!o.ca.empty() && c.port.ca != o.ca) continue;
      if (o.port != 0 && c.port.port != o.port) continue;
      if (o.port == 0 && !(c.is_ib() && c.link_up())) continue;  // --ca only: its first linked port
      found = &c;
      break;
    }
    if (!found) {
      std::string what = o.ca.empty()  ? fmt::format("no CA has a port {}", o.port)
                         : o.port == 0 ? fmt::format("CA {} has no InfiniBand port with its link up", o.ca)
                                       : fmt::format("CA {} has no port {}", o.ca, o.port);
      return fail(Errc::not_found, fmt::format("{} (ports: {})", what, list_text(all)));
    }
  } else {
    for (const PortCandidate& c : all)
      if (c.is_ib() && c.link_up()) {
        found = &c;
        break;
      }
    if (!found)
      return fail(Errc::not_found,
                  fmt::format("no InfiniBand port has its link up (ports: {})", list_text(all)));
  }
  if (!found->is_ib())
    return fail(Errc::not_found, fmt::format("{} port {} is {}, not InfiniBand: an SM needs an InfiniBand port",
                                             found->port.ca, found->port.port, found->link_layer));
  return *found;
}

Error open_port_error(std::string_view where, int id, int err, bool device_denied) {
  if (id == -EOPNOTSUPP)
    return {Errc::io, fmt::format("cannot open {}: /sys/class/infiniband_mad/abi_version is missing or too old "
                                  "(is ib_umad loaded?)", where)};
  if (err == EACCES || err == EPERM || device_denied)  // libibumad returns -EIO; errno says why
    return {Errc::io, fmt::format("permission denied opening {}: run as root, or give this user read/write "
                                  "access to /dev/infiniband/umad*", where)};
  return {Errc::io, fmt::format("cannot open {}: {}", where, std::strerror(err != 0 ? err : -id))};
}

}  // namespace mad
