// Matching a PathRecord query to a QoS level, as OpenSM does: the first rule that matches wins,
// a rule's absent fields match anything, a field the rule names must be in the query, port
// groups by GUID, name, node type and P_Key; the qos-ulps rules after the full policy's.
#include <doctest/doctest.h>

#include "sm/qos_policy/match.h"
#include "sm/qos_policy/parse.h"

using sm::qos::PortFacts;
using sm::qos::Query;

namespace {

sm::qos::Policy policy_of(std::string_view text) {
  auto r = sm::qos::parse_policy(text, "q.conf");
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
  return *r;
}

const char* kPolicy = R"(
port-groups
  port-group
    name: Storage
    port-guid: 0x100-0x1ff, 0x300
  end-port-group
  port-group
    name: Compute
    port-name: node1 HCA-1/P1
    node-type: SWITCH
  end-port-group
  port-group
    name: Tenant
    pkey: 0x0a00-0x0aff
  end-port-group
  port-group
    name: Me
    node-type: SELF
  end-port-group
end-port-groups
qos-levels
  qos-level
    name: DEFAULT
    sl: 1
  end-qos-level
  qos-level
    name: storage
    sl: 3
    mtu-limit: 4
  end-qos-level
  qos-level
    name: sdp
    sl: 5
  end-qos-level
  qos-level
    name: tenant
    sl: 7
  end-qos-level
  qos-level
    name: sm
    sl: 9
  end-qos-level
  qos-level
    name: class
    sl: 10
  end-qos-level
end-qos-levels
qos-match-rules
  qos-match-rule
    source: Compute
    destination: Storage
    service-id: 0x10000-0x1ffff
    qos-level-name: storage
  end-qos-match-rule
  qos-match-rule
    service-id: 0x10000-0x1ffff
    qos-level-name: sdp
  end-qos-match-rule
  qos-match-rule
    source: Tenant
    pkey: 0x8a10
    qos-level-name: tenant
  end-qos-match-rule
  qos-match-rule
    destination: Me
    qos-level-name: sm
  end-qos-match-rule
  qos-match-rule
    qos-class: 2-4
    qos-level-name: class
  end-qos-match-rule
end-qos-match-rules
qos-ulps
  default : 2  # the DEFAULT level wins over it
  any, service-id 0x6234 : 6
  any, target-port-guid 0x400 : 8
end-qos-ulps
)";

PortFacts port(uint64_t guid, std::string_view desc = "", unsigned num = 1, mad::NodeType t = mad::NodeType::ca) {
  PortFacts f;
  f.guid = mad::Guid(guid);
  f.node_desc = desc;
  f.port = num;
  f.type = t;
  return f;
}

}  // namespace

TEST_CASE("qos match: the first matching rule wins, fields the rule names must be in the query") {
  const auto p = policy_of(kPolicy);
  auto sl = [&](const Query& q) { return sm::qos::level_for(p, q).sl; };
  const PortFacts compute = port(0x1, "node1 HCA-1", 1);
  const PortFacts compute_p2 = port(0x2, "node1 HCA-1", 2);
  const PortFacts sw = port(0x3, "a switch", 0, mad::NodeType::sw);
  const PortFacts storage = port(0x180), storage2 = port(0x300), other = port(0x250);

  // Rule 1 needs all three: source group, destination group and the service ID.
  CHECK(sl({.service_id = 0x10005, .source = &compute, .destination = &storage}) == 3);
  CHECK(sl({.service_id = 0x1FFFF, .source = &sw, .destination = &storage2}) == 3);  // Compute by node type
  // Any one of them missing: rule 2 (service ID alone) takes it.
  CHECK(sl({.service_id = 0x10005, .source = &compute_p2, .destination = &storage}) == 5);  // port 2 not named
  CHECK(sl({.service_id = 0x10005, .source = &compute, .destination = &other}) == 5);
  CHECK(sl({.service_id = 0x10005, .destination = &storage}) == 5);  // the source not known
  CHECK(sl({.service_id = 0x20000, .source = &compute, .destination = &storage}) == 1);  // out of range: default
  // No service ID in the query: no rule naming one matches.
  CHECK(sl({.source = &compute, .destination = &storage}) == 1);
  CHECK(sm::qos::level_for(p, {.service_id = 0x10005, .source = &compute, .destination = &storage}).mtu_limit == 4);
}

TEST_CASE("qos match: P_Keys without the membership bit, port groups by P_Key, SELF, QoS class") {
  const auto p = policy_of(kPolicy);
  auto sl = [&](const Query& q) { return sm::qos::level_for(p, q).sl; };
  const uint16_t tenant_keys[] = {0xFFFF, 0x8A42};
  PortFacts tenant = port(0x10);
  tenant.pkeys = tenant_keys;
  const PortFacts plain = port(0x11);
  CHECK(sl({.pkey = 0x0A10, .source = &tenant, .destination = &plain}) == 7);
  CHECK(sl({.pkey = 0x8A10, .source = &tenant, .destination = &plain}) == 7);  // full member: the same key
  CHECK(sl({.pkey = 0x0A11, .source = &tenant, .destination = &plain}) == 1);
  CHECK(sl({.pkey = 0x0A10, .source = &plain, .destination = &tenant}) == 1);  // the source is not in Tenant
  CHECK(sl({.source = &tenant, .destination = &plain}) == 1);                 // no P_Key in the query
  PortFacts me = port(0x12);
  me.self = true;
  CHECK(sl({.source = &plain, .destination = &me}) == 9);
  CHECK(sl({.source = &me, .destination = &plain}) == 1);
  CHECK(sl({.qos_class = 3, .source = &plain, .destination = &plain}) == 10);
  CHECK(sl({.qos_class = 5, .source = &plain, .destination = &plain}) == 1);
}

TEST_CASE("qos match: the qos-ulps rules come after the full policy's, their default last") {
  const auto p = policy_of(kPolicy);
  auto sl = [&](const Query& q) { return sm::qos::level_for(p, q).sl; };
  const PortFacts a = port(0x20), target = port(0x400);
  CHECK(sl({.service_id = 0x6234, .source = &a, .destination = &a}) == 6);
  CHECK(sl({.source = &a, .destination = &target}) == 8);
  CHECK(sl({.service_id = 0x6234, .source = &a, .destination = &target}) == 6);  // file order
  CHECK(sl({.service_id = 0x10001, .source = &a, .destination = &target}) == 5);  // the full policy first
  CHECK(sl({.source = &a, .destination = &a}) == 1);
  // A DEFAULT level in qos-levels is the default over qos-ulps' default.
  const auto both = policy_of("qos-levels\n qos-level\n  name: DEFAULT\n  sl: 4\n end-qos-level\nend-qos-levels\n"
                             "qos-ulps\n default : 2\nend-qos-ulps\n");
  CHECK(sm::qos::level_for(both, {}).sl == 4);
}

// An oracle: a rule matches exactly when each of its criteria holds, checked one at a time.
TEST_CASE("qos match: matches() is the conjunction of the rule's criteria") {
  const auto p = policy_of(kPolicy);
  const auto& rule = p.rules[0];
  const PortFacts compute = port(0x1, "node1 HCA-1", 1), storage = port(0x100), other = port(0x999);
  for (int mask = 0; mask < 8; ++mask) {
    Query q;
    q.service_id = (mask & 1) ? 0x10000 : 0x5;
    q.source = (mask & 2) ? &compute : &other;
    q.destination = (mask & 4) ? &storage : &other;
    CHECK(sm::qos::matches(p, rule, q) == (mask == 7));
  }
}
