// The data a link carries per second at its active width and speed, after the line code
// (8b/10b up to QDR, 64b/66b from FDR): what a port's PortXmitData rate is measured against.
// The simulator's traffic model uses the same figures, so measured and modelled agree.
#pragma once

#include <cstdint>

#include "fabric/topology.h"

namespace fabric {

// Gb/s of data; 0 for a width or speed not known. PortInfo encodings: LinkWidthActive (1 = 1x,
// 16 = 2x, 2 = 4x, 4 = 8x, 8 = 12x), LinkSpeedActive (1 SDR, 2 DDR, 4 QDR), LinkSpeedExtActive
// (1 FDR, 2 EDR, 4 HDR, 8 NDR; it wins when set).
inline double data_gbps(uint8_t width_active, uint8_t speed_active, uint8_t speed_ext_active) {
  const double lanes = width_active == 0x01 ? 1
                       : width_active == 0x10 ? 2
                       : width_active == 0x02 ? 4
                       : width_active == 0x04 ? 8
                       : width_active == 0x08 ? 12
                                              : 0;
  const double lane = speed_ext_active & 0x8   ? 100
                      : speed_ext_active & 0x4 ? 50
                      : speed_ext_active & 0x2 ? 25
                      : speed_ext_active & 0x1 ? 13.64  // 14.0625 Gbaud x 64/66
                      : speed_active & 0x4     ? 8
                      : speed_active & 0x2     ? 4
                      : speed_active & 0x1     ? 2
                                               : 0;
  return lanes * lane;
}

inline double data_bytes_per_s(const Port& p) {
  return data_gbps(p.width_active, p.speed_active, p.speed_ext_active) * 1e9 / 8;
}

}  // namespace fabric
