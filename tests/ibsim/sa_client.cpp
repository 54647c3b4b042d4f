// sa_client set-service SERVICE_ID NAME: registers a ServiceRecord with the SA (SubnAdmSet),
// for the port this client runs on (ServiceGID = fe80::<its port GUID>, P_Key 0xFFFF, lease
// infinite), the way an application announces a service. saquery can read ServiceRecords but
// not register one; the ibsim suite uses this to check `saquery SR` after a Set.
// sa_client multipath SGUID DGUID NUMBPATH: SubnAdmGetMulti(MultiPathRecord) from port SGUID
// to port DGUID (fe80:: GIDs), NumbPath NUMBPATH, one MAD with RMPP's active flag as OpenSM's
// client sends it; prints the method and attribute of the answer and one line per PathRecord
// (SLID, DLID, SL, Preference). saquery has no MultiPathRecord query.
// A plain libibumad client (no IsSM), like the diags.
#include <endian.h>
#include <infiniband/umad.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

#include "mad/sa_mad.h"
#include "mad/sa_multipath_record.h"
#include "mad/sa_path_record.h"
#include "mad/sa_service_records.h"
#include "mad/transport.h"

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: sa_client set-service SERVICE_ID NAME   e.g. sa_client set-service 0x1000 demo\n"
               "       sa_client multipath SGUID DGUID NUMBPATH\n");
  return 2;
}

// One request, its answer (matched by TID) with the length received; nullopt: none.
struct Reply {
  mad::SaMad mad;
  int length = 0;
};
std::optional<Reply> exchange(int fd, int agent, uint16_t sm_lid, const mad::MadBytes& bytes, uint64_t tid) {
  std::vector<uint8_t> buf(umad_size() + mad::kMadSize);
  for (int attempt = 0; attempt < 5; ++attempt) {
    std::memcpy(umad_get_mad(buf.data()), bytes.data(), bytes.size());
    umad_set_addr(buf.data(), sm_lid, 1, 0, static_cast<int>(mad::kGsiQkey));
    if (umad_send(fd, agent, buf.data(), static_cast<int>(mad::kMadSize), 1000, 0) < 0) return std::nullopt;
    for (int tries = 0; tries < 5; ++tries) {
      int len = static_cast<int>(mad::kMadSize);
      if (umad_recv(fd, buf.data(), &len, 1000) < 0) break;
      auto resp = mad::decode_sa_mad(
          std::span<const uint8_t>(static_cast<const uint8_t*>(umad_get_mad(buf.data())), mad::kMadSize));
      if (!resp || static_cast<uint32_t>(resp->header.tid) != static_cast<uint32_t>(tid)) continue;
      return Reply{*resp, len};
    }
  }
  return std::nullopt;
}

int multipath(int fd, int agent, uint16_t sm_lid, uint64_t sguid, uint64_t dguid, uint8_t numb) {
  mad::MultiPathRecord r;
  r.sgids = {mad::Gid(mad::kDefaultGidPrefix, sguid)};
  r.dgids = {mad::Gid(mad::kDefaultGidPrefix, dguid)};
  r.numb_path = numb;
  mad::SaMad m;
  m.header.method = mad::sa_method::get_multi;
  m.header.attr_id = mad::sa_attr::multipath_record;
  m.header.tid = 0x5C0002;
  m.rmpp = mad::RmppHeader{.version = mad::rmpp::kVersion, .type = mad::rmpp::Type::data,
                           .flags = mad::rmpp::flag_active | mad::rmpp::flag_first | mad::rmpp::flag_last,
                           .segment = 1};
  m.comp_mask = mad::MultiPathRecord::c_sgid_count | mad::MultiPathRecord::c_dgid_count |
                mad::MultiPathRecord::c_numb_path;
  r.encode(m.data);
  auto got = exchange(fd, agent, sm_lid, mad::encode_sa_mad(m), m.header.tid);
  if (!got) {
    std::fprintf(stderr, "sa_client: no answer to GetMulti from the SA at LID %u\n", sm_lid);
    return 1;
  }
  const mad::SaMad& a = got->mad;
  std::printf("method 0x%02x attribute 0x%04x status 0x%04x\n", a.header.method, a.header.attr_id, a.header.status);
  if (a.header.status != 0) return 1;
  const size_t stride = size_t{a.attr_offset} * 8;
  const size_t bytes = got->length > 0 ? std::min<size_t>(static_cast<size_t>(got->length), mad::kMadSize) : 0;
  for (size_t off = 0; stride && mad::kSaHeaderSize + off + mad::PathRecord::kSize <= bytes; off += stride) {
    auto p = mad::PathRecord::decode(std::span(a.data).subspan(off, mad::PathRecord::kSize));
    if (!p) break;
    std::printf("PathRecord slid %u dlid %u sl %u preference %u\n", p->slid.value(), p->dlid.value(), p->sl,
                p->preference);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const bool multi = argc == 5 && std::strcmp(argv[1], "multipath") == 0;
  if (!multi && (argc != 4 || std::strcmp(argv[1], "set-service") != 0)) return usage();
  char* end = nullptr;
  const uint64_t id = std::strtoull(argv[2], &end, 0);
  if (*end != '\0' || (!multi && std::strlen(argv[3]) > 63)) return usage();
  if (umad_init() < 0) return 1;
  umad_port_t port{};
  if (umad_get_port(nullptr, 0, &port) < 0) {
    std::fprintf(stderr, "sa_client: no umad port\n");
    return 1;
  }
  const uint16_t sm_lid = static_cast<uint16_t>(port.sm_lid);
  const uint64_t guid = be64toh(port.port_guid);
  umad_release_port(&port);
  const int fd = umad_open_port(nullptr, 0);
  if (fd < 0) {
    std::fprintf(stderr, "sa_client: cannot open a umad port\n");
    return 1;
  }
  const int agent = umad_register(fd, mad::mgmt_class::subn_adm, mad::kSaClassVersion, 0, nullptr);
  if (agent < 0) {
    std::fprintf(stderr, "sa_client: cannot register class 0x03\n");
    return 1;
  }
  if (multi)
    return multipath(fd, agent, sm_lid, id, std::strtoull(argv[3], nullptr, 0),
                     static_cast<uint8_t>(std::strtoul(argv[4], nullptr, 0) & 0x7F));
  mad::ServiceRecord sr;
  sr.id = id;
  sr.gid = mad::Gid(mad::kDefaultGidPrefix, guid);
  sr.pkey = 0xFFFF;
  sr.lease = mad::ServiceRecord::kInfiniteLease;
  sr.name = argv[3];
  mad::SaMad m;
  m.header.method = mad::sa_method::set;
  m.header.attr_id = mad::sa_attr::service_record;
  m.header.tid = 0x5C0001;
  m.comp_mask = mad::ServiceRecord::c_id | mad::ServiceRecord::c_gid | mad::ServiceRecord::c_pkey |
                mad::ServiceRecord::c_lease | mad::ServiceRecord::c_name;
  sr.encode(std::span(m.data).first(mad::ServiceRecord::kSize));
  const mad::MadBytes bytes = mad::encode_sa_mad(m);
  std::vector<uint8_t> buf(umad_size() + mad::kMadSize);
  for (int attempt = 0; attempt < 5; ++attempt) {
    std::memcpy(umad_get_mad(buf.data()), bytes.data(), bytes.size());
    umad_set_addr(buf.data(), sm_lid, 1, 0, static_cast<int>(mad::kGsiQkey));
    if (umad_send(fd, agent, buf.data(), static_cast<int>(mad::kMadSize), 1000, 0) < 0) {
      std::perror("umad_send");
      return 1;
    }
    for (int tries = 0; tries < 5; ++tries) {
      int len = static_cast<int>(mad::kMadSize);
      if (umad_recv(fd, buf.data(), &len, 1000) < 0) break;
      auto resp = mad::decode_sa_mad(
          std::span<const uint8_t>(static_cast<const uint8_t*>(umad_get_mad(buf.data())), mad::kMadSize));
      if (!resp || static_cast<uint32_t>(resp->header.tid) != static_cast<uint32_t>(m.header.tid)) continue;
      if (resp->header.status != 0) {
        std::fprintf(stderr, "sa_client: ServiceRecord Set: status 0x%04x (%s)\n", resp->header.status,
                     mad::sa_status::describe(resp->header.status).c_str());
        return 1;
      }
      auto got = mad::ServiceRecord::decode(std::span(resp->data).first(mad::ServiceRecord::kSize));
      std::printf("ServiceRecord registered with the SA at LID %u: %s\n", sm_lid,
                  got ? got->to_string().c_str() : "(undecodable answer)");
      return 0;
    }
  }
  std::fprintf(stderr, "sa_client: no answer from the SA at LID %u\n", sm_lid);
  return 1;
}
