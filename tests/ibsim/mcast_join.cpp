// mcast_join SM_LID join|leave [MGID_HEX32]: what IPoIB does to join (or leave) a multicast
// group, from the port this process runs on: an SA Set (Delete) of an MCMemberRecord with
// MGID, PortGID (this port's GID) and JoinState full. Prints the answer's status and MLID;
// exits 0 when the SA said yes. ibsim has no IPoIB and saquery cannot Set, so the ibsim suite
// joins CAs with this. MGID defaults to the default partition's IPoIB broadcast group.
#include <endian.h>
#include <infiniband/umad.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mad/byte_io.h"
#include "mad/sa_mad.h"
#include "mad/sa_path_record.h"
#include "mad/transport.h"

namespace {

bool parse_gid(const std::string& s, mad::Gid& out) {
  if (s.size() != 32) return false;
  char* end = nullptr;
  const uint64_t hi = std::strtoull(s.substr(0, 16).c_str(), &end, 16);
  if (*end) return false;
  const uint64_t lo = std::strtoull(s.substr(16).c_str(), &end, 16);
  if (*end) return false;
  out = mad::Gid(hi, lo);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  unsigned sm_lid = 0;
  mad::Gid mgid = mad::ipoib_broadcast_mgid(0x7FFF);
  const std::string op = argc >= 3 ? argv[2] : "";
  if (argc < 3 || argc > 4 || std::sscanf(argv[1], "%u", &sm_lid) != 1 || sm_lid == 0 || sm_lid > 0xBFFF ||
      (op != "join" && op != "leave") || (argc == 4 && !parse_gid(argv[3], mgid))) {
    std::fprintf(stderr, "usage: mcast_join SM_LID join|leave [MGID as 32 hex digits]\n");
    return 2;
  }
  if (umad_init() < 0) return 1;
  umad_port_t port{};
  if (umad_get_port(nullptr, 0, &port) < 0) {
    std::fprintf(stderr, "mcast_join: no umad port\n");
    return 1;
  }
  const uint64_t guid = be64toh(port.port_guid);
  const uint64_t prefix = be64toh(port.gid_prefix) ? be64toh(port.gid_prefix) : mad::kDefaultGidPrefix;
  umad_release_port(&port);
  const int fd = umad_open_port(nullptr, 0);
  const int agent = fd < 0 ? -1 : umad_register(fd, mad::mgmt_class::subn_adm, mad::kSaClassVersion, 0, nullptr);
  if (agent < 0) {
    std::fprintf(stderr, "mcast_join: cannot open the port or register the SA class\n");
    return 1;
  }
  mad::McMemberRecord rec;
  rec.mgid = mgid;
  rec.port_gid = mad::Gid(prefix, guid);
  rec.join_state = mad::join_state::full;
  mad::SaMad m;
  m.header.method = op == "join" ? mad::sa_method::set : mad::sa_method::del;
  m.header.attr_id = mad::McMemberRecord::kAttrId;
  const uint32_t tid = 0x4D430000u | static_cast<uint32_t>(guid & 0xFFFF);
  m.header.tid = tid;
  m.comp_mask = mad::McMemberRecord::c_mgid | mad::McMemberRecord::c_port_gid | mad::McMemberRecord::c_join_state;
  rec.encode(m.data);
  const mad::MadBytes bytes = mad::encode_sa_mad(m);
  std::vector<uint8_t> buf(umad_size() + mad::kMadSize);
  for (int attempt = 0; attempt < 5; ++attempt) {
    std::memcpy(umad_get_mad(buf.data()), bytes.data(), bytes.size());
    umad_set_addr(buf.data(), static_cast<int>(sm_lid), 1, 0, static_cast<int>(mad::kGsiQkey));
    if (umad_send(fd, agent, buf.data(), static_cast<int>(mad::kMadSize), 1000, 0) < 0) {
      std::perror("umad_send");
      return 1;
    }
    for (int tries = 0; tries < 5; ++tries) {
      int len = static_cast<int>(mad::kMadSize);
      if (umad_recv(fd, buf.data(), &len, 1000) < 0) continue;
      const auto* mad = static_cast<const uint8_t*>(umad_get_mad(buf.data()));
      auto resp = mad::decode_sa_mad(std::span<const uint8_t>(mad, mad::kMadSize));
      if (!resp || static_cast<uint32_t>(resp->header.tid) != tid) continue;
      const auto got = mad::McMemberRecord::decode(resp->data);
      std::printf("status 0x%04x mlid 0x%04x\n", resp->header.status, got ? got->mlid.value() : 0);
      return resp->header.status == 0 ? 0 : 3;
    }
  }
  std::fprintf(stderr, "mcast_join: no answer from LID %u\n", sm_lid);
  return 1;
}
