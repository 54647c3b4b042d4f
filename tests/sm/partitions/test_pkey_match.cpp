// Partition matching as the SA decides paths and joins: sets from raw tables, a shared P_Key
// needs a full member on one side, the default partition is preferred.
#include <doctest/doctest.h>

#include <vector>

#include "sm/partitions/pkey_match.h"

using V = std::vector<uint16_t>;

TEST_CASE("pkey_set: sorted by partition, full kept over limited, invalid entries dropped") {
  CHECK(sm::pkey_set(V{0xFFFF, 0x8123, 0x0002, 0, 0, 0x8000, 0x0000}) == V{0x0002, 0x8123, 0xFFFF});
  CHECK(sm::pkey_set(V{0x0005, 0x8005}) == V{0x8005});  // =both
  CHECK(sm::pkey_set(V{0x8005, 0x0005}) == V{0x8005});
  CHECK(sm::pkey_set(V{0, 0, 0}).empty());
}

TEST_CASE("shared_pkey: both hold it, one of them full; the first port's entry") {
  const V full_a{0x8002, 0xFFFF};
  const V limited_b{0x0002, 0x7FFF};
  const V limited_c{0x0002};
  CHECK(sm::shared_pkey(full_a, limited_b, 0x0002) == 0x8002);
  CHECK(sm::shared_pkey(limited_b, full_a, 0x8002) == 0x0002);  // the membership bit asked is ignored
  CHECK(sm::shared_pkey(full_a, limited_b, 0x7FFF) == 0xFFFF);
  CHECK_FALSE(sm::shared_pkey(limited_b, limited_c, 0x0002));  // two limited members
  CHECK_FALSE(sm::shared_pkey(full_a, limited_c, 0x7FFF));     // c is not in Default
  CHECK_FALSE(sm::shared_pkey(full_a, full_a, 0x0003));
  CHECK_FALSE(sm::shared_pkey(full_a, full_a, 0x0000));
  CHECK_FALSE(sm::shared_pkey(V{}, full_a, 0x0002));
}

TEST_CASE("common_pkey: the default partition when shared, else the lowest shared") {
  CHECK(sm::common_pkey(V{0x8002, 0xFFFF}, V{0x8002, 0xFFFF}) == 0xFFFF);
  CHECK(sm::common_pkey(V{0x8002, 0x7FFF}, V{0x0002, 0x7FFF}) == 0x8002);  // Default: both limited
  CHECK(sm::common_pkey(V{0x0002, 0x8009, 0x7FFF}, V{0x8002, 0x0009, 0x7FFF}) == 0x0002);
  CHECK(sm::common_pkey(V{0x0002, 0x0009, 0x7FFF}, V{0x8002, 0x8009, 0xFFFF}) == 0x7FFF);  // its own entry
  CHECK(sm::common_pkey(V{0x8001, 0x8009}, V{0x8003, 0x0009}) == 0x8009);
  CHECK_FALSE(sm::common_pkey(V{0x0002, 0x7FFF}, V{0x0002, 0x7FFF}));
  CHECK_FALSE(sm::common_pkey(V{0x8001}, V{0x8002}));
  CHECK_FALSE(sm::common_pkey(V{}, V{0xFFFF}));
}

TEST_CASE("holds_pkey: either membership, by the low 15 bits") {
  const V s{0x0002, 0xFFFF};
  CHECK(sm::holds_pkey(s, 0x8002));
  CHECK(sm::holds_pkey(s, 0x0002));
  CHECK(sm::holds_pkey(s, 0x7FFF));
  CHECK_FALSE(sm::holds_pkey(s, 0x0003));
  CHECK_FALSE(sm::holds_pkey(s, 0x8000));
}
