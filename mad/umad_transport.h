// mad::Transport over libibumad: a real HCA port through the kernel's ib_umad, or ibsim through
// its LD_PRELOAD shim (umad2sim). On the subnet management classes (0x81 directed route, 0x01
// LID routed) it is the SM's agent: it also receives requests (SMInfo Get/Set, traps), and
// holds IsSM on its port for as long as the transport lives. GSI classes can be sent too
// (QP1, a client agent registered on first use).
//
// Threads: none of its own; send() and receive() (which blocks in umad_recv) are called from
// one owner thread (the SM's event loop), as is stats(). Only this file and its .cpp include
// <infiniband/umad.h>: the rest of mad/ builds without libibumad.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mad/transport.h"
#include "mad/umad_port.h"

namespace mad {

struct UmadStats {
  uint64_t sent = 0;
  uint64_t send_errors = 0;
  uint64_t received = 0;
  uint64_t dropped = 0;      // umad status set (a kernel timeout) or too short
  uint64_t recv_errors = 0;  // umad_recv failures other than a quiet timeout
};

class UmadTransport final : public Transport {
 public:
  static Result<std::unique_ptr<UmadTransport>> open(const UmadOptions& opts);
  ~UmadTransport() override;
  UmadTransport(const UmadTransport&) = delete;
  UmadTransport& operator=(const UmadTransport&) = delete;

  Result<void> send(const Packet& p) override;
  // A GetTable answer longer than one MAD, whole: the kernel cuts it into RMPP segments and
  // handles the ACKs (the SA agent is registered with RMPP).
  bool sends_rmpp() const override { return sa_kernel_rmpp_; }
  Result<void> send_rmpp(const MadAddress& to, std::span<const uint8_t> mad) override;
  Result<void> receive(std::vector<Packet>& out, Nanos deadline) override;
  Result<void> retake_is_sm() override;  // the issm device closed and opened again
  const Clock& clock() const override { return clock_; }

  const UmadPort& port() const { return port_; }
  UmadStats stats() const;

 private:
  explicit UmadTransport(UmadPort port, std::chrono::milliseconds request_timeout);
  Result<void> attach();  // open the port, register the agents, take IsSM
  Result<void> open_issm();
  // One umad_recv into `out`: false when nothing came within timeout_ms.
  Result<bool> recv_one(std::vector<Packet>& out, int timeout_ms);
  int agent_for(uint8_t mgmt_class, uint8_t class_version);
  // umad_send of a prepared buffer, counted in the stats.
  Result<void> post(int agent, void* umad, size_t length, int timeout_ms, int retries);

  static constexpr int kAgentUntried = -1, kAgentFailed = -2;
  UmadPort port_;
  int request_timeout_ms_;
  int portid_ = -1;
  int agent_dr_ = -1;   // class 0x81
  int agent_lid_ = -1;  // class 0x01
  std::array<int, 256> gsi_agents_;  // other classes, registered on first send
  int issm_fd_ = -1;
  bool sa_kernel_rmpp_ = false;  // the SA agent is registered and the kernel does its RMPP
  SteadyClock clock_;
  std::vector<uint8_t> send_buf_;  // umad header + MAD, reused by send() (one sending thread)

  std::vector<uint8_t> recv_buf_;  // umad header + MAD, reused by receive()
  int recv_errors_ = 0;            // umad_recv failures in a row
  int64_t last_rx_ns_ = 0;         // steady-clock ns of the last MAD received
  UmadStats stats_;
};

}  // namespace mad
