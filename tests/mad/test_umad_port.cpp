// `fabricsm run`'s choice of local port, over port lists as sysfs describes them: the default,
// --ca/--port, --guid, and the messages for a RoCE port and a umad device it may not open.
#include <doctest/doctest.h>

#include <cerrno>
#include <string>
#include <vector>

#include "mad/umad_port.h"

using namespace mad;

namespace {

PortCandidate port(std::string ca, int num, std::string link_layer, unsigned state, uint64_t guid) {
  PortCandidate c;
  c.port.ca = std::move(ca);
  c.port.port = num;
  c.port.guid = Guid(guid);
  c.port.state = state;
  c.link_layer = std::move(link_layer);
  return c;
}

// A RoCE NIC listed first, then a two-port HCA whose port 1 is down.
const std::vector<PortCandidate> kHost = {
    port("mlx5_0", 1, "Ethernet", 4, 0xa1),
    port("mlx5_1", 1, "InfiniBand", 1, 0xb1),
    port("mlx5_1", 2, "InfiniBand", 4, 0xb2),
};

std::string picked(const UmadOptions& o) {
  auto r = pick_port(kHost, o);
  return r ? r->port.ca + "/" + std::to_string(r->port.port) : "error: " + r.error().message;
}

}  // namespace

TEST_CASE("by default: the first InfiniBand port with its link up, not a RoCE port") {
  CHECK(picked({}) == "mlx5_1/2");
  std::vector<PortCandidate> none = {kHost[0], kHost[1]};
  auto r = pick_port(none, {});
  REQUIRE_FALSE(r);
  CHECK(r.error().code == Errc::not_found);
  CHECK(r.error().message ==
        "no InfiniBand port has its link up (ports: mlx5_0 port 1 (Ethernet, Active, GUID 0x00000000000000a1); "
        "mlx5_1 port 1 (InfiniBand, Down, GUID 0x00000000000000b1))");
}

TEST_CASE("--ca and --port select; --ca alone takes the CA's first linked InfiniBand port") {
  CHECK(picked({.ca = "mlx5_1"}) == "mlx5_1/2");
  CHECK(picked({.ca = "mlx5_1", .port = 1}) == "mlx5_1/1");  // named: taken even while down
  CHECK(picked({.port = 2}) == "mlx5_1/2");
  CHECK(picked({.ca = "mlx5_1", .port = 3}).starts_with("error: CA mlx5_1 has no port 3 (ports: mlx5_0 port 1"));
  CHECK(picked({.ca = "nosuch"}).starts_with("error: CA nosuch has no InfiniBand port with its link up"));
  CHECK(picked({.port = 9}).starts_with("error: no CA has a port 9"));
  // The shim's ports say "IB" for their link layer.
  auto r = pick_port({port("ibsim0", 1, "IB", 2, 0x100004)}, {.ca = "ibsim0", .port = 1});
  REQUIRE(r);
  CHECK(r->port.guid == Guid(0x100004));
}

TEST_CASE("--guid overrides --ca/--port") {
  CHECK(picked({.ca = "mlx5_0", .port = 1, .port_guid = Guid(0xb1)}) == "mlx5_1/1");
  CHECK(picked({.port_guid = Guid(0x1234)}).starts_with("error: no local port has GUID 0x0000000000001234"));
}

TEST_CASE("a port that is not InfiniBand is refused with what it is") {
  for (const UmadOptions& o : {UmadOptions{.ca = "mlx5_0", .port = 1}, UmadOptions{.port_guid = Guid(0xa1)}}) {
    auto r = pick_port(kHost, o);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == Errc::not_found);
    CHECK(r.error().message == "mlx5_0 port 1 is Ethernet, not InfiniBand: an SM needs an InfiniBand port");
  }
}

TEST_CASE("opening the umad device: permission denied says how to get access") {
  const std::string where = "/dev/infiniband/umad1 (mlx5_1 port 2)";
  const std::string denied =
      "permission denied opening " + where +
      ": run as root, or give this user read/write access to /dev/infiniband/umad*";
  CHECK(open_port_error(where, -EIO, EACCES, false).message == denied);  // libibumad: -EIO, errno
  CHECK(open_port_error(where, -EIO, EPERM, false).message == denied);
  CHECK(open_port_error(where, -EIO, 0, true).message == denied);  // errno lost: access(2) tells
  CHECK(open_port_error(where, -EIO, ENODEV, false).message == "cannot open " + where + ": No such device");
  CHECK(open_port_error(where, -EIO, 0, false).message == "cannot open " + where + ": Input/output error");
  CHECK(open_port_error(where, -EOPNOTSUPP, 0, false).message.find("abi_version") != std::string::npos);
  CHECK(open_port_error(where, -EIO, EACCES, false).code == Errc::io);
}
